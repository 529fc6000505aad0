import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOHTTP1
import ServiceLifecycle
import Synchronization

/// A web product beside the third-party authorization server, as an app team runs one: it
/// trusts the identity provider's access tokens, which it checks at the provider's OpenID
/// Connect `userinfo` endpoint, and keeps its own cookie session.
///
/// - `POST /session/exchange`: `Authorization: Bearer <access token>` checked at `userinfo`;
///   a valid one buys an HttpOnly `web_session` cookie naming a new web session.
/// - `GET /app`: the product's page, `302` to `/login` without a valid `web_session`.
/// - `GET /api/me`: the signed-in user (`sub`), `401` without a valid `web_session`.
final class WebProduct: Sendable {
    /// What the product saw.
    struct Record: Sendable {
        /// Exchanges answered with a cookie.
        var exchanges = 0
        /// Exchanges refused (the provider did not accept the token).
        var refusedExchanges = 0
        /// Paths requested with a valid `web_session` cookie, in order.
        var signedInRequests: [String] = []
        /// Web sessions created, newest last.
        var sessions: [String] = []
    }

    static let cookieName = "web_session"

    /// The record and the web sessions (id to user), shared with the routes.
    final class State: Sendable {
        let value = Mutex<(record: Record, sessions: [String: String])>((Record(), [:]))
    }

    let port: Int
    private let state: State
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    func url(_ path: String) -> URL { URL(string: path, relativeTo: baseURL)!.absoluteURL }
    var record: Record { state.value.withLock { $0.record } }

    private init(port: Int, state: State, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.state = state
        self.group = group
        self.task = task
    }

    /// Starts the product on a free port; `userinfo` is the provider's endpoint.
    static func withRunning<T>(userinfo: URL, _ body: (WebProduct) async throws -> T) async throws -> T {
        let product = try await start(userinfo: userinfo)
        do {
            let result = try await body(product)
            await product.stop()
            return result
        } catch {
            await product.stop()
            throw error
        }
    }

    private static func start(userinfo: URL) async throws -> WebProduct {
        let state = State()
        let router = Router()
        router.post("/session/exchange") { request, _ in
            guard let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer "),
                let subject = await subject(of: authorization, at: userinfo)
            else {
                state.value.withLock { $0.record.refusedExchanges += 1 }
                return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\"", .contentLength: "0"])
            }
            let id = UUID().uuidString
            state.value.withLock {
                $0.sessions[id] = subject
                $0.record.exchanges += 1
                $0.record.sessions.append(id)
            }
            var headers: HTTPFields = [.cacheControl: "no-store", .contentType: "application/json"]
            headers[values: .setCookie] = ["\(cookieName)=\(id); Path=/; Max-Age=600; HttpOnly; SameSite=Lax"]
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "{\"ok\":true}")))
        }
        router.get("/app") { request, _ in
            guard let subject = signedIn(request, state: state) else {
                return Response(status: .found, headers: [.location: "/login?next=/app", .contentLength: "0"])
            }
            return Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "<title>app</title><p id=user>\(subject)</p>")))
        }
        router.get("/api/me") { request, _ in
            guard let subject = signedIn(request, state: state) else {
                return Response(status: .unauthorized, headers: [.contentLength: "0"])
            }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: "{\"sub\":\"\(subject)\"}")))
        }
        router.get("/login") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(string: "<title>login</title>")))
        }
        var logger = Logger(label: "interop-tests.web-product")
        logger.logLevel = .warning
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { portContinuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            throw CancellationError()
        }
        return WebProduct(port: port, state: state, group: group, task: task)
    }

    private func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }

    /// The `sub` the provider's `userinfo` endpoint answers for the token, or `nil` when it refuses it.
    private static func subject(of authorization: String, at userinfo: URL) async -> String? {
        var request = HTTPClientRequest(url: userinfo.absoluteString)
        request.headers.add(name: "Authorization", value: authorization)
        guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(10)), response.status == .ok,
            let body = try? await response.body.collect(upTo: 1 << 16),
            let json = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        else { return nil }
        return json["sub"] as? String
    }

    /// The user of the request's `web_session` cookie, recorded as a signed-in request.
    private static func signedIn(_ request: Request, state: State) -> String? {
        let cookies = (request.headers[.cookie] ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let id = cookies.first(where: { $0.hasPrefix("\(cookieName)=") })?.dropFirst(cookieName.count + 1) else { return nil }
        return state.value.withLock { state in
            guard let subject = state.sessions[String(id)] else { return nil }
            state.record.signedInRequests.append(request.uri.path)
            return subject
        }
    }
}
