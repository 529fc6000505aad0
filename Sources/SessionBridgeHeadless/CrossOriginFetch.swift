import Foundation
import SessionBridgeMessaging

/// A document's request under the Fetch standard's CORS protocol, hop by hop: whether a hop
/// sends cookies and an `Origin`, whether it needs a preflight, whether the page may read the
/// answer, and what of it.
///
/// A request starts "basic": while it stays at its document's origin, the page reads the whole
/// answer. The first hop to another origin taints it for good: in `cors` mode every answer
/// from then on must allow the document's origin (`Access-Control-Allow-Origin`, and
/// `Access-Control-Allow-Credentials: true` for a request with credentials), and the page
/// reads only the headers the server exposes; in `no-cors` mode the page gets an opaque
/// response (status 0, no headers, no body); in `same-origin` mode the request fails. A
/// redirect from another origin to a third one sends `Origin: null` from then on, as WebKit
/// does.
struct CrossOriginFetch: Sendable {
    /// Fetch's request mode.
    enum Mode: String, Sendable {
        case cors
        case noCORS = "no-cors"
        case sameOrigin = "same-origin"
    }

    /// Fetch's credentials mode: when cookies go with a request and come in with its answer.
    enum Credentials: String, Sendable {
        case omit
        case sameOrigin = "same-origin"
        case include
    }

    /// What the page may read of the answers (Fetch: response tainting).
    enum Tainting: String, Sendable {
        case basic, cors, opaque
    }

    /// Why the protocol stopped a request: `message` is the one WebKit's console shows.
    struct Blocked: Error, Sendable {
        var message: String
    }

    /// What one hop sends.
    struct Hop: Sendable {
        var includesCredentials: Bool
        /// The `Origin` field's value, when the hop sends one.
        var origin: String?
        /// The preflight's method and header names, when the hop needs one.
        var preflight: Preflight?
    }

    /// A preflight's question: may this method with these headers be sent?
    struct Preflight: Sendable, Hashable {
        var method: String
        /// Lowercased, sorted (``CORSSafelist/unsafeRequestHeaderNames(_:)``).
        var headerNames: [String]
        /// Whether the request goes with credentials.
        var withCredentials: Bool
    }

    /// The document's origin; `nil` for an opaque one, which no URL is of.
    let origin: SecurityOrigin?
    let mode: Mode
    let credentials: Credentials
    /// Whether the request follows redirects (its redirect mode is `follow`).
    let followsRedirects: Bool
    private(set) var tainting = Tainting.basic
    /// Set by a redirect from another origin to a third one: `Origin: null` from then on.
    private(set) var originTainted = false

    init(origin: SecurityOrigin?, mode: Mode, credentials: Credentials, followsRedirects: Bool = true) {
        self.origin = origin
        self.mode = mode
        self.credentials = credentials
        self.followsRedirects = followsRedirects
    }

    /// The `Origin` field a request from this document carries, `null` once tainted.
    var serializedOrigin: String {
        originTainted ? "null" : origin?.description ?? "null"
    }

