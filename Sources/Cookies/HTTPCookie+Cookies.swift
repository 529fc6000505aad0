import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Cookie {
    /// Creates a cookie from Foundation's `HTTPCookie`.
    ///
    /// A leading dot on `HTTPCookie.domain` marks a domain cookie, its absence a host-only one.
    /// `HTTPCookie` has no creation, last-access or `Partitioned` fields: the creation and
    /// last-access times are `now`, and `isPartitioned` is `false`. `SameSite` is read from the
    /// `SameSite` property; a missing or unknown one becomes ``SameSite/unspecified``.
    public init(_ httpCookie: HTTPCookie, now: Date = Date()) {
        var domain = httpCookie.domain
        let isHostOnly = !domain.hasPrefix(".")
        if !isHostOnly { domain.removeFirst() }
        var raw = (httpCookie.properties?[Self.sameSiteKey] as? String)?.lowercased()
        #if canImport(Darwin)
        if let policy = httpCookie.sameSitePolicy { raw = policy.rawValue.lowercased() }
        #endif
        let sameSite: SameSite
        switch raw {
        case "strict": sameSite = .strict
        case "lax": sameSite = .lax
        case "none": sameSite = .none
        default: sameSite = .unspecified
        }
        self.init(
            name: httpCookie.name, value: httpCookie.value, domain: domain.lowercased(),
            path: httpCookie.path.isEmpty ? "/" : httpCookie.path,
            expiresAt: httpCookie.isSessionOnly ? nil : httpCookie.expiresDate,
            creationTime: now, lastAccessTime: now, isSecure: httpCookie.isSecure,
            isHttpOnly: httpCookie.isHTTPOnly, isHostOnly: isHostOnly, sameSite: sameSite, isPartitioned: false)
    }

    /// This cookie as Foundation's `HTTPCookie`, or `nil` when `HTTPCookie` refuses it.
    ///
    /// Dropped on the way: the creation and last-access times and `Partitioned`; a nameless
    /// cookie cannot be represented (`HTTPCookie` requires a name). `SameSite` travels in the
    /// `SameSite` property. A domain cookie gets a leading dot.
    public var httpCookie: HTTPCookie? {
        guard !name.isEmpty else { return nil }
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: name,
            .value: value,
            .domain: isHostOnly ? domain : "." + domain,
            .path: path,
            .version: "0",
        ]
        if let expiresAt { properties[.expires] = expiresAt }
        if isSecure { properties[.secure] = "TRUE" }
        if isHttpOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        switch sameSite {
        case .strict: properties[Self.sameSiteKey] = "strict"
        case .lax: properties[Self.sameSiteKey] = "lax"
        case .none: properties[Self.sameSiteKey] = "none"
        case .unspecified: break
        }
        return HTTPCookie(properties: properties)
    }

    /// Foundation's `SameSite` property key (`HTTPCookiePropertyKey.sameSitePolicy` on Apple
    /// platforms; swift-corelibs-foundation keeps it as an ordinary property).
    static let sameSiteKey = HTTPCookiePropertyKey("SameSite")
}
