/// Counters of a ``ReferenceServer``, from ``ReferenceServer/stats()`` or `GET /debug/stats`.
public struct ServerStats: Sendable, Equatable, Codable {
    /// Counters of injected faults, one per switch of ``FaultConfiguration``.
    public struct Faults: Sendable, Equatable, Codable {
        /// Answers delayed by ``FaultConfiguration/latency``.
        public var latency = 0
        /// `5xx` answers sent by ``FaultConfiguration/serverErrors``.
        public var serverErrors = 0
        /// Connections closed without an answer.
        public var closedConnections = 0
        /// Answers cut off in the middle of the body.
        public var closedMidBody = 0
        /// Bodies replaced by malformed JSON.
        public var malformedJSON = 0
        /// Answers given garbage `Set-Cookie` lines.
        public var garbageSetCookies = 0
        /// Bodies trickled slowly.
        public var slowBodies = 0
        /// Requests never answered.
        public var stoppedResponding = 0

        /// Create zeroed counters.
        public init() {}
    }

    /// Successful refresh-token rotations (token endpoint and web refresh).
    public var refreshes = 0
    /// Refresh tokens used a second time; each one revoked its whole family.
    public var reuseEvents = 0
    /// Rotated refresh tokens presented again within
    /// ``ReferenceServerConfiguration/refreshTokenReuseGrace``, answered with their successor.
    public var graceReplays = 0
    /// Sessions (refresh token families) neither revoked nor expired.
    public var activeSessions = 0
    /// Successful sign-ins (password grant and web login form).
    public var logins = 0
    /// Every request to `POST /oauth/token`, failed and faulted ones included.
    public var tokenRequests = 0
    /// Token endpoint requests answered with an OAuth error.
    public var tokenErrors = 0
    /// Successful `POST /session/refresh` rotations (a subset of ``refreshes``).
    public var webRefreshes = 0
    /// Successful `POST /session/exchange` answers (a bearer access token for a web session cookie).
    public var sessionExchanges = 0
    /// Requests to protected resources that were let in by the `web_session` cookie
    /// `POST /session/exchange` set.
    public var exchangedCookieRequests = 0
    /// DPoP proofs accepted (token endpoint and resources).
    public var dpopProofs = 0
    /// Proofs answered `use_dpop_nonce` (sent without the server's current nonce).
    public var dpopNonceChallenges = 0
    /// Proofs refused as invalid (signature, type, method, URL, time, replay, hash, key).
    public var dpopRefusals = 0
    /// Successful token exchanges (RFC 8693), each a new session of its own.
    public var tokenExchanges = 0
    /// Logouts and revocations that ended a session.
    public var logouts = 0
    /// Requests to protected resources rejected for a missing, invalid or expired token.
    public var unauthorized = 0
    /// Every request the server received.
    public var requests = 0
    /// Requests being handled now (their answer not yet produced). A client killed mid-request
    /// leaves its request here until the server has finished with it.
    public var requestsInFlight = 0
    /// Connections accepted and not yet closed, and closed ones with a request read off them
    /// whose handling has not started yet.
    public var openConnections = 0
    /// Injected faults that fired.
    public var faults = Faults()

    /// Create zeroed counters.
    public init() {}
}
