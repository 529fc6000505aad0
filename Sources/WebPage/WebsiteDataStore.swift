import Cookies
import Foundation

/// Where a page keeps its cookies: a shared jar, a non-persistent one, or a named profile.
/// (WebKit's `WKWebsiteDataStore`.)
///
/// Several pages given the same store share its cookies, as web views sharing a data store do.
public final class WebsiteDataStore: Sendable {
    /// The cookies.
    public let cookieJar: CookieJar
    /// Whether the cookies outlive the process (see the `Session` layer's persistence).
    public let isPersistent: Bool

    /// A store over `cookieJar`.
    public init(cookieJar: CookieJar = CookieJar(), isPersistent: Bool = false) {
        self.cookieJar = cookieJar
        self.isPersistent = isPersistent
    }

    /// A fresh store whose cookies live only as long as it does.
    public static func nonPersistent() -> WebsiteDataStore {
        WebsiteDataStore(cookieJar: CookieJar(), isPersistent: false)
    }

    /// Removes every cookie (the seeds' `removeData` on logout).
    public func removeAllData() {
        cookieJar.removeAll()
    }
}
