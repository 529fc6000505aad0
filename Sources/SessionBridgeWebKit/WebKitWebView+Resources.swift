import CWebKitGTK
import Foundation
import SessionBridgeCookies
import SessionBridgeHeadless
import WebKitGTKShim

/// HTTP exchanges: WebKit's `resource-load-started` and each resource's response (or, without
/// one, its `finished`), reported as `PageEvent.http(_:)` to the configuration's event handler
/// (nothing is read without one).
///
/// What WebKitGTK 2.50 does not attest, and how the cookie names are found instead: WebKit hands
/// the embedder neither the `Cookie` request header nor the response's `Set-Cookie` lines (its
/// network process adds the one and strips the other, from every response, redirects' too). So
/// the names *sent* are those the view's cookie store holds for the URL when the load starts,
/// and the names *set* and *deleted* are what changed in the store, for that URL, between the
/// start of the load and its response (WebKit applies a response's `Set-Cookie` before it hands
/// the response on). The window ends at the response, not when the body has been read: a
/// document's own scripts, running before it finishes, set cookies that are not its response's.
/// A change one exchange reported is not reported again by another whose window it also fell
/// in (two fetches out at once). A change made meanwhile by something else (`document.cookie`, a
/// native write) is still listed, and a redirect chain is one exchange: the first URL, the last
/// status. The store is read asynchronously: a response that comes back before the read at the
/// start is answered (a fast server on a loaded machine) has its cookies counted as already
/// there. No cookie value goes into an event.
///
/// WebKit does not say what started a subresource load either: the request's `Sec-Fetch-Dest`
/// does (`document` or `iframe`: a navigation; `script`: a script; anything else: a fetch, which
/// covers `XMLHttpRequest`, images and styles).
extension WebKitWebView {
    func connectResourceLoads() {
        let release: GClosureNotify = { data, _ in
            if let data = unsafe data { unsafe Unmanaged<SignalTarget>.fromOpaque(data).release() }
        }
        unsafe sb_connect_resource_load_started(
            webView,
            { view, resource, request, data in
                guard let data = unsafe data, let view = unsafe view, let resource = unsafe resource, let request = unsafe request,
                    let uri = unsafe webkit_uri_request_get_uri(request)
                else { return }
                let target = unsafe Unmanaged<SignalTarget>.fromOpaque(data).takeUnretainedValue()
                let url = unsafe String(cString: uri)
                let method = unsafe webkit_uri_request_get_http_method(request).map { unsafe String(cString: $0) } ?? "GET"
                let destination = unsafe webkit_uri_request_get_http_headers(request)
                    .flatMap { unsafe soup_message_headers_get_one($0, "Sec-Fetch-Dest") }.map { unsafe String(cString: $0) }
                let isMainResource = unsafe webkit_web_view_get_main_resource(view) == resource
                let held = unsafe GPointer(resource)
                WebKitActor.assumeIsolated {
                    target.view?.resourceLoadStarted(
                        held, url: url, method: method, destination: destination, isMainResource: isMainResource)
                }
            }, unsafe Unmanaged.passRetained(signals).toOpaque(), unsafe release)
    }

    func resourceLoadStarted(_ resource: GPointer, url: String, method: String, destination: String?, isMainResource: Bool) {
        guard let report = configuration.eventHandler, let url = URL(string: url),
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return }
        let initiator: HTTPExchange.Initiator
        switch isMainResource ? "document" : destination ?? "" {
        case "document", "iframe", "frame": initiator = .navigation
        case "script": initiator = .script
        default: initiator = .fetch
        }
        let load = ResourceLoad(
            url: url, method: method, initiator: initiator, store: configuration.websiteDataStore.httpCookieStore,
            claims: cookieChangeClaims, report: report)
        let releaseLoad: GClosureNotify = { data, _ in
            if let data = unsafe data { unsafe Unmanaged<ResourceLoad>.fromOpaque(data).release() }
        }
        unsafe sb_connect_notify(
            resource.raw, "response",
            { object, _, data in
                guard let data = unsafe data, let object = unsafe object else { return }
                let load = unsafe Unmanaged<ResourceLoad>.fromOpaque(data).takeUnretainedValue()
                let resource = unsafe gcast(object, to: CWebKitGTK.WebKitWebResource.self)
                guard let response = unsafe webkit_web_resource_get_response(resource) else { return }
                let code = unsafe Int(webkit_uri_response_get_status_code(response))
                WebKitActor.assumeIsolated { load.finished(status: code > 0 ? code : nil) }
            }, unsafe Unmanaged.passRetained(load).toOpaque(), unsafe releaseLoad)
        unsafe sb_connect_resource_finished(
            resource.typed(),
            { resource, data in
                guard let data = unsafe data, let resource = unsafe resource else { return }
                let load = unsafe Unmanaged<ResourceLoad>.fromOpaque(data).takeUnretainedValue()
                var status: Int? = nil
                if let response = unsafe webkit_web_resource_get_response(resource) {
                    let code = unsafe Int(webkit_uri_response_get_status_code(response))
                    if code > 0 { status = code }
                }
                WebKitActor.assumeIsolated { load.finished(status: status) }
            }, unsafe Unmanaged.passRetained(load).toOpaque(), unsafe releaseLoad)
    }
}

