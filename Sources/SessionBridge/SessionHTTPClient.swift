import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1
import SessionBridgeCookies
import SessionBridgeHTTP
import SessionBridgeHeadless
import SessionBridgeOAuth

/// A native HTTP client on the session: the app's own requests keep cookies as a browser
/// (or `URLSession`) does, and share the session with the pages.
///
/// Each request carries the cookies of the native store (``SessionController/cookieJar``) and
/// every `Set-Cookie` of its answer (deletions included) is written back to it and to every
/// attached page. With ``Configuration/sendsAccessToken`` it adds `Authorization: Bearer` with
/// the access token the session holds in memory (`Authorization: DPoP` with a proof, `ath`
/// included, when the token is DPoP-bound; a `401` `use_dpop_nonce` is answered by sending the
/// request once more with the server's nonce). A `401` joins the session's one single-flight
/// refresh (shared with pages and other callers) and the request is sent once more.
///
/// An ephemeral client (``Configuration/isEphemeral``) keeps its cookies in a store of its own,
/// in memory only: never persisted, never shared with pages.
///
/// ```swift
/// let client = SessionHTTPClient(session: session)
/// let answer = try await client.send(SessionHTTPRequest(url: apiURL.appending(path: "me")))
/// print(answer.status, answer.cookiesSet)
/// try await client.shutdown()
/// ```
public final class SessionHTTPClient: Sendable {
    /// How a ``SessionHTTPClient`` sends its requests.
    public struct Configuration: Sendable {
        /// Whether requests carry `Authorization: Bearer <access token>`.
        public var sendsAccessToken: Bool
        /// Whether the client keeps cookies in a store of its own, in memory only.
        public var isEphemeral: Bool
        /// How long one request may take, answer included.
        public var timeout: Duration
        /// The longest answer body read.
        public var maximumBodySize: Int

        /// Creates a configuration.
        public init(
            sendsAccessToken: Bool = false, isEphemeral: Bool = false, timeout: Duration = .seconds(30),
            maximumBodySize: Int = 16 << 20
        ) {
            self.sendsAccessToken = sendsAccessToken
            self.isEphemeral = isEphemeral
            self.timeout = timeout
            self.maximumBodySize = maximumBodySize
        }

        /// Cookies in memory only, nothing persisted or shared with pages.
        public static let ephemeral = Configuration(isEphemeral: true)
    }

    /// The session whose cookies and tokens the client uses.
    public let session: SessionController
    /// How requests are sent.
    public let configuration: Configuration
    /// The store cookies come from and go to: the session's native store, or the client's own.
    public let cookieJar: CookieJar
    /// The client's own pool, closed when the client is dropped without ``shutdown()``.
    private let pool: OwnedHTTPClient
    var httpClient: HTTPClient { pool.client }

    /// Creates a client with a connection pool of its own (no redirects followed: a `3xx` is
    /// answered as it is, its `Set-Cookie` applied).
    public init(session: SessionController, configuration: Configuration = Configuration()) {
        self.session = session
        self.configuration = configuration
        self.cookieJar =
            configuration.isEphemeral
            ? CookieJar(limits: session.cookieJar.limits, sameSiteNoneRequiresSecure: session.cookieJar.sameSiteNoneRequiresSecure)
            : session.cookieJar
        self.pool = OwnedHTTPClient(configuration: Self.httpClientConfiguration)
    }

    /// The OAuth client's settings: no redirects followed, and a connection the server refuses
    /// fails the request at once, as a browser's would (not retried until the connect timeout).
    static var httpClientConfiguration: HTTPClient.Configuration { OAuthClientConfiguration.defaultHTTPClientConfiguration }

    /// Closes the client's connections. Call it when done; a second call does nothing.
    ///
    /// A client dropped without it (an error thrown before the call is reached) closes its
    /// connections as it goes: AsyncHTTPClient stops a debug build whose client was never shut
    /// down, and a forgotten call must not end the app.
    public func shutdown() async throws {
        try await pool.shutdown()
    }

    /// Sends `request` with the session's cookies (and access token), applies the answer's
    /// `Set-Cookie` lines, and on a `401` refreshes the session once (joining any refresh in
    /// flight) and sends the request again. An idempotent request whose connection the server
    /// closed before answering (a kept-alive connection it closed meanwhile) is sent once more.
    ///
    /// - Throws: ``SessionError``: ``SessionError/Code/network`` when the server did not
    ///   answer; the refresh's own error when the session could not be refreshed after a `401`.
    public func send(_ request: SessionHTTPRequest) async throws(SessionError) -> SessionHTTPResponse {
        try await session.start()  // the native store is loaded before it is read or written
        if configuration.sendsAccessToken, await session.freshAccessToken() == nil {
            try await session.refreshNativeSession()
        }
        var first = try await sendOnce(request)
        if first.status == 401, session.needsDPoPNonceRetry(status: first.status, headers: first.headers, from: request.url) {
            first = try await sendOnce(request)
        }
        guard first.status == 401 else { return first }
        try await session.refreshNativeSession()
        var second = try await sendOnce(request)
        second.retriedAfterRefresh = true
        return second
    }

