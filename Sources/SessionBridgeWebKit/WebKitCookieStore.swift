import CWebKitGTK
public import Foundation
import Logging
public import SessionBridgeCookies

/// A WebKit data store's cookies as native code sees them. (WebKit's `WKHTTPCookieStore`.)
///
/// The cookies live in WebKit's network process: every operation is an asynchronous request
/// there, bounded by ``timeout``. When ``apply(_:)`` returns, WebKit confirmed every write, and
/// a request the page sends next carries them. `document.cookie` in a page may see a write
/// 1 to 4 ms later (the web process caches cookies), as with `WKHTTPCookieStore`.
///
/// The `HTTPCookieStore` methods cannot throw: when WebKit does not answer in time they log
/// the failure and answer empty; the throwing variants (``cookies(for:timeout:)`` and friends)
/// report it.
@WebKitActor
public final class WebKitCookieStore: HTTPCookieStore {
    nonisolated let data: WebsiteData
    /// How long one operation may wait for WebKit.
    public nonisolated let timeout: Duration = .seconds(10)
    private nonisolated let logger = Logger(label: "sessionbridge.webkit.cookies")

    /// What the page changes, for ``observeChanges(_:)``.
    nonisolated let tracker: CookieChangeTracker

    nonisolated init(data: WebsiteData) {
        self.data = data
        let timeout = timeout
        tracker = CookieChangeTracker(
            read: { () async throws(WebKitError) in try await Self.allCookies(in: data, timeout: timeout) },
            changes: { data.cookieChanges() })
    }

    // MARK: HTTPCookieStore

    public func allCookies() async -> [Cookie] {
        do { return try await allCookies(timeout: timeout) } catch { return logged(error, []) }
    }

    public func cookies(for url: URL) async -> [Cookie] {
        do { return try await cookies(for: url, timeout: timeout) } catch { return logged(error, []) }
    }

    public func apply(_ operations: [CookieWriteOperation]) async {
        do { try await apply(operations, timeout: timeout) } catch { logged(error, ()) }
    }

    public func removeAllCookies() async {
        do { try await removeAll(WEBKIT_WEBSITE_DATA_COOKIES, timeout: timeout) } catch { logged(error, ()) }
    }

    /// Calls `handler` with what the page changed: a response's `Set-Cookie`, a
    /// `document.cookie` write, a cookie gone past its expiry. WebKit says only that something
    /// changed, so the store is read again at each change and compared (``CookieChangeTracker``):
    /// the store's own writes are left out, a change to an `HttpOnly` cookie comes as the
    /// response's, and any other as ``CookieChange/Cause-swift.enum/webContent``. The handler
    /// is called on WebKit's thread a few milliseconds after the change.
    public nonisolated func observeChanges(_ handler: @escaping @Sendable ([CookieChange]) -> Void) -> CookieObservation? {
        tracker.observe(handler)
    }

    /// Reads the store again, and returns once what changed before the call reached the
    /// observers (at once when nobody observes).
    public func deliverPendingChanges() async {
        await tracker.synchronize()
    }

    /// Clears `types` of the store's data, cookies among them, as a write of the store's own.
    func removeAll(_ types: WebKitWebsiteDataTypes, timeout: Duration) async throws(WebKitError) {
        let own = tracker.beginRemovingAll()
        do {
            try await data.clear(types, timeout: timeout)
        } catch {
            await tracker.endWrite(own)
            throw error
        }
        await tracker.endWrite(own)
    }

    private nonisolated func logged<T>(_ error: WebKitError, _ fallback: T) -> T {
        logger.error("cookie store operation failed", metadata: ["error": "\(error)"])
        return fallback
    }

    // MARK: Throwing variants

    /// Every cookie held (expired ones excluded), HttpOnly ones included.
    public func allCookies(timeout: Duration) async throws(WebKitError) -> [Cookie] {
        try await Self.allCookies(in: data, timeout: timeout)
    }

    private static func allCookies(in data: WebsiteData, timeout: Duration) async throws(WebKitError) -> [Cookie] {
        let manager = unsafe GPointer(try data.cookieManager())
        let cookies: [Cookie] = try unsafe await awaitReady("reading cookies", timeout: timeout) { cancellable, callback, data in
            unsafe webkit_cookie_manager_get_all_cookies(manager.typed(), cancellable, callback, data)
        } finish: { _, result in
            var error: UnsafeMutablePointer<GError>? = nil
            let list = unsafe webkit_cookie_manager_get_all_cookies_finish(manager.typed(), result, &error)
            if let error = unsafe error { return .failure(WebKitError(.webKit, unsafe "reading cookies failed: \(takeMessage(error))")) }
            return unsafe .success(Cookie.takeSoupCookieList(list))
        }
        let now = Date()
        return cookies.filter { !$0.isExpired(at: now) }
    }

