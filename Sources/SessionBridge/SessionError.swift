import SessionBridgeMessaging
import SessionBridgeOAuth

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
        /// The server refused the client's authentication (RFC 6749 §5.2): a configuration
        /// error; the session is kept.
        case invalidClient = "invalid_client"
        /// The client may not use this grant: a configuration error; the session is kept.
        case unauthorizedClient = "unauthorized_client"
        /// The server does not support the grant: a configuration error; the session is kept.
        case unsupportedGrantType = "unsupported_grant_type"
        /// The requested scope is refused: a configuration error; the session is kept.
        case invalidScope = "invalid_scope"
        /// The server found the request malformed: a configuration error; the session is kept.
        case invalidRequest = "invalid_request"
        /// The user or the server refused the sign-in.
        case accessDenied = "access_denied"
        /// The provider needs the user before it issues tokens again (OpenID Connect's
        /// `interaction_required`, `login_required`, `consent_required`,
        /// `account_selection_required`): sign in interactively. Not retryable; the session is
        /// kept.
        case interactionRequired = "interaction_required"
        /// The server refused the request (a `4xx`) with an error code this client does not know;
        /// the message names it. Not retryable, as asking again cannot change a refusal; the
        /// session is kept.
        case refused
        /// An answer failed a check (issuer, state, `iss`, ID token): nothing of it was used.
        case invalidResponse = "invalid_response"
        /// The client's settings are incomplete (no endpoint, no redirect URI, an unusable key,
        /// an issuer without a discovery document).
        case invalidConfiguration = "invalid_configuration"
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

    /// The session error an OAuth client error stands for.
    public init(_ error: OAuthError) {
        let code: Code =
            switch error.code {
            case .invalidGrant: .invalidGrant
            case .invalidClient: .invalidClient
            case .unauthorizedClient: .unauthorizedClient
            case .unsupportedGrantType: .unsupportedGrantType
            case .invalidScope: .invalidScope
            case .invalidRequest: .invalidRequest
            case .accessDenied: .accessDenied
            case .interactionRequired, .loginRequired, .consentRequired, .accountSelectionRequired: .interactionRequired
            case .network: .network
            case .serverError, .temporarilyUnavailable: .serverError
            case .invalidConfiguration, .discoveryFailed: .invalidConfiguration
            case .issuerMismatch, .stateMismatch, .invalidIDToken, .invalidResponse: .invalidResponse
            // A code this client does not know: an answer of 4xx is the server's refusal, which
            // asking again cannot change; another (no status, a 5xx) a failure of the server's.
            default: (400..<500).contains(error.status ?? 0) ? .refused : .serverError
            }
        self.init(code, error.message)
    }

    /// Whether trying again later may succeed.
    public var isRetryable: Bool { code == .network || code == .serverError || code == .storage }

    /// Whether the client is set up wrong (`invalid_client`, `unauthorized_client`,
    /// `unsupported_grant_type`, `invalid_scope`, `invalid_request`, `invalid_configuration`):
    /// not retried, and the session is not ended by it.
    public var isConfigurationError: Bool {
        [.invalidClient, .unauthorizedClient, .unsupportedGrantType, .invalidScope, .invalidRequest, .invalidConfiguration].contains(code)
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The error as a page sees it: code, message and whether to retry.
    public var scriptMessageError: ScriptMessageError {
        ScriptMessageError(code: code.rawValue, message: message, retryable: isRetryable, name: "SessionError")
    }

    static let signedOut = SessionError(.signedOut, "there is no session")
}
