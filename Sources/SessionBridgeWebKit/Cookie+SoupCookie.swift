import CWebKitGTK
import SessionBridgeCookies
import Foundation

extension Cookie {
    /// A new `SoupCookie` with every attribute of this cookie; the caller frees it.
    /// A domain cookie's domain gets libsoup's leading dot, a host-only cookie's does not.
    func makeSoupCookie() -> OpaquePointer {
        let soupDomain = isHostOnly ? domain : "." + domain
        let cookie = soup_cookie_new(name, value, soupDomain, path, -1)!
        if let expiresAt {
            // Whole seconds, then the microseconds, so the expiry is the one asked for.
            let seconds = expiresAt.timeIntervalSince1970.rounded(.down)
            let whole = g_date_time_new_from_unix_utc(Int(seconds))
            let date = g_date_time_add(whole, GTimeSpan((expiresAt.timeIntervalSince1970 - seconds) * 1_000_000))
            soup_cookie_set_expires(cookie, date ?? whole)
            if let date { g_date_time_unref(date) }
            g_date_time_unref(whole)
        }
        soup_cookie_set_secure(cookie, isSecure ? 1 : 0)
        soup_cookie_set_http_only(cookie, isHttpOnly ? 1 : 0)
        switch sameSite {
        case .strict: soup_cookie_set_same_site_policy(cookie, SOUP_SAME_SITE_POLICY_STRICT)
        case .lax: soup_cookie_set_same_site_policy(cookie, SOUP_SAME_SITE_POLICY_LAX)
        case .none: soup_cookie_set_same_site_policy(cookie, SOUP_SAME_SITE_POLICY_NONE)
        case .unspecified: break
        }
        return cookie
    }

    /// The cookie a `SoupCookie` holds.
    init(soupCookie cookie: OpaquePointer) {
        let rawDomain = String(cString: soup_cookie_get_domain(cookie))
        let expires = soup_cookie_get_expires(cookie).map {
            Date(timeIntervalSince1970: TimeInterval(g_date_time_to_unix($0)) + TimeInterval(g_date_time_get_microsecond($0)) / 1_000_000)
        }
        let sameSite: SameSite = switch soup_cookie_get_same_site_policy(cookie) {
        case SOUP_SAME_SITE_POLICY_STRICT: .strict
        case SOUP_SAME_SITE_POLICY_LAX: .lax
        case SOUP_SAME_SITE_POLICY_NONE: .none
        default: .unspecified
        }
        self.init(
            name: String(cString: soup_cookie_get_name(cookie)),
            value: String(cString: soup_cookie_get_value(cookie)),
            domain: rawDomain.hasPrefix(".") ? String(rawDomain.dropFirst()).lowercased() : rawDomain.lowercased(),
            path: soup_cookie_get_path(cookie).map { String(cString: $0) } ?? "/",
            expiresAt: expires,
            isSecure: soup_cookie_get_secure(cookie) != 0,
            isHttpOnly: soup_cookie_get_http_only(cookie) != 0,
            isHostOnly: !rawDomain.hasPrefix("."),
            sameSite: sameSite)
    }

    /// The cookies of a `GList` of `SoupCookie`s, freeing the list and its cookies.
    static func takeSoupCookieList(_ list: UnsafeMutablePointer<GList>?) -> [Cookie] {
        var cookies: [Cookie] = []
        var node = list
        while let current = node {
            if let data = current.pointee.data {
                let soupCookie = OpaquePointer(data)
                cookies.append(Cookie(soupCookie: soupCookie))
                soup_cookie_free(soupCookie)
            }
            node = current.pointee.next
        }
        g_list_free(list)
        return cookies
    }
}
