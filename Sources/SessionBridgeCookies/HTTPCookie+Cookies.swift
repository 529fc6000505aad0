public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

extension Cookie {
    /// Creates a cookie from Foundation's `HTTPCookie`.
    ///
    /// A leading dot on `HTTPCookie.domain` marks a domain cookie, its absence a host-only one.
    /// `HTTPCookie` has no creation, last-access or `Partitioned` fields: the creation and
    /// last-access times are `now`, and `isPartitioned` is `false`. `SameSite` comes from
    /// `sameSitePolicy` on Apple platforms (`Strict`/`Lax`; anything else is
    /// ``SameSite/unspecified``); swift-corelibs-foundation has no such field, so on Linux it is
    /// always ``SameSite/unspecified``.
    public init(_ httpCookie: HTTPCookie, now: Date = Date()) {
        var domain = httpCookie.domain
        let isHostOnly = !domain.hasPrefix(".")
        if !isHostOnly { domain.removeFirst() }
        #if canImport(Darwin)
        let raw = httpCookie.sameSitePolicy?.rawValue.lowercased()
        #else
        let raw: String? = nil
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
    /// cookie cannot be represented (`HTTPCookie` requires a name). `SameSite=Strict`/`Lax` travel
    /// as `sameSitePolicy` on Apple platforms only (`None` has no policy value; Linux's Foundation
    /// has no `SameSite` at all). A domain cookie gets a leading dot.
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
        #if canImport(Darwin)
        switch sameSite {
        case .strict: properties[.sameSitePolicy] = HTTPCookieStringPolicy.sameSiteStrict.rawValue
        case .lax: properties[.sameSitePolicy] = HTTPCookieStringPolicy.sameSiteLax.rawValue
        case .none, .unspecified: break
        }
        #endif
        return HTTPCookie(properties: properties)
    }
}
