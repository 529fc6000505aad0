import Cookies
import Foundation

/// Where a page keeps its cookies: a shared jar, a non-persistent one, or a named profile.
/// (WebKit's `WKWebsiteDataStore`.)
///
/// Several pages given the same store share its cookies, as web views sharing a data store do.
public final class WebsiteDataStore: Sendable {
    /// The cookies.
    public let cookieJar: CookieJar
    /// The cookies as pages and a session owner reach them. (WebKit's `httpCookieStore`.)
    public let httpCookieStore: CookieJarStore
    /// Whether the cookies outlive the process.
    public var isPersistent: Bool { attachment != nil }
    /// The profile file the cookies are saved to, for a persistent store.
    public let attachment: CookieStoreAttachment?

    /// A store over `cookieJar` (share one store between pages to share their cookies).
    public init(cookieJar: CookieJar = CookieJar()) {
        self.cookieJar = cookieJar
        self.httpCookieStore = CookieJarStore(cookieJar)
        self.attachment = nil
    }

    /// A persistent store: the named profile in `directory` is loaded now (a damaged file
    /// falls back to its last good copy, reported in `attachment.loadResult.warning`), and
    /// every change is saved crash-safely.
    public init(directory: URL, profile: String = "default", includeSessionCookies: Bool = false) throws(CookieStoreError) {
        let jar = CookieJar()
        self.cookieJar = jar
        self.httpCookieStore = CookieJarStore(jar)
        self.attachment = try jar.attach(to: PersistentCookieStore(directory: directory, profile: profile),
                                         includeSessionCookies: includeSessionCookies)
    }

    /// A fresh store whose cookies live only as long as it does.
    public static func nonPersistent() -> WebsiteDataStore {
        WebsiteDataStore(cookieJar: CookieJar())
    }

    /// Removes every cookie (the seeds' `removeData` on logout).
    public func removeAllData() {
        cookieJar.removeAll()
    }
}
