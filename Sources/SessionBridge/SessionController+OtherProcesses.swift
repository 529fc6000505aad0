import Foundation
import Logging
import Synchronization

extension SessionController {
    // MARK: Changes other users of the vault make

    /// Notices what another user of the vault — another process sharing the vault file (an app
    /// and its extension), or another controller — did since this controller last looked,
    /// before a page action (a navigation, a bridge call):
    /// - a logout: when the vault no longer holds a session while this controller still has
    ///   one, the session ends here too (cookies deleted on every side, pages told with reason
    ///   `signed_out_elsewhere`), so the page neither sends the old session cookie nor
    ///   refreshes a session the user ended;
    /// - a refresh: when the vault holds another refresh token, this controller takes it up,
    ///   with the cookies that refresh wrote into a shared ``PersistentCookieStore`` (copied
    ///   into the pages' stores), so the page sends the new session cookie, not the one the
    ///   server may have ended with the rotation, and no refresh spends the old token.
    ///
    /// The vault's ``TokenVault/changeMark()`` (one `stat` for a file) spares reading the
    /// record while nothing changed.
    ///
    /// A refresh in flight reads the vault under its lock and notices either change itself:
    /// when the vault changed, this waits for it before answering, so a page asking while the
    /// refresh runs is not told the session it ended still goes on.
    func noticeSignOutElsewhere() async {
        guard isReady else { return }
        var mark = vault.changeMark()
        if let mark, mark == seenVaultMark.withLock({ $0 }) { return }
        // Waited for even when it has ended the session already: its deletions in the pages'
        // stores may still be under way, and the page's request must not go out before them.
        if let inFlight {
            _ = await inFlight.value
            guard isReady, self.inFlight == nil else { return }
            mark = vault.changeMark()
            if let mark, mark == seenVaultMark.withLock({ $0 }) { return }
        }
        guard record != nil else { return }
        let stored: VaultRecord?
        do {
            stored = try vault.load()
        } catch {
            return  // an unreadable vault says nothing about a logout; the next refresh reports it
        }
        if let stored, stored.refreshToken != record?.refreshToken {
            await adoptRefreshElsewhere()
            return
        }
        seenVaultMark.withLock { $0 = mark }
        guard stored == nil, record != nil, inFlight == nil else { return }
        logger.info("the session was ended by another user of the vault; signing out here")
        await endSessionLocally()
        seenVaultMark.withLock { $0 = vault.changeMark() }
        await notifySignedOut(reason: "signed_out_elsewhere")
    }

    /// Takes up the refresh token another user of the vault rotated, and the cookies its
    /// refresh wrote into the shared profile (``takeUpProfileCookies()``, as a refresh that
    /// finds a rotation made while it waited does). Read under the vault's lock: the other user
    /// writes the profile behind the token, still holding the lock. When the lock is not had
    /// in time, nothing is marked seen and the next page action looks again.
    private func adoptRefreshElsewhere() async {
        let lock: any TokenVaultLock
        do {
            lock = try await vault.lock(timeout: configuration.vaultLockTimeout)
        } catch {
            return
        }
        let stored: VaultRecord?
        do {
            stored = try vault.load()
        } catch {
            lock.unlock()
            return
        }
        let mark = vault.changeMark()
        guard let stored, record != nil, inFlight == nil, stored.refreshToken != record?.refreshToken else {
            // Changed again meanwhile (a logout, this controller's own refresh): looked at anew.
            lock.unlock()
            return
        }
        record = stored
        if !isIsolated { _ = await takeUpProfileCookies() }
        seenVaultMark.withLock { $0 = mark }
        lock.unlock()
        adoptedRotationCount += 1
        logger.debug("took up the refresh token another user of the vault rotated")
    }

    /// Whether the vault changed since this controller last looked (`false` when the vault
    /// cannot tell cheaply): the session handler then answers through the controller, which
    /// notices a logout made elsewhere, instead of from its cached facts.
    nonisolated func vaultChangedSinceSeen() -> Bool {
        guard let mark = vault.changeMark() else { return false }
        return seenVaultMark.withLock { $0 } != mark
    }
}
