/// Faults the ``ReferenceServer`` injects into its answers, to test how clients cope with a
/// misbehaving backend.
///
/// Each fault applies to the routes in ``routes`` (the token endpoint by default). Every time a
/// fault fires, its counter in ``ServerStats/faults`` goes up, so a test can see that it did.
///
/// Faults are applied in this order: ``latency``, ``stopResponding``, ``closeConnection``,
/// ``serverErrors`` (these four before the route runs, so the route changes no state), then the
/// route runs and ``malformedJSON``, ``garbageSetCookie``, ``closeMidBody`` and ``slowBody``
/// alter its answer (the route's state changes, a token rotation say, have then happened).
///
/// ```swift
/// server.setFaults(.init(serverErrors: .init(status: 503, retryAfterSeconds: 2, count: 1)))
/// ```
public struct FaultConfiguration: Sendable, Equatable {
    /// Sets of routes faults apply to.
    public struct Routes: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// `POST /oauth/token` and `POST /oauth/revoke`.
        public static let tokenEndpoint = Routes(rawValue: 1 << 0)
        /// `POST /session/refresh` and `POST /session/logout`.
        public static let webSession = Routes(rawValue: 1 << 1)
        /// `/api/*`.
        public static let api = Routes(rawValue: 1 << 2)
        /// Everything else: pages, login, redirects, served documents. Never `/debug/stats`.
        public static let pages = Routes(rawValue: 1 << 3)
        /// Every route but `/debug/stats`.
        public static let all: Routes = [.tokenEndpoint, .webSession, .api, .pages]
    }

    /// A run of `5xx` answers.
    public struct ServerErrors: Sendable, Equatable {
        /// Status code, `503` by default.
        public var status: Int
        /// Value of the `Retry-After` header in seconds, or `nil` for none.
        public var retryAfterSeconds: Int?
        /// How many requests fail before the route works again; `nil` fails every request.
        public var count: Int?

        /// Create a run of server errors.
        public init(status: Int = 503, retryAfterSeconds: Int? = 1, count: Int? = nil) {
            self.status = status
            self.retryAfterSeconds = retryAfterSeconds
            self.count = count
        }
    }

    /// Routes the faults apply to.
    public var routes: Routes
    /// How many requests to those routes the faults fire for before they stop (`1`: the answer
    /// to the first request is lost, the next one is served); `nil` for every request.
    public var limit: Int?
    /// Delay added before each answer.
    public var latency: Duration?
    /// Answer with a `5xx` status and `Retry-After`, for the next `count` requests or always.
    public var serverErrors: ServerErrors?
    /// Close the connection without answering (the request is not processed).
    public var closeConnection: Bool
    /// Process the request, send the head and half of the body, then close the connection.
    public var closeMidBody: Bool
    /// Replace the JSON body with a truncated, unparsable one (the request is processed).
    public var malformedJSON: Bool
    /// Add garbage `Set-Cookie` lines: no `=`, an empty name, bad attributes, a control
    /// character, and one line over 8 KiB.
    public var garbageSetCookie: Bool
    /// Send the body one byte at a time with this pause between bytes.
    public var slowBody: Duration?
    /// Accept the request and never answer: the connection is held open until this long has
    /// passed (or the server stops), then closed without a response.
    public var stopResponding: Duration?

    /// Create a fault configuration; by default nothing is injected.
    public init(
        routes: Routes = .tokenEndpoint,
        limit: Int? = nil,
        latency: Duration? = nil,
        serverErrors: ServerErrors? = nil,
        closeConnection: Bool = false,
        closeMidBody: Bool = false,
        malformedJSON: Bool = false,
        garbageSetCookie: Bool = false,
        slowBody: Duration? = nil,
        stopResponding: Duration? = nil
    ) {
        self.routes = routes
        self.limit = limit
        self.latency = latency
        self.serverErrors = serverErrors
        self.closeConnection = closeConnection
        self.closeMidBody = closeMidBody
        self.malformedJSON = malformedJSON
        self.garbageSetCookie = garbageSetCookie
        self.slowBody = slowBody
        self.stopResponding = stopResponding
    }

    /// No faults.
    public static var none: FaultConfiguration { .init() }

    /// Which route set a request path belongs to, or `nil` for paths never faulted.
    static func route(forPath path: String) -> Routes? {
        if path == "/debug/stats" { return nil }
        if path.hasPrefix("/oauth/") { return .tokenEndpoint }
        if path.hasPrefix("/session/") { return .webSession }
        if path == "/api" || path.hasPrefix("/api/") { return .api }
        return .pages
    }
}
