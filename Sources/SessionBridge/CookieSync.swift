public import Foundation
import SessionBridgeCookies
import Synchronization

/// The other ways apps share cookies between the native store and a page's store, each
/// a configuration of the same parts.
///
/// - **Native owner** (the default): a ``SessionController`` over its own jar fans changes out
///   to attached pages and restores what they lose before each navigation.
/// - **Web store as the single source of truth**: give the controller the page store's jar
///   (`SessionController(configuration:cookieJar: dataStore.cookieJar)`).
/// - **Copy-in / copy-out**: ``copyIn(from:to:for:)`` before a flow in a non-persistent store,
///   ``copyOut(from:to:for:)`` when it ends, deletions included (see ``Flow``).
/// - **Two-way sync**: ``mirror(_:_:)`` keeps two jars in step through their observers.
public enum CookieSync {
    /// Copies every cookie `source` would send to `url` into `target` (replacing same identities).
    public static func copyIn(from source: CookieJar, to target: CookieJar, for url: URL) {
        for cookie in source.cookies(for: url) { target.insert(cookie) }
    }

    /// Makes `target`'s cookies for `url` equal `source`'s: new and changed cookies are copied,
    /// and cookies `source` no longer has (a `Set-Cookie` deletion during the flow) are deleted.
    public static func copyOut(from source: CookieJar, to target: CookieJar, for url: URL) {
        let kept = source.cookies(for: url)
        for cookie in target.cookies(for: url) where !kept.contains(where: { $0.hasSameIdentity(as: cookie) }) {
            target.remove(name: cookie.name, domain: cookie.domain, path: cookie.path)
        }
        for cookie in kept { target.insert(cookie) }
    }

    /// A copy-in / copy-out flow: a fresh non-persistent jar for one web flow (a payment, a
    /// consent form), seeded from the native store and copied back when it ends.
    public final class Flow: Sendable {
        /// The native store.
        public let native: CookieJar
        /// The flow's non-persistent jar (use it as the page's `WebsiteDataStore`).
        public let flowJar: CookieJar
        /// The site the flow runs on.
        public let url: URL

        /// Starts a flow on `url`, copying the native cookies in.
        public init(native: CookieJar, url: URL) {
            self.native = native
            self.url = url
            self.flowJar = CookieJar(
                publicSuffixList: native.publicSuffixList, limits: native.limits,
                sameSiteNoneRequiresSecure: native.sameSiteNoneRequiresSecure)
            CookieSync.copyIn(from: native, to: flowJar, for: url)
        }

        /// Ends the flow: the flow's changes, deletions included, go back to the native store.
        public func finish() {
            CookieSync.copyOut(from: flowJar, to: native, for: url)
        }
    }

    /// Keeps `a` and `b` in step: every change of one is applied to the other. An echo is
    /// recognised (the other jar already holds exactly that cookie, or already lacks it) and
    /// dropped, so changes never bounce back and forth. Cancel the returned mirror to stop.
    public static func mirror(_ a: CookieJar, _ b: CookieJar) -> CookieMirror {
        CookieMirror(a, b)
    }
}

/// Two jars kept in step by ``CookieSync/mirror(_:_:)``.
public final class CookieMirror: Sendable {
    private let observations: Mutex<[CookieObservation]>
    /// How many changes were copied across (echoes excluded).
    public var copiedChanges: Int { copied.load(ordering: .relaxed) }
    private let copied = Atomic<Int>(0)

    init(_ a: CookieJar, _ b: CookieJar) {
        observations = Mutex([])
        let first = a.observe { [weak self] change in self?.apply(change, to: b) }
        let second = b.observe { [weak self] change in self?.apply(change, to: a) }
        observations.withLock { $0 = [first, second] }
    }

    private func apply(_ change: CookieChange, to target: CookieJar) {
        let cookie = change.cookie
        let existing = target.allCookies.first { $0.hasSameIdentity(as: cookie) }
        switch change.kind {
        case .added, .replaced:
            if let existing, existing.hasSameContent(as: cookie) { return }
            target.insert(cookie)
        case .deleted, .expired, .evicted:
            guard existing != nil else { return }
            target.remove(name: cookie.name, domain: cookie.domain, path: cookie.path)
        }
        copied.add(1, ordering: .relaxed)
    }

    /// Stops keeping the jars in step.
    public func cancel() {
        for observation in observations.withLock({ $0 }) { observation.cancel() }
    }

    deinit { cancel() }
}
