public import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import ServiceLifecycle
import Synchronization

/// A real OAuth 2.0 auth server with a small web app, for tests of native code that shares a
/// login session with page JavaScript.
///
/// The server runs in-process on the loopback interface, on a random port by default:
///
/// ```swift
/// let server = try await ReferenceServer.start()
/// defer { Task { try await server.stop() } }
/// // POST \(server.baseURL)/oauth/token with grant_type=password&username=demo&password=demo
/// ```
///
/// Routes:
/// - `POST /oauth/token`: `password` and `refresh_token` grants (RFC 6749); refresh tokens
///   rotate on every use and a reused one revokes its whole family.
/// - `POST /oauth/token` also takes `authorization_code` (PKCE `S256` required) and, with
///   ``ReferenceServerConfiguration/clients``, authenticates each client as registered
///   (`none`, `client_secret_basic`, `client_secret_post`, `private_key_jwt`); an `openid`
///   scope adds an ID token signed with the key published at `GET /oauth/jwks`.
/// - `POST /oauth/token` checks a DPoP proof when one is sent (RFC 9449: signature, `typ`,
///   `htm`/`htu`, `iat` window, `jti` replay, the nonce with ``ReferenceServerConfiguration/dpopNonces``)
///   and binds the session's tokens to its key (`token_type` `DPoP`, `cnf.jkt`); a bound refresh
///   token without a proof by that key is refused. It also takes token exchange (RFC 8693): a
///   valid access token buys a session of its own for the same user.
/// - `POST /oauth/revoke`: RFC 7009 revocation of a refresh or access token.
/// - `GET /.well-known/openid-configuration`, `GET /.well-known/oauth-authorization-server`:
///   discovery.
/// - `GET`/`POST /oauth/authorize`: the authorization endpoint, a plain HTML sign-in form that
///   redirects to the redirect URI with `code`, `state` and `iss` (RFC 9207).
/// - `POST /session/refresh`: the web app's own refresh, by the `__Host-web_refresh` cookie.
/// - `POST /session/logout`, `GET /logout`: end the session and delete the cookies.
/// - `GET /app`, `GET /app/**`: protected pages, `302` to `/login?next=…` without a valid cookie.
///   With `?plain=1`, the same page without its scripts (what a navigation costs on its own).
/// - `GET /api/me`: the user, by `__Host-session` cookie, `Authorization: Bearer`, or
///   `Authorization: DPoP` with a proof carrying `ath` (a bound token is refused as a bearer).
/// - `GET /login`, `POST /login`: the web sign-in form.
/// - `GET /redirect-chain` (three hops setting and deleting cookies), `GET /redirect-loop`.
/// - `GET /debug/stats`: ``ServerStats`` as JSON when ``ReferenceServerConfiguration/exposeDebugStats``.
/// - documents registered with ``serve(path:body:contentType:)``.
public final class ReferenceServer: Sendable {
    /// The name of the HttpOnly cookie its web app refreshes with (`POST /session/refresh`).
    public static let webRefreshCookieName = SessionCookies.webRefresh

    /// Errors starting the server.
    public enum StartError: Error, CustomStringConvertible {
        /// The server stopped before it was listening.
        case notListening

        public var description: String {
            switch self {
            case .notListening: "The reference server stopped before it was listening."
            }
        }
    }

    let core: ServerCore
    private let serviceGroup: ServiceGroup
    private let task: Task<Void, any Error>
    private let stopped = Mutex(false)

    /// The port the server listens on.
    public let port: Int

    /// The server's origin, `http://HOST:PORT`.
    public var baseURL: URL {
        // The host comes from the configuration and the port is a number: always a valid URL.
        URL(string: "\(self.core.configuration.scheme)://\(self.core.configuration.host):\(self.port)")!
    }

    /// The configuration the server was started with.
    public var configuration: ReferenceServerConfiguration { self.core.configuration }

    private init(core: ServerCore, serviceGroup: ServiceGroup, task: Task<Void, any Error>, port: Int) {
        self.core = core
        self.serviceGroup = serviceGroup
        self.task = task
        self.port = port
    }