    /// The cookies a request to `url` would carry, HttpOnly ones included.
    public func cookies(for url: URL, timeout: Duration) async throws(WebKitError) -> [Cookie] {
        let manager = unsafe GPointer(try data.cookieManager())
        let uri = url.absoluteString
        return try unsafe await awaitReady("reading cookies", timeout: timeout) { cancellable, callback, data in
            unsafe webkit_cookie_manager_get_cookies(manager.typed(), uri, cancellable, callback, data)
        } finish: { _, result in
            var error: UnsafeMutablePointer<GError>? = nil
            let list = unsafe webkit_cookie_manager_get_cookies_finish(manager.typed(), result, &error)
            if let error = unsafe error { return .failure(WebKitError(.webKit, unsafe "reading cookies failed: \(takeMessage(error))")) }
            return unsafe .success(Cookie.takeSoupCookieList(list))
        }
    }

    /// Stores and deletes cookies in order; returns when WebKit confirmed each.
    public func apply(_ operations: [CookieWriteOperation], timeout: Duration) async throws(WebKitError) {
        let own = tracker.beginWrite(operations)
        do {
            try await write(operations, timeout: timeout)
        } catch {
            await tracker.endWrite(own)
            throw error
        }
        await tracker.endWrite(own)
    }

    private func write(_ operations: [CookieWriteOperation], timeout: Duration) async throws(WebKitError) {
        let manager = unsafe GPointer(try data.cookieManager())
        var existing: [Cookie]? = nil
        for operation in operations {
            switch operation {
            case .set(let cookie):
                try await add(cookie, manager: manager, timeout: timeout)
                if existing != nil { existing?.removeAll { $0.hasSameIdentity(as: cookie) }; existing?.append(cookie) }
            case .delete(let cookie):
                // WebKit deletes a cookie only when name, value, domain and path all match, so
                // the stored cookies of that identity are looked up first.
                if existing == nil { existing = try await allCookies(timeout: timeout) }
                for stored in existing ?? [] where stored.hasSameIdentity(as: cookie) {
                    try await delete(stored, manager: manager, timeout: timeout)
                }
                existing?.removeAll { $0.hasSameIdentity(as: cookie) }
            }
        }
    }

    private func add(_ cookie: Cookie, manager: GPointer, timeout: Duration) async throws(WebKitError) {
        let soupCookie = unsafe GPointer(cookie.makeSoupCookie())
        defer { unsafe soup_cookie_free(soupCookie.opaque) }
        let _: Bool = try unsafe await awaitReady("storing a cookie", timeout: timeout) { cancellable, callback, data in
            unsafe webkit_cookie_manager_add_cookie(manager.typed(), soupCookie.opaque, cancellable, callback, data)
        } finish: { _, result in
            var error: UnsafeMutablePointer<GError>? = nil
            let done = unsafe webkit_cookie_manager_add_cookie_finish(manager.typed(), result, &error) != 0
            return done ? .success(true) : .failure(WebKitError(.webKit, unsafe "storing a cookie failed: \(takeMessage(error))"))
        }
    }

    private func delete(_ cookie: Cookie, manager: GPointer, timeout: Duration) async throws(WebKitError) {
        let soupCookie = unsafe GPointer(cookie.makeSoupCookie())
        defer { unsafe soup_cookie_free(soupCookie.opaque) }
        let _: Bool = try unsafe await awaitReady("deleting a cookie", timeout: timeout) { cancellable, callback, data in
            unsafe webkit_cookie_manager_delete_cookie(manager.typed(), soupCookie.opaque, cancellable, callback, data)
        } finish: { _, result in
            var error: UnsafeMutablePointer<GError>? = nil
            let done = unsafe webkit_cookie_manager_delete_cookie_finish(manager.typed(), result, &error) != 0
            return done ? .success(true) : .failure(WebKitError(.webKit, unsafe "deleting a cookie failed: \(takeMessage(error))"))
        }
    }

    // MARK: Observation

    /// Yields whenever the cookies change (a response's `Set-Cookie`, `document.cookie`, a
    /// native write). Like WebKit's observer it says nothing of what changed: read the store.
    public func changes() -> AsyncStream<Void> {
        data.cookieChanges()
    }
}
