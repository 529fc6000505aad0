import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

/// A small real HTTP server on 127.0.0.1 for the engine's tests: pages with a DOM, cookies set
/// and echoed, and a log of what each request carried.
final class TestSite: Sendable {
    struct Request: Sendable {
        var path: String
        var method: String
        /// The `Cookie` header as received.
        var cookieHeader: String
        var body: String
        /// The query, as sent.
        var query = ""
        /// The fields the CORS protocol puts on a request (`Origin`, `Access-Control-Request-Method`,
        /// `Access-Control-Request-Headers`), `Authorization`, `Referer` and the fields a browser
        /// adds of its own accord (`Accept`, `Accept-Language`, `Upgrade-Insecure-Requests`,
        /// `Sec-Fetch-*`, `Cache-Control`, `Pragma`), by lowercased name.
        var fields: [String: String] = [:]

        /// The names and values of the cookies sent.
        var cookies: [String: String] {
            var result: [String: String] = [:]
            for pair in cookieHeader.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2 { result[String(parts[0])] = String(parts[1]) }
            }
            return result
        }
    }

    let port: Int
    private let log: RequestLog
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }
    var requests: [Request] { log.entries.withLock { $0 } }
    /// The bodies posted to `/csp/report`, in order.
    var reports: [String] { log.reports.withLock { $0 } }
    func requests(to path: String) -> [Request] { requests.filter { $0.path == path } }
    /// Lets `/held/name` answer.
    func release(_ name: String) { _ = log.released.withLock { $0.insert(name) } }

    private init(port: Int, log: RequestLog, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.log = log
        self.group = group
        self.task = task
    }

    /// Starts a site whose pages are `pages` (path → HTML); every other path answers a short
    /// page. `/set-cookies` sets an HttpOnly and a script-readable cookie; `/echo` answers the
    /// cookies it received as JSON.
    static func start(pages: [String: String] = [:]) async throws -> TestSite {
        let log = RequestLog()
        let router = Router()
        router.middlewares.add(RecordingMiddleware(record: { request in log.entries.withLock { $0.append(request) } }))
        addCrossOriginRoutes(to: router)
        addEncodingRoutes(to: router)
        router.get("/set-cookies") { _, _ in
            var headers = HTTPFields()
            headers[values: .setCookie] = ["srv_httponly=h1; Path=/; HttpOnly", "srv_plain=p1; Path=/"]
            headers[.contentType] = "text/html"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "<title>set</title><p>set</p>")))
        }
        router.get("/echo") { request, _ in
            let cookie = request.headers[.cookie] ?? ""
            let escaped = cookie.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "{\"cookie\":\"\(escaped)\"}")))
        }
        // /hop/1 -> /hop/2 -> /hop/3, each answer setting a cookie named after its hop.
        router.get("/hop/:n") { _, context in
            let n = context.parameters.get("n", as: Int.self) ?? 3
            var headers = HTTPFields()
            headers[.setCookie] = "hop\(n)=1; Path=/"
            if n < 3 {
                headers[.location] = "/hop/\(n + 1)"
                return Response(status: .found, headers: headers)
            }
            headers[.contentType] = "text/html"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "<title>hop 3</title>")))
        }
        // /set/NAME?delay=N sets the cookie NAME (`NAME=1; Path=/`) in an answer N ms late.
        router.get("/set/:name") { request, context in
            let name = context.parameters.get("name") ?? "x"
            try await Task.sleep(for: .milliseconds(request.uri.queryParameters.get("delay", as: Int.self) ?? 0))
            var headers = HTTPFields()
            headers[.setCookie] = "\(name)=1; Path=/"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "set")))
        }
        // /slow/N answers a page after N milliseconds.
        router.get("/slow/:ms") { _, context in
            try await Task.sleep(for: .milliseconds(context.parameters.get("ms", as: Int.self) ?? 1000))
            var headers = HTTPFields()
            headers[.contentType] = "text/html"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "<title>slow</title>")))
        }
        // /held/NAME answers a page once the test calls `release(NAME)` (at most 60 s later),
        // so that a test can see a load in flight however slow the machine is.
        router.get("/held/:name") { _, context in
            let name = context.parameters.get("name") ?? ""
            try await log.waitForRelease(of: name)
            var headers = HTTPFields()
            headers[.contentType] = "text/html"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "<title>held</title>")))
        }
        // /held-redirect/NAME answers, once the test calls `release(NAME)`, a 302 to
        // `/set/NAME-after` that sets the cookie `NAME=1`: a load aborted while it waits must
        // send no second hop and set neither cookie.
        router.get("/held-redirect/:name") { _, context in
            let name = context.parameters.get("name") ?? ""
            try await log.waitForRelease(of: name)
            var headers = HTTPFields()
            headers[.setCookie] = "\(name)=1; Path=/"
            headers[.location] = "/set/\(name)-after"
            return Response(status: .found, headers: headers)
        }
        router.post("/submit") { request, _ in
            let body = try await request.body.collect(upTo: 1 << 20)
            var headers = HTTPFields()
            headers[.contentType] = "text/plain"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
        }
        addContentSecurityRoutes(to: router, reports: log)
        for (path, html) in pages {
            router.get(RouterPath(path)) { request, _ in
                var headers = HTTPFields()
                headers[.contentType] = "text/html; charset=utf-8"
                addContentSecurityFields(from: request, to: &headers)
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
            }
        }
        // `/status/404`: an answer with that status (its standard reason phrase) and a short body;
        // none for a status that has no body (a `204` with one left its bytes on the kept-alive
        // connection, which the client then read as the start of the next answer: "invalid
        // constant string" in a loaded run, on both engines).
        router.get("/status/:code") { _, context in
            let code = Int(context.parameters.get("code") ?? "") ?? 500
            let body = [204, 205, 304].contains(code) || code < 200 ? ByteBuffer() : ByteBuffer(string: "status \(code)")
            return Response(status: HTTPResponse.Status(code: code), body: .init(byteBuffer: body))
        }
        // An HTTP authentication challenge no credential answers.
        router.get("/basic-auth") { _, _ in
            var headers = HTTPFields()
            headers[.wwwAuthenticate] = #"Basic realm="site""#
            headers[.contentType] = "text/plain"
            return Response(status: .unauthorized, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "denied")))
        }
        router.get("**") { request, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            return Response(
                status: .ok, headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: "<title>\(request.uri.path)</title><p>page</p>")))
        }
        var logger = Logger(label: "webkit-tests.site")
        logger.logLevel = .warning
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
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
        return TestSite(port: port, log: log, group: group, task: task)
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}