    /// Starts a hop to `request.url` (Fetch: main fetch and its Origin header): refused in
    /// `same-origin` mode when it leaves the origin, and in `cors` mode for a scheme that is not
    /// HTTP(S). A `no-cors` hop keeps only the headers that mode allows.
    mutating func begin(_ request: inout PageRequest) throws(Blocked) -> Hop {
        let sameOrigin = origin != nil && SecurityOrigin(url: request.url) == origin
        if !(sameOrigin && tainting == .basic) {
            switch mode {
            case .sameOrigin:
                throw Blocked(message: "Cross origin requests are not allowed when using same-origin fetch mode.")
            case .noCORS:
                guard followsRedirects else {
                    throw Blocked(message: "Cross origin requests in no-cors mode must follow redirects.")
                }
                tainting = .opaque
                request.headers.removeAll { !CORSSafelist.isNoCORSSafelistedRequestHeader(name: $0.name, value: $0.value) }
            case .cors:
                guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                    throw Blocked(message: "Cross origin requests are only supported for HTTP.")
                }
                tainting = .cors
            }
        }
        var hop = Hop(includesCredentials: credentials == .include || (credentials == .sameOrigin && tainting == .basic))
        if tainting == .cors {
            hop.origin = serializedOrigin
            let unsafeNames = CORSSafelist.unsafeRequestHeaderNames(request.headers)
            if !CORSSafelist.isSafelistedMethod(request.method) || !unsafeNames.isEmpty {
                hop.preflight = Preflight(method: request.method, headerNames: unsafeNames, withCredentials: credentials == .include)
            }
        } else if request.method != "GET" && request.method != "HEAD" {
            // A secure document's request to an insecure URL does not tell its origin
            // (the default referrer policy, strict-origin-when-cross-origin).
            let downgrade = origin?.scheme == "https" && request.url.scheme?.lowercased() != "https"
            hop.origin = downgrade ? "null" : serializedOrigin
        }
        return hop
    }

    /// Fetch's CORS check of an answer in `cors` mode, redirects included: the answer allows
    /// the document's origin, and credentials when the request has them.
    func check(_ headers: [HTTPHeader], status: Int) throws(Blocked) {
        guard tainting == .cors else { return }
        let allowed = Self.values(of: "access-control-allow-origin", in: headers)
        let origin = serializedOrigin
        guard let allowedOrigin = allowed.isEmpty ? nil : allowed.joined(separator: ", ") else {
            throw Blocked(message: "Origin \(origin) is not allowed by Access-Control-Allow-Origin. Status code: \(status)")
        }
        if allowedOrigin == "*" && credentials != .include { return }
        guard allowedOrigin == origin else {
            if allowedOrigin == "*" {
                throw Blocked(
                    message: "Cannot use wildcard in Access-Control-Allow-Origin when credentials flag is true. Status code: \(status)")
            }
            throw Blocked(message: "Origin \(origin) is not allowed by Access-Control-Allow-Origin. Status code: \(status)")
        }
        guard credentials == .include else { return }
        guard Self.values(of: "access-control-allow-credentials", in: headers).joined(separator: ", ") == "true" else {
            throw Blocked(message: "Credentials flag is true, but Access-Control-Allow-Credentials is not \"true\". Status code: \(status)")
        }
    }

    /// Fetch's CORS-preflight fetch's checks: an ok status, the CORS check, and the method and
    /// every unsafe header name allowed (a wildcard allows them for a request without
    /// credentials). Returns what the answer allows, for the cache.
    func checkPreflight(_ preflight: Preflight, headers: [HTTPHeader], status: Int) throws(Blocked) -> CORSPreflightCache.Grant {
        do {
            try check(headers, status: status)
        } catch {
            throw Blocked(message: "Preflight response is not successful. \(error.message)")
        }
        guard (200...299).contains(status) else {
            throw Blocked(message: "Preflight response is not successful. Status code: \(status)")
        }
        let methods = CORSSafelist.list(Self.values(of: "access-control-allow-methods", in: headers))
        let names = CORSSafelist.list(Self.values(of: "access-control-allow-headers", in: headers))
        guard methods.allSatisfy(FetchRequestRules.isToken), names.allSatisfy(FetchRequestRules.isToken) else {
            throw Blocked(message: "Preflight response is not successful. Its allowed methods or headers are malformed.")
        }
        let grant = CORSPreflightCache.Grant(
            methods: Set(methods), headerNames: Set(names.map { $0.lowercased() }), withCredentials: preflight.withCredentials,
            maxAge: Self.maxAge(Self.values(of: "access-control-max-age", in: headers)))
        if let refused = grant.refusal(of: preflight) { throw Blocked(message: refused) }
        return grant
    }

    /// Fetch's HTTP-redirect fetch's CORS steps for a redirect from `from` to `target`: no
    /// credentials in the URL, `Origin: null` once the request went from another origin to a
    /// third, and `Authorization` dropped on a change of origin.
    mutating func redirect(from: URL, to request: inout PageRequest) throws(Blocked) {
        let target = request.url
        let hasUserInfo = target.user != nil || target.password != nil
        let targetOrigin = SecurityOrigin(url: target)
        if hasUserInfo && (tainting == .cors || (mode == .cors && targetOrigin != origin)) {
            throw Blocked(message: "Cross-origin redirection to \(target.absoluteString) denied by Cross-Origin Resource Sharing policy.")
        }
        let fromOrigin = SecurityOrigin(url: from)
        if fromOrigin != targetOrigin {
            if origin == nil || fromOrigin != origin { originTainted = true }
            request.headers.removeAll { $0.name.lowercased() == "authorization" }
        }
    }

    /// The answer as the page gets it: whole for a basic request; for a `cors` one, the
    /// safelisted headers and those `Access-Control-Expose-Headers` names (all of them for
    /// `*` without credentials).
    func exposedHeaders(_ headers: [HTTPHeader]) -> [HTTPHeader] {
        guard tainting == .cors else { return tainting == .opaque ? [] : headers }
        let exposed = Set(CORSSafelist.list(Self.values(of: "access-control-expose-headers", in: headers)).map { $0.lowercased() })
        if exposed.contains("*") && credentials != .include { return headers }
        return headers.filter {
            let name = $0.name.lowercased()
            return CORSSafelist.safelistedResponseHeaderNames.contains(name) || exposed.contains(name)
        }
    }

    /// The response's `type`, as `Response.type` shows it.
    var responseType: String { tainting.rawValue }

    // MARK: Private

    private static func values(of name: String, in headers: [HTTPHeader]) -> [String] {
        headers.filter { $0.name.lowercased() == name }.map(\.value)
    }

    /// `Access-Control-Max-Age` in seconds: 5 without one, at most 600 (WebKit's bounds).
    private static func maxAge(_ values: [String]) -> Duration {
        guard values.count == 1, let seconds = Int(values[0]), seconds >= 0, values[0].utf8.allSatisfy({ $0 != UInt8(ascii: "+") })
        else { return .seconds(5) }
        return .seconds(min(seconds, 600))
    }
}
