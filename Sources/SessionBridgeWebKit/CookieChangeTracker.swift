import Foundation
import SessionBridgeCookies
import Synchronization

/// What changed in a WebKit data store's cookies, found by reading them again: WebKit's
/// `changed` signal, like `WKHTTPCookieStoreObserver`, says only that something did.
///
/// Each read is compared with the one before. A difference the store's own writes explain
/// (``WebKitCookieStore/apply(_:)``, a clear of the store's data) is not reported: each write
/// says beforehand what it will leave, and the first read after it that shows that is taken
/// as the write's. Every other difference is the page's, reported as a ``CookieChange``:
/// one that touches an `HttpOnly` cookie, which no script can, with the cause
/// ``CookieChange/Cause-swift.enum/httpResponse``, any other as
/// ``CookieChange/Cause-swift.enum/webContent``, and a cookie gone past its expiry as
/// ``CookieChange/Kind-swift.enum/expired``.
///
/// Reads are made only while somebody observes, one at a time: a read asked for while one is
/// under way is made once after it, for every caller that asked.
@WebKitActor
final class CookieChangeTracker {
    typealias Handler = @Sendable ([CookieChange]) -> Void

    /// A cookie's identity in the store.
    typealias Key = Cookie.Identity

    /// What a write of the store's own is to leave for one identity: a cookie of that value,
    /// or (`nil`) none.
    struct Expectation {
        let value: String?
        let write: UInt64
    }

    private let observers = Mutex<[UInt64: Handler]>([:])
    private let nextObserver = Atomic<UInt64>(0)
    private var snapshot: [Key: Cookie]?
    private var expected: [Key: Expectation] = [:]
    private var nextWrite: UInt64 = 0
    private var requested = 0
    private var completed = 0
    private var reading = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var following: Task<Void, Never>?
    private let read: @WebKitActor () async throws(WebKitError) -> [Cookie]
    private let changes: @WebKitActor () -> AsyncStream<Void>

    /// A tracker that reads the store with `read` and learns of changes from `changes`.
    nonisolated init(
        read: @escaping @WebKitActor () async throws(WebKitError) -> [Cookie],
        changes: @escaping @WebKitActor () -> AsyncStream<Void>
    ) {
        self.read = read
        self.changes = changes
    }

    /// Whether anybody observes (the store's writes then say what they leave).
    nonisolated var isObserved: Bool { !observers.withLock { $0.isEmpty } }

    // MARK: Observers

    /// Adds `handler`; the first observer starts the reads, from a first one that changes
    /// nothing. Cancelling the last one stops them.
    nonisolated func observe(_ handler: @escaping Handler) -> CookieObservation {
        let id = nextObserver.add(1, ordering: .relaxed).newValue
        observers.withLock { $0[id] = handler }
        Task { @WebKitActor in self.follow() }
        return CookieObservation { [weak self] in
            guard let self else { return }
            let last = self.observers.withLock { observers in
                observers[id] = nil
                return observers.isEmpty
            }
            if last { Task { @WebKitActor in self.stopFollowingIfUnobserved() } }
        }
    }

    private func follow() {
        guard following == nil, isObserved else { return }
        let stream = changes()
        following = Task { [weak self] in
            await self?.synchronize()
            for await _ in stream {
                guard let self else { return }
                await self.synchronize()
            }
        }
    }

    private func stopFollowingIfUnobserved() {
        guard !isObserved else { return }
        following?.cancel()
        following = nil
        snapshot = nil
        expected = [:]
    }

    // MARK: The store's own writes

    /// Says what a write of the store's own is about to leave; the returned number ends it
    /// (``endWrite(_:)``). `nil` (nothing to say) while nobody observes.
    func beginWrite(_ operations: [CookieWriteOperation]) -> UInt64? {
        guard isObserved else { return nil }
        nextWrite += 1
        for operation in operations {
            switch operation {
            case .set(let cookie): expected[cookie.identity] = Expectation(value: cookie.value, write: nextWrite)
            case .delete(let cookie): expected[cookie.identity] = Expectation(value: nil, write: nextWrite)
            }
        }
        return nextWrite
    }

    /// Says that every cookie known is about to be removed (a clear of the store's data).
    func beginRemovingAll() -> UInt64? {
        beginWrite((snapshot ?? [:]).values.map { .delete($0) })
    }

    /// Ends a write: the store is read once more, so what the write left is taken as its own,
    /// and whatever it said and did not leave (a write that failed) is forgotten.
    func endWrite(_ write: UInt64?) async {
        guard let write else { return }
        await synchronize()
        expected = expected.filter { $0.value.write != write }
    }

    // MARK: Reading

    /// Returns once the store was read after the call and what changed reached the observers.
    func synchronize() async {
        guard isObserved else { return }
        requested += 1
        let ticket = requested
        if !reading { await readUntilCurrent() }
        while completed < ticket {
            await withCheckedContinuation { waiters.append($0) }
        }
    }

    private func readUntilCurrent() async {
        guard !reading else { return }
        reading = true
        while completed < requested {
            let covered = requested
            if let cookies = try? await read() { took(cookies) }
            completed = covered
            let ready = waiters
            waiters = []
            for waiter in ready { waiter.resume() }
        }
        reading = false
    }

    private func took(_ cookies: [Cookie]) {
        var current: [Key: Cookie] = [:]
        for cookie in cookies { current[cookie.identity] = cookie }
        defer { snapshot = current }
        guard let previous = snapshot else { return }
        let found = Self.changes(from: previous, to: current, expected: &expected, now: Date())
        guard !found.isEmpty else { return }
        for handler in observers.withLock({ Array($0.values) }) { handler(found) }
    }

    /// The changes from `previous` to `current` that no expectation explains; an expectation
    /// met is removed.
    nonisolated static func changes(
        from previous: [Key: Cookie], to current: [Key: Cookie], expected: inout [Key: Expectation], now: Date
    ) -> [CookieChange] {
        var found: [CookieChange] = []
        for key in Set(previous.keys).union(current.keys) {
            let before = previous[key]
            let after = current[key]
            if let expectation = expected[key], expectation.value == after?.value {
                expected[key] = nil
                continue
            }
            switch (before, after) {
            case (nil, let added?):
                found.append(CookieChange(kind: .added, cookie: added, cause: added.isHttpOnly ? .httpResponse : .webContent))
            case (let removed?, nil):
                if removed.isExpired(at: now) {
                    found.append(CookieChange(kind: .expired, cookie: removed, cause: .expiry))
                } else {
                    found.append(CookieChange(kind: .deleted, cookie: removed, cause: removed.isHttpOnly ? .httpResponse : .webContent))
                }
            case (let old?, let new?):
                guard !old.hasSameContent(as: new) else { continue }
                found.append(
                    CookieChange(
                        kind: .replaced, cookie: new, previous: old,
                        cause: old.isHttpOnly || new.isHttpOnly ? .httpResponse : .webContent))
            case (nil, nil):
                continue
            }
        }
        return found
    }
}
