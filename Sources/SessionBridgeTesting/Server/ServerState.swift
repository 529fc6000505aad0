import Foundation

/// A document registered with ``ReferenceServer/serve(path:body:contentType:)``.
struct StaticDocument: Sendable {
    var body: [UInt8]
    var contentType: String
    /// Further response fields, by name.
    var headers: [String: String] = [:]
}

/// All mutable state of a server, kept behind one lock in ``ServerCore``.
struct ServerState: Sendable {
    var faults: FaultConfiguration
    /// Server errors still to send when ``FaultConfiguration/ServerErrors/count`` is set.
    var serverErrorsRemaining: Int?
    /// Requests the faults still fire for when ``FaultConfiguration/limit`` is set.
    var faultedRequestsRemaining: Int?
    var stats = ServerStats()
    /// The connections counted in ``ServerStats/openConnections``, by channel.
    var connections: [ObjectIdentifier: ConnectionRequests] = [:]
    var refreshTokens = RefreshTokenStore()
    /// Ids of access tokens invalidated early by ``ReferenceServer/expireAccessTokens()``.
    var expiredAccessTokenIDs: Set<String> = []
    /// Ids of every access token issued, with its session.
    var issuedAccessTokenIDs: Set<String> = []
    var documents: [String: StaticDocument] = [:]
    /// Protocol faults (``OAuthFaults``).
    var oauthFaults = OAuthFaults.none
    /// Authorization codes issued and not yet expired.
    var authorizationCodes: [String: AuthorizationGrant] = [:]
    /// The `jti` of every client assertion accepted, with its expiry (replays are refused).
    var usedAssertionIDs: [String: Date] = [:]

    /// `POST /session/exchange` requests still to refuse with a `503`
    /// (``ReferenceServer/failSessionExchanges(_:)``).
    var sessionExchangeFailuresRemaining = 0

    /// The DPoP nonce the server hands out now, and the one before it (still accepted).
    var dpopNonce = RandomToken.make(prefix: "n_", byteCount: 12)
    var previousDPoPNonce: String?
    /// The `jti` of every DPoP proof accepted, with when it may be forgotten (replays are refused).
    var usedDPoPProofIDs: [String: Date] = [:]
    /// Every refresh token presented to the token endpoint, in order.
    var presentedRefreshTokens: [String] = []

    init(faults: FaultConfiguration) {
        self.faults = faults
        self.serverErrorsRemaining = faults.serverErrors?.count
        self.faultedRequestsRemaining = faults.limit
    }

    mutating func setFaults(_ faults: FaultConfiguration) {
        self.faults = faults
        self.serverErrorsRemaining = faults.serverErrors?.count
        self.faultedRequestsRemaining = faults.limit
    }
}
