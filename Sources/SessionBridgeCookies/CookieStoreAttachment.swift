import Foundation
import Synchronization

/// A ``CookieJar`` attached to a ``PersistentCookieStore``: loaded once when attached, then
/// saved on every change by the thread that made it (``SaveMode/onChange``), behind it on a
/// writer thread (``SaveMode/behind``), or only when ``save()`` is called (``SaveMode/manual``).
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
        /// After every commit of the jar, behind the thread that made it: on the process's
        /// cookie-store writer thread, one save for the changes that come while a save waits to
        /// start (it writes the jar as it is when it starts). A page's cookie write never waits
        /// for the disk, as in a browser; ``CookieStoreAttachment/flush()`` returns once the
        /// changes made so far are on disk.
        case behind
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
    /// How many callers hold saves back (``holdSaves()``), and whether a change came meanwhile;
    /// apart from `lock`, which a save holds while it writes.
    private let holding = Mutex<(count: Int, changed: Bool, scheduled: Bool)>((0, false, false))
    private let heldSavesGate = Mutex<(@Sendable () -> Void)?>(nil)
    /// Where saves made behind their callers run, for every attachment of the process, one at a
    /// time, in order: a profile opened again waits here for the writes of its last opening.
    private static let writer = DispatchQueue(label: "sessionbridge.cookie-store-writer", qos: .userInitiated)
    /// How many saves behind are asked for and not yet done, by store file: a profile opened
    /// again waits only when its own file has some.
    private static let pendingWrites = Mutex<[String: Int]>([:])

    init(jar: CookieJar, store: PersistentCookieStore, mode: SaveMode, includeSessionCookies: Bool) throws(CookieStoreError) {
        self.jar = jar
        self.store = store
        self.includesSessionCookies = includeSessionCookies
        let result = try store.load()
        self.loadResult = result
        let now = jar.clock()
        jar.replaceAll(with: result.cookies.filter { !$0.isExpired(at: now) })
        if mode != .manual {
            let observation = jar.observeBatches { [weak self] _ in
                guard let self, !self.noteChangeIfHeld() else { return }
                if mode == .behind { return self.saveBehind() }
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

    /// Holds the saves that changes would make (``SaveMode/onChange``, ``SaveMode/behind``) until
    /// ``releaseSaves()``: a caller that makes changes it answers for before they need to be on
    /// disk (a refresh releasing its callers once the cookies are in every store) writes them
    /// afterwards, in one save, off its path.
    package func holdSaves() {
        holding.withLock { $0.count += 1 }
    }

    /// Runs `body`, whose changes are written in one save behind the caller
    /// (``saveBehind(then:)``), whatever the attachment's mode.
    package func savingBehind<T>(_ body: () throws -> T) rethrows -> T {
        holdSaves()
        defer { if releaseSaves() { saveBehind() } }
        return try body()
    }

    /// Ends a ``holdSaves()``; returns whether a change came while saves were held, which the
    /// caller then writes with ``saveBehind(then:)`` or ``saveHeldChanges()``. A change after
    /// this call saves itself.
    package func releaseSaves() -> Bool {
        holding.withLock { state in
            state.count -= 1
            guard state.count == 0, state.changed else { return false }
            state.changed = false
            return true
        }
    }

    /// Writes the jar on the process's cookie-store writer thread instead of the caller's (a
    /// crash-safe write blocks its thread for as long as the disk takes), after a
    /// ``releaseSaves()`` that returned true or a change in ``SaveMode/behind``; then calls
    /// `completion` there. Saves asked for while one waits to start are one save: it writes the
    /// jar as it is when it starts.
    package func saveBehind(then completion: (@Sendable () -> Void)? = nil) {
        let schedule = holding.withLock { state -> Bool in
            guard !state.scheduled || completion != nil else { return false }
            state.scheduled = true
            return true
        }
        guard schedule else { return }
        let key = Self.pendingKey(store)
        if let key { Self.pendingWrites.withLock { $0[key, default: 0] += 1 } }
        Self.writer.async { [self] in
            // Cleared before the jar is read: a change from now on asks for a save of its own.
            holding.withLock { $0.scheduled = false }
            saveHeldChanges()
            if let key {
                Self.pendingWrites.withLock { pending in
                    let left = pending[key, default: 1] - 1
                    pending[key] = left > 0 ? left : nil
                }
            }
            completion?()
        }
    }

    private static func pendingKey(_ store: PersistentCookieStore) -> String? {
        store.fileURL?.standardizedFileURL.path
    }

    /// Returns once every change made so far is on disk (``SaveMode/behind``, and the saves the
    /// session makes behind its callers): to read the file.
    public func flush() async {
        await Self.flushAll()
    }

    /// Returns once every change made so far to any attached jar of the process is on disk:
    /// call it before the process ends, or saves behind their callers may be lost.
    public static func flushAll() async {
        await withCheckedContinuation { continuation in writer.async { continuation.resume() } }
    }

    /// Returns once the saves behind asked for `store`'s file so far are on disk, for a caller
    /// that cannot wait asynchronously (opening a profile again); never call it from a save
    /// behind.
    ///
    /// With none pending, it returns at once: opening a profile never waits for another
    /// profile's writes, and a thread of the cooperative pool is held only while its own file is
    /// written.
    package static func flushNow(_ store: PersistentCookieStore) {
        guard let key = pendingKey(store), pendingWrites.withLock({ $0[key] != nil }) else { return }
        writer.sync {}
    }

    /// Writes the jar after a ``releaseSaves()`` that returned true, on the caller's thread; a
    /// failure is kept as ``lastSaveError``, as an automatic save's is.
    package func saveHeldChanges() {
        heldSavesGate.withLock { $0 }?()
        do throws(CookieStoreError) {
            try save()
        } catch {
            lock.withLock { $0.lastError = error }
        }
    }

    /// Sets what ``saveHeldChanges()`` calls before it writes, on its thread (the writer's, for a
    /// save behind): a test holds the write there to see what does and does not wait for it.
    package func setHeldSavesGate(_ gate: (@Sendable () -> Void)?) {
        heldSavesGate.withLock { $0 = gate }
    }

    /// Whether saves are held; if so, the change is noted for the caller that holds them.
    private func noteChangeIfHeld() -> Bool {
        holding.withLock { state in
            guard state.count > 0 else { return false }
            state.changed = true
            return true
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