/// What the site received, in order.
final class RequestLog: Sendable {
    let entries = Mutex<[TestSite.Request]>([])
    /// The bodies of the Content Security Policy reports received (``TestSite/reports``).
    let reports = Mutex<[String]>([])
    /// The names of the `/held/` pages released (``TestSite/release(_:)``).
    let released = Mutex<Set<String>>([])

    /// Returns once the test released `name`, or after 60 seconds.
    func waitForRelease(of name: String) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        while !released.withLock({ $0.contains(name) }), clock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// Records each request's path, method, `Cookie` header and (for POST) body.
struct RecordingMiddleware<Context: RequestContext>: RouterMiddleware {
    let record: @Sendable (TestSite.Request) -> Void

    func handle(
        _ request: HummingbirdCore.Request, context: Context, next: (HummingbirdCore.Request, Context) async throws -> Response
    ) async throws -> Response {
        var fields: [String: String] = [:]
        for name in [
            "origin", "access-control-request-method", "access-control-request-headers", "authorization", "referer", "accept",
            "accept-language", "upgrade-insecure-requests", "sec-fetch-dest", "sec-fetch-mode", "sec-fetch-site", "cache-control", "pragma",
        ] {
            if let field = HTTPField.Name(name), let value = request.headers[field] { fields[name] = value }
        }
        record(
            TestSite.Request(
                path: request.uri.path, method: request.method.rawValue, cookieHeader: request.headers[.cookie] ?? "", body: "",
                query: request.uri.query ?? "", fields: fields))
        return try await next(request, context)
    }
}
