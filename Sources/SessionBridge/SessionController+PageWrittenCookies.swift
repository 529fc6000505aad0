import SessionBridgeCookies
import Synchronization

extension SessionController {
    /// The cookies a page wrote itself (a `document.cookie` write, a `Set-Cookie` on one of its
    /// own fetches or navigations) and the native store took from it, as it took them.
    ///
    /// The page's store is such a cookie's authority: when the page's store lacks one the
    /// native store still holds unchanged, the page deleted it, and WebKit may not have said
    /// so yet (a `document.cookie` write reaches the network process behind the script, so a
    /// read right after it can miss it). The write-back before a navigation
    /// (``cookiesToCopy(_:into:overwrite:)``) leaves such a cookie alone instead of undoing the
    /// page's deletion; the native store follows the deletion when it is reported. A cookie of
    /// that identity the native side wrote since (another value) is copied as before.
    final class PageWrittenCookies: Sendable {
        /// More than any store keeps per page; past it the oldest half is forgotten (a
        /// forgotten cookie is merely copied back as before).
        static let limit = 4096

        private struct State {
            var values: [Cookie.Identity: (value: String, order: UInt64)] = [:]
            var next: UInt64 = 0
        }

        private let state = Mutex(State())

        /// The page wrote `cookie` and the native store took it.
        func took(_ cookie: Cookie) {
            state.withLock { state in
                state.next += 1
                state.values[cookie.identity] = (cookie.value, state.next)
                guard state.values.count > Self.limit else { return }
                let cut = state.next - UInt64(Self.limit / 2)
                state.values = state.values.filter { $0.value.order > cut }
            }
        }

        /// The page deleted `cookie`.
        func forget(_ cookie: Cookie) {
            state.withLock { _ = $0.values.removeValue(forKey: cookie.identity) }
        }

        /// Whether the native store's `cookie` is a page's write, unchanged since.
        func isPagesUnchanged(_ cookie: Cookie) -> Bool {
            state.withLock { $0.values[cookie.identity]?.value == cookie.value }
        }
    }
}
