import CWebKitGTK
public import Foundation
import Logging
import SessionBridgeHeadless
import WebKitGTKShim

/// Where WebKit views keep cookies and other website data: in memory only, or in a directory
/// that outlives the process. (WebKit's `WKWebsiteDataStore`.)
///
/// Views configured with the same store share its cookies; each store is one WebKit web
/// context (one network process session). Nothing is created until a view or the cookie store
/// first needs it.
///
/// ```swift
/// let store = try WebKitWebsiteDataStore(directory: profileURL)   // cookies in profileURL/cookies.sqlite
/// let view = try await WebKitWebView(configuration: WebKitWebViewConfiguration(websiteDataStore: store))
/// ```
@WebKitActor
public final class WebKitWebsiteDataStore {
    /// The directory of a persistent store; `nil` for a non-persistent one.
    public nonisolated let directory: URL?
    /// The store's cookies. (WebKit's `httpCookieStore`.)
    public nonisolated let httpCookieStore: WebKitCookieStore
    nonisolated let data: WebsiteData

    /// Whether the data outlives the process.
    public nonisolated var isPersistent: Bool { directory != nil }

    /// The most memory, in megabytes, a web process of this store's views may hold; `nil` for
    /// WebKit's default.
    public nonisolated var webProcessMemoryLimitMB: Int? { data.webProcessMemoryLimitMB }

    /// A store whose data lives only as long as it does. (WebKit's `nonPersistent()`.)
    ///
    /// WebKit keeps such a private session's console to itself: its views report none of
    /// WebKit's own console lines (``WebProcessExtension``). A persistent store in a fresh
    /// temporary directory starts as empty, and its views do.
    ///
    /// - Parameter webProcessMemoryLimitMB: with a value above 0, a web process of this
    ///   store's views that still holds more than that many megabytes after WebKit's own
    ///   cleanup is ended (WebKitGTK's memory pressure settings, checked every second), and the
    ///   view reports `WebContentProcessTerminationReason.exceededMemoryLimit`. `nil`, 0 or less
    ///   leaves WebKit's default, which did not end a process holding 6 GB here.
    public nonisolated static func nonPersistent(webProcessMemoryLimitMB: Int? = nil) -> WebKitWebsiteDataStore {
        WebKitWebsiteDataStore(data: WebsiteData(directory: nil, webProcessMemoryLimitMB: webProcessMemoryLimitMB))
    }

    /// A persistent store in `directory` (created if missing): cookies in `cookies.sqlite`,
    /// HttpOnly ones included, other website data under `data/` and `cache/`.
    /// `webProcessMemoryLimitMB` is as in ``nonPersistent(webProcessMemoryLimitMB:)``.
    public nonisolated convenience init(directory: URL, webProcessMemoryLimitMB: Int? = nil) throws(WebKitError) {
        do {
            // Owner-only: WebKit's files in it (the cookie database holds HttpOnly session
            // cookies) are made with the process's umask, readable by every local user.
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        } catch {
            throw WebKitError(.invalidArgument, "the data store directory \(directory.path) could not be created")
        }
        self.init(data: WebsiteData(directory: directory, webProcessMemoryLimitMB: webProcessMemoryLimitMB))
    }

    private nonisolated init(data: WebsiteData) {
        self.data = data
        self.directory = data.directory
        self.httpCookieStore = WebKitCookieStore(data: data)
    }

    /// Trusts `pemCertificate` for `host` in views of this store (a test server's self-signed
    /// certificate), as a browser would after the person accepted it.
    public func allowTLSCertificate(pemCertificate: String, for host: String) throws(WebKitError) {
        let context = try unsafe data.webContext()
        var error: UnsafeMutablePointer<GError>? = nil
        guard let certificate = unsafe g_tls_certificate_new_from_pem(pemCertificate, -1, &error) else {
            throw WebKitError(.invalidArgument, unsafe "the certificate could not be read: \(takeMessage(error))")
        }
        defer { unsafe g_object_unref(certificate) }
        unsafe webkit_web_context_allow_tls_certificate_for_host(context, certificate, host)
    }

    /// The store's WebKit web context (a `WebKitWebContext *`), for benchmarks that drive
    /// WebKitGTK directly in the same context.
    package func rawWebContext() throws(WebKitError) -> OpaquePointer {
        unsafe OpaquePointer(try data.webContext())
    }

    /// Removes every cookie and all other website data.
    public func removeAllData(timeout: Duration = .seconds(10)) async throws(WebKitError) {
        try await httpCookieStore.removeAll(WEBKIT_WEBSITE_DATA_ALL, timeout: timeout)
    }
}

