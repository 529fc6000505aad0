import Foundation
import Logging
import Synchronization

extension SessionController {
    // MARK: Changes other users of the vault make

    /// Notices a logout made by another user of the vault — another process sharing the vault
    /// file (an app and its extension), or another controller — before a page action (a
    /// navigation, a bridge call): when the vault no longer holds a session while this
    /// controller still has one, the session ends here too (cookies deleted on every side,
    /// pages told with reason `signed_out_elsewhere`), so the page neither sends the old
    /// session cookie nor refreshes a session the user ended.
    ///
    /// The vault's ``TokenVault/changeMark()`` (one `stat` for a file) spares reading the
    /// record while nothing changed.
    func noticeSignOutElsewhere() async {
        guard isReady, record != nil, inFlight == nil else { return }
        let mark = vault.changeMark()
        if let mark, mark == seenVaultMark.withLock({ $0 }) { return }
        let stored: VaultRecord?
        do {
            stored = try vault.load()
        } catch {
            return  // an unreadable vault says nothing about a logout; the next refresh reports it
        }
        seenVaultMark.withLock { $0 = mark }
        guard stored == nil, record != nil, inFlight == nil else { return }
        logger.info("the session was ended by another user of the vault; signing out here")
        await endSessionLocally()
        seenVaultMark.withLock { $0 = vault.changeMark() }
        await notifySignedOut(reason: "signed_out_elsewhere")
    }

    /// Whether the vault changed since this controller last looked (`false` when the vault
    /// cannot tell cheaply): the session handler then answers through the controller, which
    /// notices a logout made elsewhere, instead of from its cached facts.
    nonisolated func vaultChangedSinceSeen() -> Bool {
        guard let mark = vault.changeMark() else { return false }
        return seenVaultMark.withLock { $0 } != mark
    }
}
