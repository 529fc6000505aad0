public import Foundation

/// Where a message came from: the frame's document, as the page loaded it (never as a script
/// says).
public struct FrameInfo: Sendable, Hashable {
    /// Whether the frame is the page's main frame.
    public var isMainFrame: Bool
    /// The URL of the frame's document.
    public var url: URL
    /// The origin of the frame's document; `nil` for an opaque origin.
    public var securityOrigin: SecurityOrigin?

    public init(url: URL, isMainFrame: Bool = true) {
        self.url = url
        self.isMainFrame = isMainFrame
        self.securityOrigin = SecurityOrigin(url: url)
    }
}