/// The WebKit objects behind a data store, created on first use on the loop's thread and kept
/// for the process's life (WebKit's network session of a context is not meant to be torn down
/// while views may still use it).
@WebKitActor
final class WebsiteData {
    nonisolated let directory: URL?
    /// The web processes' memory limit in megabytes, if any (``WebKitWebsiteDataStore/nonPersistent(webProcessMemoryLimitMB:)``).
    nonisolated let webProcessMemoryLimitMB: Int?
    private var manager: GPointer?
    private var context: GPointer?
    private var changeObservers: [UInt64: AsyncStream<Void>.Continuation] = [:]
    private var nextObserver: UInt64 = 0

    nonisolated init(directory: URL?, webProcessMemoryLimitMB: Int?) {
        self.directory = directory
        self.webProcessMemoryLimitMB = webProcessMemoryLimitMB
    }

    /// The data manager, created on first use.
    func dataManager() throws(WebKitError) -> OpaquePointer {
        if let manager { return unsafe manager.opaque }
        if let error = WebKitMainLoop.shared.startupError { throw error }
        let created: OpaquePointer
        if let directory {
            guard
                let made = unsafe sb_website_data_manager_new(
                    directory.appendingPathComponent("data").path,
                    directory.appendingPathComponent("cache").path)
            else {
                throw WebKitError(.webKit, "WebKit could not create a data manager in \(directory.path)")
            }
            unsafe created = OpaquePointer(made)
        } else {
            unsafe created = unsafe OpaquePointer(webkit_website_data_manager_new_ephemeral())
        }
        manager = unsafe GPointer(created)
        let cookies = unsafe webkit_website_data_manager_get_cookie_manager(UnsafeMutablePointer(created))
        if let directory {
            unsafe webkit_cookie_manager_set_persistent_storage(
                cookies, directory.appendingPathComponent("cookies.sqlite").path, WEBKIT_COOKIE_PERSISTENT_STORAGE_SQLITE)
        }
        unsafe webkit_cookie_manager_set_accept_policy(cookies, WEBKIT_COOKIE_POLICY_ACCEPT_ALWAYS)
        unsafe sb_connect_cookies_changed(
            cookies,
            { _, data in
                guard let data = unsafe data else { return }
                let store = unsafe Unmanaged<WebsiteData>.fromOpaque(data).takeUnretainedValue()
                WebKitActor.assumeIsolated { store.cookiesChanged() }
            }, unsafe Unmanaged.passRetained(self).toOpaque(), nil)
        return unsafe created
    }

    /// The web context views of this store are created in.
    func webContext() throws(WebKitError) -> UnsafeMutablePointer<WebKitWebContext> {
        if let context { return unsafe context.typed() }
        let manager = try unsafe dataManager()
        let limit = UInt32(clamping: max(webProcessMemoryLimitMB ?? 0, 0))
        guard let created = unsafe sb_web_context_new(UnsafeMutablePointer(manager), limit) else {
            throw WebKitError(.webKit, "WebKit could not create a web context")
        }
        if let directory = WebProcessExtension.directory {
            unsafe webkit_web_context_set_web_extensions_directory(created, directory)
        }
        // The language the headless engine gives too; WebKit's own would be `C` in a `C.UTF-8`
        // locale, a tag `Intl` refuses. (WebKit keeps one list for the whole process.)
        unsafe PreferredLanguage.current.withCString { language in
            var languages: [UnsafePointer<CChar>?] = unsafe [language, nil]
            unsafe webkit_web_context_set_preferred_languages(created, &languages)
        }
        context = unsafe GPointer(created)
        return unsafe created
    }

    /// The cookie manager.
    func cookieManager() throws(WebKitError) -> UnsafeMutablePointer<WebKitCookieManager> {
        unsafe webkit_website_data_manager_get_cookie_manager(UnsafeMutablePointer(try dataManager()))
    }

    func clear(_ types: WebKitWebsiteDataTypes, timeout: Duration) async throws(WebKitError) {
        let manager = unsafe GPointer(try dataManager())
        let _: Bool = try unsafe await awaitReady("clearing website data", timeout: timeout) { cancellable, callback, data in
            unsafe webkit_website_data_manager_clear(manager.typed(), types, 0, cancellable, callback, data)
        } finish: { _, result in
            var error: UnsafeMutablePointer<GError>? = nil
            let done = unsafe webkit_website_data_manager_clear_finish(manager.typed(), result, &error) != 0
            return done ? .success(true) : .failure(WebKitError(.webKit, unsafe "clearing website data failed: \(takeMessage(error))"))
        }
    }

    /// A stream that yields whenever WebKit says the cookies changed (the signal carries no
    /// detail: read the store to see what).
    func cookieChanges() -> AsyncStream<Void> {
        _ = try? unsafe dataManager()
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = nextObserver
        nextObserver += 1
        changeObservers[id] = continuation
        continuation.onTermination = { _ in
            Task { @WebKitActor in self.changeObservers[id] = nil }
        }
        return stream
    }

    private func cookiesChanged() {
        for continuation in changeObservers.values { continuation.yield() }
    }
}
