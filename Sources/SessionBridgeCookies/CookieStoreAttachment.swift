import Foundation
import Synchronization

/// A ``CookieJar`` attached to a ``PersistentCookieStore``: loaded once when attached, then
/// saved on every change (``SaveMode/onChange``) or only when ``save()`` is called
/// (``SaveMode/manual``).
///
/// ```swift
/// let attachment = try jar.attach(to: PersistentCookieStore(directory: dir, profile: "work"))
/// if let warning = attachment.loadResult.warning { logger.warning("\(warning)") }
/// ...
/// attachment.detach()
/// ```
public final class CookieStoreAttachment: Sendable {
    /// When the jar is written to the store.
    public enum SaveMode: Sendable, Hashable {
        /// After every commit of the jar (synchronously, on the thread that made it): one
        /// write for a whole response's `Set-Cookie` fields or a ``CookieJar/write(_:)``.
        case onChange
        /// Only when ``CookieStoreAttachment/save()`` is called.
        case manual
    }

    /// The jar.
    public let jar: CookieJar
    /// The store.
    public let store: PersistentCookieStore
    /// What was loaded when attaching (including a recovered-from-backup warning).
    public let loadResult: PersistentCookieStore.LoadResult
    /// Whether session (non-persistent) cookies are saved too.
    public let includesSessionCookies: Bool

    private let lock = Mutex<(observation: CookieObservation?, lastError: CookieStoreError?)>((nil, nil))

    init(jar: CookieJar, store: PersistentCookieStore, mode: SaveMode, includeSessionCookies: Bool) throws(CookieStoreError) {
        self.jar = jar
        self.store = store
        self.includesSessionCookies = includeSessionCookies
        let result = try store.load()
        self.loadResult = result
        let now = jar.clock()
        jar.replaceAll(with: result.cookies.filter { !$0.isExpired(at: now) })
        if mode == .onChange {
            let observation = jar.observeBatches { [weak self] _ in
                guard let self else { return }
                do throws(CookieStoreError) {
                    try self.save()
                } catch {
                    self.lock.withLock { $0.lastError = error }
                }
            }
            lock.withLock { $0.observation = observation }
        }
    }

    /// Writes the jar's current cookies to the store now.
    public func save() throws(CookieStoreError) {
        // Snapshot and write under one lock, so a later snapshot is never overwritten by an
        // earlier one.
        try lock.withLock { _ throws(CookieStoreError) in
            let cookies = jar.allCookies.filter { includesSessionCookies || $0.isPersistent }
            try store.save(cookies)
        }
    }

    /// The last error of an automatic save, if any.
    public var lastSaveError: CookieStoreError? { lock.withLock { $0.lastError } }

    /// Stops saving on change (the jar keeps its cookies).
    public func detach() {
        let observation = lock.withLock { state -> CookieObservation? in
            defer { state.observation = nil }
            return state.observation
        }
        observation?.cancel()
    }
}

extension CookieJar {
    /// Loads `store` into this jar (replacing its contents) and keeps the store in step.
    ///
    /// - Parameters:
    ///   - store: the store to follow.
    ///   - mode: save on every change (default) or only on ``CookieStoreAttachment/save()``.
    ///   - includeSessionCookies: also save cookies without an expiry time (off by default, as
    ///     browsers do).
    /// - Throws: when the store cannot be loaded (see ``PersistentCookieStore/load()``).
    public func attach(
        to store: PersistentCookieStore, mode: CookieStoreAttachment.SaveMode = .onChange,
        includeSessionCookies: Bool = false
    ) throws(CookieStoreError) -> CookieStoreAttachment {
        try CookieStoreAttachment(jar: self, store: store, mode: mode, includeSessionCookies: includeSessionCookies)
    }
}
