import Foundation

/// What the delegate decides about a ``NavigationAction``.
public enum NavigationActionPolicy: Sendable, Hashable {
    case allow
    case cancel
}
