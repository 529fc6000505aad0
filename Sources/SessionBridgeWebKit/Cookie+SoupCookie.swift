import CWebKitGTK
import Foundation
import SessionBridgeCookies

extension Cookie {
    /// A new `SoupCookie` with every attribute of this cookie; the caller frees it.
    /// A domain cookie's domain gets libsoup's leading dot, a host-only cookie's does not.
    /// 9999-12-31T23:59:59Z, the last second a `GDateTime` holds.
    static let latestGLibSecond: Double = 253_402_300_799

    func makeSoupCookie() -> OpaquePointer {
        let soupDomain = isHostOnly ? domain : "." + domain
        let cookie = unsafe soup_cookie_new(name, value, soupDomain, path, -1)!
        if let expiresAt {
            // Whole seconds, then the microseconds, so the expiry is the one asked for. GLib's
            // dates end with the year 9999: a later expiry (a profile's, an app's
            // `.distantFuture` or beyond) is kept as its last second, an earlier one as 1970.
            let interval = expiresAt.timeIntervalSince1970
            let seconds = interval.isNaN ? 0 : min(max(interval.rounded(.down), 0), Self.latestGLibSecond)
            if let whole = unsafe g_date_time_new_from_unix_utc(gint64(seconds)) {
                let fraction = interval - seconds
                let date = fraction > 0 && fraction < 1 ? unsafe g_date_time_add(whole, GTimeSpan(fraction * 1_000_000)) : nil
                unsafe soup_cookie_set_expires(cookie, date ?? whole)
                if let date = unsafe date { unsafe g_date_time_unref(date) }
                unsafe g_date_time_unref(whole)
            }
        }
        unsafe soup_cookie_set_secure(cookie, isSecure ? 1 : 0)
        unsafe soup_cookie_set_http_only(cookie, isHttpOnly ? 1 : 0)
        switch sameSite {
        case .strict: unsafe soup_cookie_set_same_site_policy(cookie, SOUP_SAME_SITE_POLICY_STRICT)
        case .lax: unsafe soup_cookie_set_same_site_policy(cookie, SOUP_SAME_SITE_POLICY_LAX)
        case .none: unsafe soup_cookie_set_same_site_policy(cookie, SOUP_SAME_SITE_POLICY_NONE)
        case .unspecified: break
        }
        return unsafe cookie
    }

    /// The cookie a `SoupCookie` holds.
    init(soupCookie cookie: OpaquePointer) {
        let rawDomain = unsafe String(cString: soup_cookie_get_domain(cookie))
        let expires = unsafe soup_cookie_get_expires(cookie).map {
            unsafe Date(
                timeIntervalSince1970: TimeInterval(g_date_time_to_unix($0)) + TimeInterval(g_date_time_get_microsecond($0)) / 1_000_000)
        }
        let sameSite: SameSite =
            switch unsafe soup_cookie_get_same_site_policy(cookie) {
            case SOUP_SAME_SITE_POLICY_STRICT: .strict
            case SOUP_SAME_SITE_POLICY_LAX: .lax
            case SOUP_SAME_SITE_POLICY_NONE: .none
            default: .unspecified
            }
        unsafe self.init(
            name: String(cString: soup_cookie_get_name(cookie)),
            value: String(cString: soup_cookie_get_value(cookie)),
            domain: rawDomain.hasPrefix(".") ? String(rawDomain.dropFirst()).lowercased() : rawDomain.lowercased(),
            path: soup_cookie_get_path(cookie).map { unsafe String(cString: $0) } ?? "/",
            expiresAt: expires,
            isSecure: unsafe soup_cookie_get_secure(cookie) != 0,
            isHttpOnly: unsafe soup_cookie_get_http_only(cookie) != 0,
            isHostOnly: !rawDomain.hasPrefix("."),
            sameSite: sameSite)
    }

    /// The cookies of a `GList` of `SoupCookie`s, freeing the list and its cookies.
    static func takeSoupCookieList(_ list: UnsafeMutablePointer<GList>?) -> [Cookie] {
        var cookies: [Cookie] = []
        var node = unsafe list
        while let current = unsafe node {
            if let data = unsafe current.pointee.data {
                let soupCookie = OpaquePointer(data)
                unsafe cookies.append(Cookie(soupCookie: soupCookie))
                unsafe soup_cookie_free(soupCookie)
            }
            unsafe node = unsafe current.pointee.next
        }
        unsafe g_list_free(list)
        return cookies
    }
}
