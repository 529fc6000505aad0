import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// The faults that fire for one request, decided under the lock so that counted runs
/// (``FaultConfiguration/ServerErrors/count``) stay exact under concurrency.
struct FaultPlan: Sendable {
    var latency: Duration?
    var stopResponding: Duration?
    var closeConnection = false
    var serverError: FaultConfiguration.ServerErrors?
    var malformedJSON = false
    var garbageSetCookie = false
    var closeMidBody = false
    var slowBody: Duration?

    var altersAnswer: Bool { malformedJSON || garbageSetCookie || closeMidBody || slowBody != nil }
}

/// Thrown after a fault closed the connection; nothing more is written.
struct InjectedConnectionClose: Error {}

extension ServerState {
    /// Decide which faults fire for a request to `path`, counting each.
    mutating func faultPlan(forPath path: String) -> FaultPlan {
        var plan = FaultPlan()
        guard let route = FaultConfiguration.route(forPath: path), self.faults.routes.contains(route) else { return plan }
        if let remaining = self.faultedRequestsRemaining {
            guard remaining > 0 else { return plan }
            self.faultedRequestsRemaining = remaining - 1
        }
        let faults = self.faults
        if let latency = faults.latency {
            plan.latency = latency
            self.stats.faults.latency += 1
        }
        if let stop = faults.stopResponding {
            plan.stopResponding = stop
            self.stats.faults.stoppedResponding += 1
            return plan
        }
        if faults.closeConnection {
            plan.closeConnection = true
            self.stats.faults.closedConnections += 1
            return plan
        }
        if let errors = faults.serverErrors {
            if let remaining = self.serverErrorsRemaining {
                if remaining > 0 {
                    self.serverErrorsRemaining = remaining - 1
                    plan.serverError = errors
                }
            } else {
                plan.serverError = errors
            }
            if plan.serverError != nil {
                self.stats.faults.serverErrors += 1
                return plan
            }
        }
        if faults.malformedJSON {
            plan.malformedJSON = true
            self.stats.faults.malformedJSON += 1
        }
        if faults.garbageSetCookie {
            plan.garbageSetCookie = true
            self.stats.faults.garbageSetCookies += 1
        }
        if faults.closeMidBody {
            plan.closeMidBody = true
            self.stats.faults.closedMidBody += 1
        } else if let slow = faults.slowBody {
            plan.slowBody = slow
            self.stats.faults.slowBodies += 1
        }
        return plan
    }
}

/// Counts requests, serves registered documents and injects the configured faults.
struct FaultMiddleware: RouterMiddleware {
    typealias Context = ReferenceRequestContext
    let core: ServerCore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        let connection = context.connection
        let plan = self.core.withState { state in
            state.stats.requests += 1
            state.stats.requestsInFlight += 1
            state.requestStarted(on: connection)
            if path == "/oauth/token" { state.stats.tokenRequests += 1 }
            return state.faultPlan(forPath: path)
        }
        defer { self.core.withState { $0.stats.requestsInFlight -= 1 } }
        if let latency = plan.latency {
            try await Task.sleep(for: latency)
        }
        if let stop = plan.stopResponding {
            // Hold the connection without answering, until the bound or until the server stops.
            let deadline = ContinuousClock.now + stop
            while ContinuousClock.now < deadline, !self.core.stopping.withLock({ $0 }) {
                try? await Task.sleep(for: min(.milliseconds(50), deadline - ContinuousClock.now))
            }
            context.closeConnection()
            throw InjectedConnectionClose()
        }
        if plan.closeConnection {
            context.closeConnection()
            throw InjectedConnectionClose()
        }
        if let error = plan.serverError {
            var headers: HTTPFields = [.cacheControl: "no-store"]
            if let retryAfter = error.retryAfterSeconds { headers[.retryAfter] = String(retryAfter) }
            // RFC 6749's codes: `temporarily_unavailable` for a server that says it did not
            // handle the request (503), `server_error` for one that failed while handling it.
            let unavailable = error.status == 503
            return HTTPHelpers.json(
                OAuthError(
                    error: unavailable ? "temporarily_unavailable" : "server_error",
                    error_description: unavailable ? "The server is temporarily unavailable." : "The server failed."),
                status: HTTPResponse.Status(code: error.status),
                headers: headers
            )
        }

        var response: Response
        if let document = self.core.withState({ $0.documents[path] }), request.method == .get || request.method == .head {
            var headers: HTTPFields = [.contentType: document.contentType, .cacheControl: "no-cache"]
            for (name, value) in document.headers.sorted(by: { $0.key < $1.key }) {
                if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
            }
            response = Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: document.body)))
        } else {
            response = try await next(request, context)
        }
        guard plan.altersAnswer else { return response }

        var body = try await Self.collect(response.body)
        if plan.garbageSetCookie {
            response.headers.appendSetCookies(SessionCookies.garbage())
        }
        if plan.malformedJSON {
            body = ByteBuffer(string: #"{"access_token": "eyJhbGciOiJIUzI1NiJ9.trunc"#)
            response.headers[.contentType] = "application/json; charset=utf-8"
        }
        let bytes = Array(body.readableBytesView)
        response.headers[.contentLength] = nil
        if plan.closeMidBody {
            let half = Array(bytes.prefix(max(bytes.count / 2, 1)))
            let close = context.closeConnection
            response.body = ResponseBody(contentLength: max(bytes.count, 2)) { writer in
                try await writer.write(ByteBuffer(bytes: half))
                try await Task.sleep(for: .milliseconds(20))
                close()
                throw InjectedConnectionClose()
            }
        } else if let pause = plan.slowBody {
            response.body = ResponseBody(contentLength: bytes.count) { writer in
                for byte in bytes {
                    try await writer.write(ByteBuffer(bytes: [byte]))
                    try await Task.sleep(for: pause)
                }
                try await writer.finish(nil)
            }
        } else {
            response.body = ResponseBody(byteBuffer: body)
        }
        return response
    }

    /// Read a whole response body.
    static func collect(_ body: ResponseBody) async throws -> ByteBuffer {
        let sink = CollectingBodyWriter()
        try await body.write(sink)
        return sink.buffer.withLock { $0 }
    }
}

/// A body writer that keeps what is written.
final class CollectingBodyWriter: ResponseBodyWriter, Sendable {
    let buffer = Mutex(ByteBuffer())

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        _ = self.buffer.withLock { $0.writeBuffer(&buffer) }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
