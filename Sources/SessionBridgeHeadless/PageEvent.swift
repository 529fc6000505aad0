public import Foundation
import SessionBridgeMessaging
public import SessionBridgeScriptEngine

/// What happened in a page, in order: for transcripts, logs and tests.
public enum PageEvent: Sendable {
    case console(ConsoleMessage, url: URL)
    /// An exception no script caught, or a rejection nobody handled.
    case scriptError(ScriptError, unhandledRejection: Bool, url: URL)
    /// The navigation delegate decided; `waited` is how long it held the navigation.
    case navigationPolicy(NavigationAction, policy: NavigationActionPolicy, waited: Duration)
    case http(HTTPExchange)
    case documentCommitted(Navigation)
    case navigationFinished(Navigation)
    case navigationFailed(PageError)
    /// The page's web content process ended (WebKit engine only); the page shows nothing until
    /// it loads again, which starts a new process. `url` is the document it had.
    case webContentProcessTerminated(WebContentProcessTerminationReason, url: URL?)
}

/// One HTTP request and response, with cookie names but never values.
public struct HTTPExchange: Sendable, Hashable {
    /// Who sent it.
    public enum Initiator: String, Sendable, Hashable {
        case navigation, fetch, script
        /// A WebSocket's opening handshake (`101` when it opened).
        case webSocket = "websocket"
    }

    public var initiator: Initiator
    public var method: String
    public var url: URL
    /// `nil` when no response arrived.
    public var statusCode: Int?
    /// Names of the cookies sent.
    public var cookiesSent: [String]
    /// Names of the cookies the response set; deletions are listed in ``cookiesDeleted``.
    public var cookiesSet: [String]
    public var cookiesDeleted: [String]
    /// `Set-Cookie` lines the jar refused, with the reason (values never shown).
    public var cookiesRejected: [String]
    public var duration: Duration

    /// An exchange as an engine saw it (engines other than ``WebPage`` report theirs too).
    public init(
        initiator: Initiator, method: String, url: URL, statusCode: Int?, cookiesSent: [String], cookiesSet: [String],
        cookiesDeleted: [String], cookiesRejected: [String], duration: Duration
    ) {
        self.initiator = initiator
        self.method = method
        self.url = url
        self.statusCode = statusCode
        self.cookiesSent = cookiesSent
        self.cookiesSet = cookiesSet
        self.cookiesDeleted = cookiesDeleted
        self.cookiesRejected = cookiesRejected
        self.duration = duration
    }
}
