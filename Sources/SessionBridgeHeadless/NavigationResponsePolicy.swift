import Foundation

/// What the delegate decides about a ``NavigationResponse``.
public enum NavigationResponsePolicy: Sendable, Hashable {
    case allow
    case cancel
}
