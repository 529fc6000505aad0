import Foundation
import SessionBridgeCookies
import SessionBridgeHeadless
import Synchronization

extension SessionController {
    /// The pages ``attach(_:)`` took, readable without a turn of the actor (held weakly, as
    /// ``pages`` holds them).
    final class AttachedPagesForPolicy: Sendable {
        private let pages = Mutex<[ObjectIdentifier: WeakWebView]>([:])

        struct WeakWebView {
            weak var page: (any WebView)?
        }

        func insert(_ page: any WebView) {
            pages.withLock { pages in
                pages = pages.filter { $0.value.page != nil }
                pages[ObjectIdentifier(page)] = WeakWebView(page: page)
            }
        }

        func remove(_ page: any WebView) {
            pages.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(page)) }
        }

        /// Whether `page` itself is attached (not another page that reuses a closed one's address).
        func contains(_ page: any WebView) -> Bool {
            pages.withLock { $0[ObjectIdentifier(page)]?.page === page }
        }
    }

    /// The navigation policy decided without a turn of the actor, when a turn could only
    /// answer `.allow` and change nothing: the page is attached, the session loaded, no
    /// sign-out on the web is pending or has run, the vault is unchanged since this controller
    /// last looked, and the page's store already holds a valid session cookie and every cookie
    /// ``prepareNavigation(to:in:)`` would copy into it. `nil` when the actor must decide.
    ///
    /// A navigation with a fresh session then costs no hop to the actor and back (100 µs of a
    /// refresh cycle's navigation, measured).
    nonisolated(nonsending) func navigationPolicyWithoutATurn(to url: URL, in page: any WebView) async -> NavigationActionPolicy? {
        guard !webSignOutPending.load(ordering: .acquiring) else { return nil }
        let facts = published.withLock { ($0.isReady, $0.webSignOutStarted) }
        guard facts.0, !facts.1, attachedForPolicy.contains(page) else { return nil }
        // A vault that cannot tell cheaply whether it changed is read by the actor every time.
        guard let mark = vault.changeMark(), mark == seenVaultMark.withLock({ $0 }) else { return nil }
        guard isInSessionScope(url) else { return .allow }
        let store = page.httpCookieStore
        let native = cookieJar.cookies(for: url)
        if isNativeStore(store) { return hasValidSessionCookie(in: native) ? .allow : nil }
        let existing = await store.cookies(for: url)
        guard hasValidSessionCookie(in: existing), cookiesToCopy(native, into: existing, overwrite: false).isEmpty else { return nil }
        return .allow
    }
}