    private func sendOnce(_ request: SessionHTTPRequest) async throws(SessionError) -> SessionHTTPResponse {
        guard request.url.hasPortInRange else {
            throw SessionError(.invalidRequest, "the request's port is out of range (0-65535)")
        }
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = .init(rawValue: request.method.uppercased())
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        let context = RequestContext(isCrossSite: false, isTopLevelNavigation: false, method: request.method.uppercased())
        let sent = cookieJar.cookies(for: request.url).map(\.name)
        if let header = cookieJar.cookieHeader(for: request.url, context: context) {
            outgoing.headers.replaceOrAdd(name: "Cookie", value: header)
        }
        if configuration.sendsAccessToken, let credential = await session.freshAccessToken() {
            for (name, value) in session.authorizationFields(for: credential, method: request.method, url: request.url) {
                outgoing.headers.replaceOrAdd(name: name, value: value)
            }
        }
        if let body = request.body {
            outgoing.body = .bytes(body)
        }
        let response: HTTPClientResponse
        let body: Data
        let host = request.url.host ?? "the server"
        // The head and the body share the timeout: a body that trickles in ends there too.
        let deadline = ContinuousClock.now + configuration.timeout
        do {
            response = try await httpClient.executeSendingIdempotentOnceMore(outgoing, deadline: .now() + .init(configuration.timeout))
            let limit = configuration.maximumBodySize
            let collected = try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
                group.addTask { try await response.body.collect(upTo: limit) }
                group.addTask {
                    try await Task.sleep(until: deadline, clock: .continuous)
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            guard var buffer = collected else {
                throw SessionError(.network, "the request to \(host) failed: its answer did not arrive within \(configuration.timeout)")
            }
            body = Data(buffer.readBytes(length: buffer.readableBytes) ?? [])
        } catch let error as SessionError {
            throw error
        } catch is NIOTooManyBytesError {
            throw SessionError(.network, "the request to \(host) failed: its answer is larger than \(configuration.maximumBodySize) bytes")
        } catch {
            throw SessionError(.network, "the request to \(host) failed: \(HTTPFailure.describe(error))")
        }
        if session.configuration.dpopKey != nil {
            session.client.oauth.dpopNonces.remember(headers: response.headers.map { ($0.name, $0.value) }, from: request.url)
        }
        let lines = response.headers["set-cookie"]
        let applied: [CookieWriteOperation]
        if configuration.isEphemeral {
            applied = lines.isEmpty ? [] : cookieJar.applyResponseCookies(lines, from: request.url, context: context).operations
        } else {
            applied = await session.applyNativeResponseCookies(lines, from: request.url, context: context)
        }
        return SessionHTTPResponse(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: body,
            cookiesSent: sent,
            cookiesSet: applied.compactMap { if case .set(let cookie) = $0 { cookie.name } else { nil } },
            cookiesDeleted: applied.compactMap { if case .delete(let cookie) = $0 { cookie.name } else { nil } })
    }
}

/// A request for ``SessionHTTPClient``.
public struct SessionHTTPRequest: Sendable {
    /// Where it goes.
    public var url: URL
    /// The HTTP method (`GET` by default).
    public var method: String
    /// Header fields besides `Cookie` and `Authorization`, which the client sets.
    public var headers: [(String, String)]
    /// The body, if any.
    public var body: Data?

    /// Creates a request.
    public init(url: URL, method: String = "GET", headers: [(String, String)] = [], body: Data? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }
}

/// The answer to a ``SessionHTTPRequest``, with what it did to the cookies (names only).
public struct SessionHTTPResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The header fields, in order.
    public var headers: [(String, String)]
    /// The body.
    public var body: Data
    /// The names of the cookies the (last) request carried.
    public var cookiesSent: [String]
    /// The names of the cookies the answer stored.
    public var cookiesSet: [String]
    /// The names of the cookies the answer deleted.
    public var cookiesDeleted: [String]
    /// Whether a `401` made the client refresh the session and send the request again.
    public var retriedAfterRefresh = false
}
