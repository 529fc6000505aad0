/// A script the app injects into every document, as WebKit's `WKUserScript`.
public struct UserScript: Sendable, Hashable {
    /// When the script runs.
    public enum InjectionTime: Sendable, Hashable {
        /// Before the document's own scripts.
        case atDocumentStart
        /// After the document's own scripts.
        case atDocumentEnd
    }

    public var source: String
    public var injectionTime: InjectionTime
    /// Whether it runs only in the main frame.
    public var isForMainFrameOnly: Bool
    /// The world it runs in.
    public var contentWorld: ContentWorld
    /// The name it has in stack traces.
    public var sourceURL: String

    public init(
        source: String, injectionTime: InjectionTime, forMainFrameOnly: Bool = true,
        in contentWorld: ContentWorld = .page, sourceURL: String = "sessionbridge://user-script.js"
    ) {
        self.source = source
        self.injectionTime = injectionTime
        self.isForMainFrameOnly = forMainFrameOnly
        self.contentWorld = contentWorld
        self.sourceURL = sourceURL
    }
}
