import Foundation
import Logging
import SessionBridgeCookies
import Synchronization

extension SessionController {
    // MARK: Changes the web side makes

    /// Observes `store` so that what the page itself does to its cookies — a `document.cookie`
    /// write, a `Set-Cookie` on one of its fetches or navigations, a deletion by the web
    /// product's own logout route — reaches the native store, instead of being lost or undone
    /// by the next write-back. Only changes the web made are followed: the session's own writes
    /// (``CookieChange/Cause-swift.enum/api``), expiry and eviction are not, so nothing echoes.
    ///
    /// The session's own cookies (the session cookie, the configured names and those the token
    /// endpoint set) belong to native code: a page's writes to them are not followed — a script
    /// cannot plant a session into the native store. One change of theirs is: when a response to
    /// the page deletes the session cookie, the web product signed the user out, and the session
    /// ends everywhere (see ``webSignedOut()``), so the next navigation does not bring it back.
    ///
    /// A WebKit store reports what changed a few milliseconds late (it is read again at each
    /// change), so ``prepareNavigation(to:in:)`` first waits for what is pending
    /// (``HTTPCookieStore/deliverPendingChanges()``): a deletion the page just made is followed
    /// before the native store's cookies are copied back, not undone by them. One the page made
    /// too late for that (its write reaches WebKit's store behind the script) is not undone
    /// either: a cookie the page wrote is not copied back while the native store holds it as
    /// the page left it (``PageWrittenCookies``).
    nonisolated func observeWebChanges(of store: any HTTPCookieStore) -> CookieObservation? {
        guard !isNativeStore(store) else { return nil }
        let native = cookieJar
        let sessionCookieName = configuration.webSessionCookieName
        let sessionURL = configuration.sessionURL
        let owned = ownedCookieNames
        let pageWritten = pageWrittenCookies
        let webCauses: Set<CookieChange.Cause> = [.script, .httpResponse, .webContent]
        return store.observeChanges { [weak self] changes in
            var writes: [CookieWriteOperation] = []
            var signedOut = false
            let ownedNames = owned.names.withLock { $0 }
            for change in changes where webCauses.contains(change.cause) {
                if change.cookie.name == sessionCookieName || ownedNames.contains(change.cookie.name) {
                    // Only the deletion of the session's own cookie (the one the native store
                    // sends to the session's site), not one of that name on another site.
                    if change.kind == .deleted && change.cause == .httpResponse && change.cookie.name == sessionCookieName,
                        native.cookies(for: sessionURL).contains(where: { $0.hasSameIdentity(as: change.cookie) })
                    {
                        writes.append(.delete(change.cookie))
                        signedOut = true
                    }
                    continue
                }
                switch change.kind {
                case .added, .replaced:
                    writes.append(.set(change.cookie))
                    pageWritten.took(change.cookie)
                case .deleted:
                    writes.append(.delete(change.cookie))
                    pageWritten.forget(change.cookie)
                case .expired, .evicted: break
                }
            }
            // Into the native store at once; into its persistent profile behind the page, which
            // a durable write on its thread would stall (a `document.cookie` write runs there).
            if let profile = self?.profileForWebChanges.withLock({ $0 }) {
                profile.savingBehind { native.write(writes) }
            } else {
                native.write(writes)
            }
            guard signedOut, let self else { return }
            self.webSignOutPending.store(true, ordering: .releasing)
            Task { await self.webSignedOut() }
        }
    }

    /// The web product deleted the session cookie in a response to a page (its logout route):
    /// the native session ends too — vault emptied, the refresh token revoked, the session's
    /// cookies deleted on every side, the pages told (`sessionbridge:signedout` with reason
    /// `web_logout`). With an ``IsolatedWebSession`` only the page session ends
    /// (``endWebSession()``): the native session goes on.
    ///
    /// Both the observer's task and the next navigation call it; one deletion ends the session
    /// once, and every caller returns after that run, so a late call cannot end a session
    /// exchanged since.
    func webSignedOut() async {
        if webSignOutPending.exchange(false, ordering: .acquiringAndReleasing) {
            let previous = webSignOut
            published.withLock { $0.webSignOutStarted = true }
            webSignOut = Task {
                await previous?.value
                await self.endSessionSignedOutOnTheWeb()
            }
        }
        await webSignOut?.value
    }

    private func endSessionSignedOutOnTheWeb() async {
        signingOutOnTheWeb = true
        defer { signingOutOnTheWeb = false }
        if let inFlight { _ = await inFlight.value }
        guard hasSession else { return }
        if isIsolated {
            // A page session exchanged since the deletion is not the one the product ended.
            guard !hasValidSessionCookie(in: cookieJar.cookies(for: configuration.sessionURL)) else { return }
            logger.info("the web product deleted the session cookie; the page session ends, the native one goes on")
            await endWebSession()
            return
        }
        logger.info("the web product deleted the session cookie; signing out natively")
        let token = record?.refreshToken
        await endSessionLocally()
        if let token { await client.revoke(token) }
        await notifySignedOut(reason: "web_logout")
    }
}