    /// Start a server and wait until it listens.
    /// - Parameter configuration: accounts, lifetimes, address and faults.
    /// - Returns: the running server. Call ``stop()`` when done.
    public static func start(_ configuration: ReferenceServerConfiguration = .init()) async throws -> ReferenceServer {
        let core = ServerCore(configuration: configuration)
        let router = Router(context: ReferenceRequestContext.self)
        router.add(middleware: FaultMiddleware(core: core))
        core.addOAuthRoutes(to: router)
        core.addSessionRoutes(to: router)
        core.addSessionExchangeRoutes(to: router)
        core.addPageRoutes(to: router)
        core.addEventStreamRoutes(to: router)

        let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: [ConnectionRequestCounter(core: core)])
        let running = try await ListeningApplication.start(logger: configuration.logger) { onServerRunning in
            Application(
                router: router,
                server: try configuration.tlsConfiguration.map {
                    try .tls(.http1(configuration: http1), tlsConfiguration: $0)
                } ?? .http1(configuration: http1),
                configuration: .init(
                    address: .hostname(configuration.host, port: configuration.port), serverName: nil,
                    availableConnectionsDelegate: ConnectionAcceptance(core: core)),
                onServerRunning: onServerRunning,
                logger: configuration.logger
            )
        }
        let port = running.port
        core.issuer.withLock { $0 = "\(configuration.scheme)://\(configuration.host):\(port)" }
        configuration.logger.debug("reference server listening", metadata: ["port": "\(port)"])
        return ReferenceServer(core: core, serviceGroup: running.serviceGroup, task: running.task, port: port)
    }

    /// Stop the server gracefully: stop listening, release requests held by
    /// ``FaultConfiguration/stopResponding``, let answers in flight finish and close idle
    /// connections. Whatever is still running after five seconds is cancelled. Calling it
    /// again does nothing.
    public func stop() async throws {
        let alreadyStopped = self.stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !alreadyStopped else { return }
        self.core.stopping.withLock { $0 = true }
        await self.serviceGroup.triggerGracefulShutdown()
        let task = self.task
        let watchdog = Task {
            do {
                try await Task.sleep(for: .seconds(5))
                task.cancel()
            } catch {
                // Stopped in time: the watchdog was cancelled.
            }
        }
        defer { watchdog.cancel() }
        do {
            try await task.value
        } catch is CancellationError {
            // The end of a run cancelled by the watchdog.
        }
    }

    /// The counters, with ``ServerStats/activeSessions`` computed now.
    public func stats() -> ServerStats {
        self.core.currentStats()
    }

    /// Waits until no request is being handled (``ServerStats/requestsInFlight`` is zero), for
    /// at most `timeout`: a test that killed a client mid-request waits here until the server
    /// has finished with that request. Returns whether the server became idle.
    ///
    /// - Parameters:
    ///   - openConnections: also wait until at most this many connections are open: pass the
    ///     count read before a client was started, and the wait also covers a request the killed
    ///     client wrote that the server had not read yet (it is handled before the kernel's close
    ///     of that connection reaches the server), and a connection of its that the server had
    ///     not even accepted yet (the kernel holds it, with the request, until the server does).
    ///   - timeout: the longest wait.
    public func waitUntilIdle(openConnections: Int? = nil, timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        func busy() -> Bool {
            let stats = self.stats()
            if stats.requestsInFlight > 0 { return true }
            guard let openConnections else { return false }
            return stats.openConnections > openConnections || self.hasUnacceptedConnections
        }
        // Idle twice, a moment apart: between the accept that takes a connection off the
        // listening socket's queue and its count, a single look could see neither.
        var idleLooks = 0
        while true {
            idleLooks = busy() ? 0 : idleLooks + 1
            if idleLooks == 2 { return true }
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Whether the kernel holds a connection to the server that the server has not accepted
    /// (a reset one too).
    private var hasUnacceptedConnections: Bool {
        (KernelConnections.waitingToBeAccepted(on: baseURL.host ?? "", port: port) ?? 0) > 0
    }

    /// Replace the injected faults. A counted run of server errors starts again.
    public func setFaults(_ faults: FaultConfiguration) {
        self.core.withState { $0.setFaults(faults) }
    }

    /// The faults now in force.
    public var faults: FaultConfiguration {
        self.core.withState { $0.faults }
    }

    /// Every refresh token ever issued, oldest first, so tests can search for leaks.
    public func issuedRefreshTokens() -> [String] {
        self.core.withState { $0.refreshTokens.issued }
    }

    /// Make every access token issued so far expired (later ones are unaffected).
    public func expireAccessTokens() {
        self.core.withState { state in
            state.expiredAccessTokenIDs.formUnion(state.issuedAccessTokenIDs)
        }
    }

    /// Revoke every active session, as a server-side sign-out of all devices.
    /// - Returns: how many sessions were ended.
    @discardableResult
    public func revokeAllSessions() -> Int {
        let ids = self.core.withState { state in
            state.refreshTokens.families.values.filter { !$0.revoked }.map(\.id)
        }
        return ids.reduce(0) { $0 + (self.core.endSession(sessionID: $1, reason: "revoked") ? 1 : 0) }
    }

    /// Revoke the session a refresh token belongs to.
    /// - Returns: whether an active session was ended.
    @discardableResult
    public func revokeSession(refreshToken: String) -> Bool {
        guard let sessionID = self.core.withState({ $0.refreshTokens.sessionID(ofRefreshToken: refreshToken) }) else { return false }
        return self.core.endSession(sessionID: sessionID, reason: "revoked")
    }

    /// Verify an access token as the protected routes do: signature, expiry and session. A
    /// DPoP-bound token is verified too (its `cnf` says to which key).
    /// - Returns: its claims, or `nil` when it is refused.
    public func verifyAccessToken(_ token: String) -> AccessTokenClaims? {
        try? self.core.verifyAccessToken(token, binding: .any).get()
    }

    /// Serve a document at `path` (GET), from the server's own origin. Replaces an earlier
    /// document at the same path; takes precedence over built-in routes.
    /// - Parameters:
    ///   - path: absolute path, such as `/scripts/page.js`.
    ///   - body: the document.
    ///   - contentType: its media type, such as `text/javascript; charset=utf-8`.
    ///   - headers: further response fields, such as `["Access-Control-Allow-Origin": "*"]` for a
    ///     document pages of another origin may read.
    public func serve(path: String, body: String, contentType: String, headers: [String: String] = [:]) {
        serve(path: path, bytes: Array(body.utf8), contentType: contentType, headers: headers)
    }

    /// Serve `bytes` at `path` (GET), as ``serve(path:body:contentType:headers:)`` serves a
    /// document: for a body that is not text (an image, a WebAssembly module).
    public func serve(path: String, bytes: [UInt8], contentType: String, headers: [String: String] = [:]) {
        let path = path.hasPrefix("/") ? path : "/" + path
        self.core.withState { $0.documents[path] = StaticDocument(body: bytes, contentType: contentType, headers: headers) }
    }

    /// Stop serving a document registered with ``serve(path:body:contentType:)``.
    public func removeDocument(path: String) {
        let path = path.hasPrefix("/") ? path : "/" + path
        _ = self.core.withState { $0.documents.removeValue(forKey: path) }
    }
}
