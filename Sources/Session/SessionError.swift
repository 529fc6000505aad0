import Bridge

/// Why a session operation failed, with a code a page can act on. Never carries a token.
public struct SessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable machine-readable code; the page sees its raw value.
    public enum Code: String, Sendable, Hashable {
        /// The server refused the refresh token (revoked, expired or reused): the session ended.
        case invalidGrant = "invalid_grant"
        /// The server could not be reached or did not answer in time. Retryable.
        case network
        /// The server answered with an error or an unreadable answer. Retryable.
        case serverError = "server_error"
        /// There is no session to refresh.
        case signedOut = "signed_out"
        /// The request was malformed (an unknown action, say).
        case badRequest = "bad_request"
        /// The token vault could not be read or written.
        case storage
    }

    /// The code.
    public var code: Code
    /// A sentence for people and logs; never a secret.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Whether trying again later may succeed.
    public var isRetryable: Bool { code == .network || code == .serverError || code == .storage }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The error as a page sees it: code, message and whether to retry.
    public var scriptMessageError: ScriptMessageError {
        ScriptMessageError(code: code.rawValue, message: message, retryable: isRetryable, name: "SessionError")
    }

    static let signedOut = SessionError(.signedOut, "there is no session")
}
