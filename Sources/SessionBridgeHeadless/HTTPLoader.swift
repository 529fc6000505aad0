import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import SessionBridgeCookies
import SessionBridgeHTTP
import SessionBridgeScriptEngine

/// Sends a page's requests: cookies out by the jar's rules, every hop's `Set-Cookie` in, and
/// redirects followed one hop at a time.
struct HTTPLoader: Sendable {
    let client: HTTPClient
    let jar: CookieJar
    let timeout: Duration
    let maxRedirects: Int
    let maxBytes: Int
    let userAgent: String
    let events: (@Sendable (PageEvent) -> Void)?

    /// Whether cookies go out and come in.
    enum CookieMode: Sendable {
        case include(RequestContext)
        case omit
    }

    struct Response: Sendable {
        var url: URL
        var statusCode: Int
        var statusText: String
        /// Header fields, `Set-Cookie` and `Set-Cookie2` removed (scripts never read them).
        var headers: [HTTPHeader]
        var setCookieNames: [String]
        var body: [UInt8]
        var redirects: [URL]
        /// What the page may read of it (Fetch: response tainting): `basic`, `cors` (headers
        /// filtered to those exposed) or `opaque` (nothing).
        var type = "basic"
        /// The `Referer` the last hop sent: a document's `document.referrer`.
        var referrer: String?
    }

