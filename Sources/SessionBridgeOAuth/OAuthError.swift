/// Why an OAuth 2.0 operation failed: an error the authorization server answered (RFC 6749
/// §5.2, §4.1.2.1) or a check this client made on an answer. Never carries a secret.
///
/// ```swift
/// do {
///     try await client.revoke(token)
/// } catch let error as OAuthError where error.isConfigurationError {
///     // invalid_client, unauthorized_client, …: fix the client's registration
/// }
/// ```
public struct OAuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable code: the server's `error` value, or one of this client's checks.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        // RFC 6749 §5.2
        /// The request is missing a parameter or is otherwise malformed.
        public static let invalidRequest = Code(rawValue: "invalid_request")
        /// Client authentication failed.
        public static let invalidClient = Code(rawValue: "invalid_client")
        /// The grant (code, refresh token, credentials) is invalid, expired or revoked.
        public static let invalidGrant = Code(rawValue: "invalid_grant")
        /// The client may not use this grant type.
        public static let unauthorizedClient = Code(rawValue: "unauthorized_client")
        /// The server does not support the grant type.
        public static let unsupportedGrantType = Code(rawValue: "unsupported_grant_type")
        /// The requested scope is invalid or exceeds what was granted.
        public static let invalidScope = Code(rawValue: "invalid_scope")
        // RFC 6749 §4.1.2.1
        /// The user or the server refused the authorization.
        public static let accessDenied = Code(rawValue: "access_denied")
        /// The server met an unexpected condition.
        public static let serverError = Code(rawValue: "server_error")
        /// The server is overloaded or down for maintenance.
        public static let temporarilyUnavailable = Code(rawValue: "temporarily_unavailable")
        // OpenID Connect Core §3.1.2.6 (also answered by token endpoints, as Entra ID does)
        /// The user must interact with the provider (a second factor, a policy) before it issues tokens.
        public static let interactionRequired = Code(rawValue: "interaction_required")
        /// The user must sign in again.
        public static let loginRequired = Code(rawValue: "login_required")
        /// The user must consent again.
        public static let consentRequired = Code(rawValue: "consent_required")
        /// The user must choose an account.
        public static let accountSelectionRequired = Code(rawValue: "account_selection_required")
        // RFC 6750 §3.1, RFC 7009 §2.2
        /// The token is expired, revoked or unknown. A revocation endpoint that answers it (as
        /// Google's does for a token already revoked) has nothing left to revoke.
        public static let invalidToken = Code(rawValue: "invalid_token")
        // RFC 9449 §5, §8
        /// The DPoP proof was refused, or the token is bound to another key.
        public static let invalidDPoPProof = Code(rawValue: "invalid_dpop_proof")
        /// The server wants its `DPoP-Nonce` in the proof.
        public static let useDPoPNonce = Code(rawValue: "use_dpop_nonce")

        // This client's checks
        /// The discovery document could not be fetched or read.
        public static let discoveryFailed = Code(rawValue: "discovery_failed")
        /// The discovery document, the callback's `iss` or the ID token names another issuer.
        public static let issuerMismatch = Code(rawValue: "issuer_mismatch")
        /// The callback's `state` is not the one sent.
        public static let stateMismatch = Code(rawValue: "state_mismatch")
        /// The ID token failed validation (signature, issuer, audience, time, nonce).
        public static let invalidIDToken = Code(rawValue: "invalid_id_token")
        /// The server's answer could not be read.
        public static let invalidResponse = Code(rawValue: "invalid_response")
        /// The client's settings are incomplete or unusable (a missing endpoint, a bad key).
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
        /// The server could not be reached.
        public static let network = Code(rawValue: "network")
    }

    /// The code.
    public var code: Code
    /// A sentence for people and logs; never a secret. For server errors, the server's own
    /// `error_description` is kept only in ``serverDescription``.
    public var message: String
    /// The server's `error_description`, cut to 200 printable characters.
    public var serverDescription: String?
    /// The HTTP status of the answer, when there was one.
    public var status: Int?
    /// The answer's `Retry-After` field as sent (delta-seconds or an HTTP date), when it had
    /// one: how long the server asked the client to wait before asking again.
    public var retryAfter: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, serverDescription: String? = nil, status: Int? = nil) {
        self.code = code
        self.message = message
        self.serverDescription = serverDescription.map(Self.sanitize)
        self.status = status
    }

    /// `invalid_client`, `unauthorized_client`, `unsupported_grant_type`, `invalid_scope` or
    /// `invalid_request`: the client is set up wrong. Trying again cannot help, and the session
    /// the client holds may still be valid.
    public var isConfigurationError: Bool {
        [.invalidClient, .unauthorizedClient, .unsupportedGrantType, .invalidScope, .invalidRequest].contains(code)
    }

    /// `temporarily_unavailable`, `server_error` or `network`: trying again later may succeed.
    public var isTransient: Bool {
        [.temporarilyUnavailable, .serverError, .network].contains(code)
    }

    public var description: String {
        var text = "\(code.rawValue): \(message)"
        if let serverDescription, !serverDescription.isEmpty { text += " (\(serverDescription))" }
        return text
    }

    /// Reads an RFC 6749 §5.2 error body, or `nil` when `json` holds none.
    static func fromServer(_ json: [String: Any]?, status: Int?, what: String) -> OAuthError? {
        guard let raw = json?["error"] as? String, !raw.isEmpty else { return nil }
        let code = Code(
            rawValue: String(
                raw.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || $0 == "_") }.prefix(64).map(Character.init)))
        return OAuthError(
            code, "\(what) answered \(code.rawValue)", serverDescription: json?["error_description"] as? String, status: status)
    }

    static func sanitize(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }.prefix(200).map(Character.init))
    }
}
