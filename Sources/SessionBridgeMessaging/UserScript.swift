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
    /// Whether the script reads nothing of its document while it is injected (no `location`,
    /// `document`, cookie or anything the page defined: it only defines functions that read
    /// them when they are called). The headless engine runs such scripts at the start of the
    /// document it prepares before the navigation's response (the prewarmed one), off the
    /// navigation's path; it runs the others once the document is committed. The standard
    /// scripts are marked so.
    package var isDocumentIndependent = false

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