    /// Loads `request`, following redirects when `followRedirects`; `cookies` decides per hop
    /// (the context may change as the URL does). `willRedirect`, when given, is offered each
    /// redirect hop's request before it is sent (or refused for its scheme), after the previous
    /// hop's `Set-Cookie` lines were applied; it throws to stop the load.
    ///
    /// A document's request passes `cors`: each hop then follows the CORS protocol
    /// (``CrossOriginFetch``), which decides whether `cookies` is asked at all, adds the
    /// `Origin` field, sends a preflight that `preflights` has no grant for, and checks every
    /// answer; an answer the page may not read fails the load with
    /// ``PageError/Code/accessControl``. Each hop sends the `Referer` that `referrer` gives
    /// for its URL, and the fields a browser adds (``UserAgentFields``) when `fields` is given.
    /// A document's subresource request passes `mixedContentFrom`, the document's URL: a hop that
    /// is mixed content from it (``BlockedLoad/isMixedContent(from:to:)``) fails with
    /// ``PageError/Code/mixedContent`` before anything is sent.
    ///
    /// A load that ends in an answer with an error status (400 and above), or that no answer
    /// reached (a refused connection, a network error, a timeout; not a cancellation), gets
    /// WebKit's console line (`Failed to load resource: …`), unless `reportsFailure` is false
    /// (a report the engine sends of its own accord).
    func load(
        _ request: PageRequest, initiator: HTTPExchange.Initiator, followRedirects: Bool = true,
        cors: CrossOriginFetch? = nil, preflights: CORSPreflightCache? = nil, referrer: Referrer? = nil,
        fields: UserAgentFields? = nil, mixedContentFrom page: URL? = nil, reportsFailure: Bool = true,
        cookies: @Sendable (URL) -> CookieMode, willRedirect: (@Sendable (PageRequest) async throws(PageError) -> Void)? = nil
    ) async throws(PageError) -> Response {
        var request = request
        var cors = cors
        var redirects: [URL] = []
        let first = request.url
        var seen: [URL: Int] = [:]
        while true {
            // A load the page aborted sends no further hop (WebKit cancels it).
            if Task.isCancelled { throw PageError(.cancelled, "the load was cancelled", url: request.url) }
            guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw PageError(.unsupportedScheme, "only http and https URLs can be loaded", url: request.url)
            }
            // A port no TCP connection can have (a page's URL, a server's `Location`) is refused
            // here: the HTTP client stops the process on one with an IP address.
            if let port = request.url.port, !(0...65_535).contains(port) {
                throw PageError(.invalidURL, "port \(port) is out of range (0-65535)", url: request.url)
            }
            if BlockedLoad.isRestrictedPort(request.url) {
                events?(
                    .console(ConsoleMessage(level: .error, text: BlockedLoad.restrictedPortLine(request.url)), url: page ?? request.url))
                throw PageError(.restrictedPort, "port \(request.url.port ?? 0) is restricted", url: request.url)
            }
            if let page, BlockedLoad.isMixedContent(from: page, to: request.url) {
                throw PageError(.mixedContent, "insecure content from \(request.url.absoluteString) was blocked", url: request.url)
            }
            var mode = cookies(request.url)
            var trusted: [HTTPHeader] = []
            let referer = referrer?.value(for: request.url)
            if let referer { trusted.append(HTTPHeader("Referer", referer)) }
            var hop: CrossOriginFetch.Hop?
            if var protocolState = cors {
                hop = try Self.accessControl(at: request.url) { () throws(CrossOriginFetch.Blocked) in
                    try protocolState.begin(&request)
                }
                cors = protocolState
            }
            // After the hop's mode kept the headers it allows: the page's own `Accept` may be gone.
            let own = fields?.fields(for: [first] + redirects, pageHeaders: request.headers, publicSuffixes: jar.publicSuffixList) ?? []
            if let hop, let cors {
                if !hop.includesCredentials { mode = .omit }
                if let origin = hop.origin { trusted.append(HTTPHeader("Origin", origin)) }
                if let preflight = hop.preflight {
                    try await self.preflight(
                        preflight, of: request, cors: cors, cache: preflights,
                        fields: own.filter { $0.name != "Accept" } + (referer.map { [HTTPHeader("Referer", $0)] } ?? []),
                        initiator: initiator)
                }
            }
            var response: Response
            do throws(PageError) {
                response = try await send(request, mode: mode, initiator: initiator, trusted: trusted + own)
            } catch {
                if reportsFailure { reportFailure(error, loading: request.url, in: page) }
                throw error
            }
            if let cors {
                try Self.accessControl(at: request.url) { () throws(CrossOriginFetch.Blocked) in
                    try cors.check(response.headers, status: response.statusCode)
                }
            }
            guard followRedirects, let next = Self.redirectTarget(of: response, from: request.url) else {
                if reportsFailure, response.statusCode >= 400 {
                    consoleError(
                        "Failed to load resource: the server responded with a status of \(response.statusCode) (\(response.statusText))",
                        in: page ?? request.url)
                }
                response.redirects = redirects
                response.referrer = referer
                if let cors {
                    response.type = cors.responseType
                    response.headers = cors.exposedHeaders(response.headers)
                    if cors.tainting == .opaque { response.body = [] }
                }
                return response
            }
            redirects.append(next)
            seen[next, default: 0] += 1
            if seen[next, default: 0] > 2 {
                throw PageError(
                    .redirectLoop, "redirect loop through \(next.path.isEmpty ? "/" : next.path) after \(redirects.count) hops", url: next)
            }
            if redirects.count > maxRedirects {
                throw PageError(.tooManyRedirects, "more than \(maxRedirects) redirects", url: next)
            }
            let keepsMethod = response.statusCode == 307 || response.statusCode == 308
            if !keepsMethod && request.method != "HEAD" {
                request.method = "GET"
                request.body = nil
                request.headers.removeAll { ["content-type", "content-length"].contains($0.name.lowercased()) }
            }
            let from = request.url
            request.url = next
            if var protocolState = cors {
                try Self.accessControl(at: next) { () throws(CrossOriginFetch.Blocked) in
                    try protocolState.redirect(from: from, to: &request)
                }
                cors = protocolState
            }
            if let willRedirect { try await willRedirect(request) }
        }
    }

    /// WebKit's console line for a load no answer reached: a refused connection in WebKit's
    /// words (`Could not connect to 127.0.0.1: Connection refused`), another failure in the
    /// engine's. A cancelled load, and one refused before it was sent (its own line, if any, was
    /// written), get none.
    private func reportFailure(_ error: PageError, loading url: URL, in page: URL?) {
        let reason: String
        switch error.code {
        case .network where error.message == HTTPFailure.refusedConnection:
            reason = "Could not connect to \(url.host ?? ""): Connection refused"
        case .network, .timeout, .responseTooLarge: reason = error.message
        default: return
        }
        consoleError("Failed to load resource: " + reason, in: page ?? url)
    }

    private func consoleError(_ text: String, in page: URL) {
        events?(.console(ConsoleMessage(level: .error, text: text), url: page))
    }

    /// Where `response` redirects to, resolved against `url`: a redirect status with a
    /// `Location`; `nil` for any other response.
    static func redirectTarget(of response: Response, from url: URL) -> URL? {
        guard [301, 302, 303, 307, 308].contains(response.statusCode),
            let location = response.headers.first(where: { $0.name.lowercased() == "location" })?.value
        else { return nil }
        return URLResolution.resolve(location, against: url)
    }

    /// Whether `response` is a redirect a load that follows them would have followed.
    static func isRedirect(_ response: Response) -> Bool {
        redirectTarget(of: response, from: response.url) != nil
    }

    /// Asks the server whether `request` may be sent (a CORS preflight: `OPTIONS`, never with
    /// cookies), unless `cache` holds a grant for it; keeps what the answer allows. `fields` are
    /// the request's own (its `Referer`, its user agent's).
    private func preflight(
        _ preflight: CrossOriginFetch.Preflight, of request: PageRequest, cors: CrossOriginFetch, cache: CORSPreflightCache?,
        fields extra: [HTTPHeader], initiator: HTTPExchange.Initiator
    ) async throws(PageError) {
        let origin = cors.serializedOrigin
        if let cache, cache.allows(preflight, from: origin, to: request.url) { return }
        var fields = [
            HTTPHeader("Accept", "*/*"), HTTPHeader("Origin", origin), HTTPHeader("Access-Control-Request-Method", preflight.method),
        ]
        if !preflight.headerNames.isEmpty {
            fields.append(HTTPHeader("Access-Control-Request-Headers", preflight.headerNames.joined(separator: ",")))
        }
        fields += extra
        let response = try await send(PageRequest(url: request.url, method: "OPTIONS"), mode: .omit, initiator: initiator, trusted: fields)
        let grant = try Self.accessControl(at: request.url) { () throws(CrossOriginFetch.Blocked) in
            try cors.checkPreflight(preflight, headers: response.headers, status: response.statusCode)
        }
        cache?.store(grant, from: origin, to: request.url)
    }

    /// `step`'s result, or the load's failure when the CORS protocol refused it.
    private static func accessControl<T>(
        at url: URL, _ step: () throws(CrossOriginFetch.Blocked) -> T
    ) throws(PageError) -> T {
        do throws(CrossOriginFetch.Blocked) {
            return try step()
        } catch {
            throw PageError(.accessControl, error.message, url: url)
        }
    }

    /// One request and response; applies the response's cookies. `trusted` are the loader's
    /// own fields (`Origin`, a preflight's), added after the page's were checked.
    private func send(
        _ request: PageRequest, mode: CookieMode, initiator: HTTPExchange.Initiator, trusted: [HTTPHeader] = []
    ) async throws(PageError) -> Response {
        let clock = ContinuousClock()
        let started = clock.now
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        // Nothing the page chose reaches the wire unchecked: a method or field with a space,
        // CR, LF or NUL would rewrite the request line or add a request to the connection.
        do throws(FetchRequestRules.Violation) {
            outgoing.method = HTTPMethod(rawValue: try FetchRequestRules.method(request.method))
            outgoing.headers.add(name: "User-Agent", value: userAgent)
            for header in request.headers {
                if let field = try FetchRequestRules.header(name: header.name, value: header.value) {
                    outgoing.headers.add(name: field.name, value: field.value)
                }
            }
            for field in trusted { outgoing.headers.add(name: field.name, value: field.value) }
        } catch {
            throw PageError(.invalidRequest, error.message, url: request.url)
        }
        var cookiesSent: [String] = []
        if case .include(let context) = mode {
            // The names reported are the cookies' own, never read back from the header: a
            // nameless cookie's entry there is its value.
            let sending = jar.cookiesToSend(to: request.url, context: context)
            if !sending.isEmpty {
                outgoing.headers.add(name: "Cookie", value: CookieJar.cookieHeader(sending))
                cookiesSent = sending.map(\.name)
            }
        }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }

        let incoming: HTTPClientResponse
        let body: ByteBuffer
        do {
            incoming = try await client.executeSendingIdempotentOnceMore(outgoing, deadline: .now() + TimeAmount(timeout))
            body = try await incoming.body.collect(upTo: maxBytes)
        } catch let error as NIOTooManyBytesError {
            _ = error
            report(initiator, request, nil, cookiesSent, [], [], [], clock.now - started)
            throw PageError(.responseTooLarge, "the response is larger than \(maxBytes) bytes", url: request.url)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            report(initiator, request, nil, cookiesSent, [], [], [], clock.now - started)
            throw PageError(.timeout, "no response within \(timeout)", url: request.url)
        } catch  where error is CancellationError || Task.isCancelled {
            // The page aborted it (or its document went): the exchange ends without an answer,
            // as WebKit shows a cancelled load.
            report(initiator, request, nil, cookiesSent, [], [], [], clock.now - started)
            throw PageError(.cancelled, "the load was cancelled", url: request.url)
        } catch {
            report(initiator, request, nil, cookiesSent, [], [], [], clock.now - started)
            throw PageError(.network, HTTPFailure.describe(error), url: request.url)
        }

        var headers: [HTTPHeader] = []
        var setCookieLines: [String] = []
        for field in incoming.headers {
            switch field.name.lowercased() {
            case "set-cookie": setCookieLines.append(field.value)
            case "set-cookie2": continue  // obsolete (RFC 2965), never applied and never shown to scripts
            default: headers.append(HTTPHeader(field.name, field.value))
            }
        }
        var set: [String] = [], deleted: [String] = [], rejected: [String] = []
        if case .include(let context) = mode {
            for line in setCookieLines {
                switch jar.setCookie(line, from: request.url, context: context) {
                case .stored(let cookie), .replaced(let cookie, _): set.append(cookie.name)
                case .deleted: deleted.append(SetCookieParser.cookieName(of: line))
                case .rejected(let error): rejected.append("\(SetCookieParser.cookieName(of: line)): \(error)")
                }
            }
        }
        report(initiator, request, Int(incoming.status.code), cookiesSent, set, deleted, rejected, clock.now - started)
        return Response(
            url: request.url, statusCode: Int(incoming.status.code), statusText: incoming.status.reasonPhrase,
            headers: headers, setCookieNames: set + deleted, body: Array(buffer: body), redirects: [])
    }

    private func report(
        _ initiator: HTTPExchange.Initiator, _ request: PageRequest, _ status: Int?, _ sent: [String],
        _ set: [String], _ deleted: [String], _ rejected: [String], _ duration: Duration
    ) {
        events?(
            .http(
                HTTPExchange(
                    initiator: initiator, method: request.method, url: request.url, statusCode: status, cookiesSent: sent,
                    cookiesSet: set, cookiesDeleted: deleted, cookiesRejected: rejected, duration: duration)))
    }
}
