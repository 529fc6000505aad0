/// Why the WebKit engine could not do something.
///
/// Messages never hold cookie values, tokens or script results: only what failed and where.
public struct WebKitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable code for programs.
    public enum Code: String, Sendable, Hashable {
        /// No display could be opened or started (GTK needs one).
        case displayUnavailable = "display_unavailable"
        /// WebKit did not answer within the operation's time limit.
        case timeout
        /// A script threw or could not run.
        case javaScript = "javascript"
        /// A value could not cross between JavaScript and Swift.
        case conversion
        /// The view was closed.
        case closed
        /// WebKit reported an error.
        case webKit = "webkit"
        /// A path or argument was refused.
        case invalidArgument = "invalid_argument"
    }

    public var code: Code
    /// What happened, for a person.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