/// One resource load being watched: the store's cookies for its URL when it started, read again
/// when it ends, and the exchange reported with the names (never the values).
@WebKitActor
final class ResourceLoad {
    let url: URL
    let method: String
    let initiator: HTTPExchange.Initiator
    let started = ContinuousClock.now
    let store: WebKitCookieStore
    let report: @Sendable (PageEvent) -> Void
    let before: Task<[Cookie]?, Never>
    let claims: CookieChangeClaims
    private var reported = false

    /// How long one read of the store may take before the names are left out.
    static let readTimeout: Duration = .seconds(5)

    init(
        url: URL, method: String, initiator: HTTPExchange.Initiator, store: WebKitCookieStore, claims: CookieChangeClaims,
        report: @escaping @Sendable (PageEvent) -> Void
    ) {
        self.url = url
        self.method = method
        self.initiator = initiator
        self.store = store
        self.claims = claims
        self.report = report
        before = Task { @WebKitActor in try? await store.cookies(for: url, timeout: Self.readTimeout) }
    }

    func finished(status: Int?) {
        guard !reported else { return }
        reported = true
        let duration = ContinuousClock.now - started
        Task { @WebKitActor in
            let before = await self.before.value ?? []
            let after = (try? await self.store.cookies(for: self.url, timeout: Self.readTimeout)) ?? before
            let changes = self.claims.claim(Self.changes(from: before, to: after), since: self.started)
            self.report(
                .http(
                    HTTPExchange(
                        initiator: self.initiator, method: self.method, url: self.url, statusCode: status,
                        cookiesSent: before.map(\.name), cookiesSet: changes.set, cookiesDeleted: changes.deleted,
                        cookiesRejected: [], duration: duration)))
        }
    }

    /// The cookies stored or replaced (a new value or expiry) and those gone.
    nonisolated static func changes(from before: [Cookie], to after: [Cookie]) -> (set: [Cookie], deleted: [Cookie]) {
        let set = after.filter { cookie in
            !before.contains { $0.hasSameIdentity(as: cookie) && $0.value == cookie.value && $0.expiresAt == cookie.expiresAt }
        }
        let deleted = before.filter { cookie in !after.contains { $0.hasSameIdentity(as: cookie) } }
        return (set, deleted)
    }
}

/// The cookie changes a view's exchanges reported, so that one change is told once: an exchange
/// leaves out a change another one already reported, if it was reported after this exchange
/// began (it fell in both windows). Kept for a minute at most.
@WebKitActor
final class CookieChangeClaims {
    private struct Claim {
        let value: String?
        let expiresAt: Date?
        let at: ContinuousClock.Instant
    }

    private var claims: [Cookie.Identity: Claim] = [:]

    /// The names of `changes` that no other exchange reported since `start` (this exchange's
    /// beginning), which are now this one's.
    func claim(_ changes: (set: [Cookie], deleted: [Cookie]), since start: ContinuousClock.Instant) -> (set: [String], deleted: [String]) {
        let now = ContinuousClock.now
        if claims.count > 512 { claims = claims.filter { now - $0.value.at < .seconds(60) } }
        func take(_ cookie: Cookie, value: String?, expiresAt: Date?) -> Bool {
            if let earlier = claims[cookie.identity], earlier.at >= start, earlier.value == value, earlier.expiresAt == expiresAt {
                return false
            }
            claims[cookie.identity] = Claim(value: value, expiresAt: expiresAt, at: now)
            return true
        }
        let set = changes.set.filter { take($0, value: $0.value, expiresAt: $0.expiresAt) }
        let deleted = changes.deleted.filter { take($0, value: nil, expiresAt: nil) }
        return (set.map(\.name), deleted.map(\.name))
    }
}
