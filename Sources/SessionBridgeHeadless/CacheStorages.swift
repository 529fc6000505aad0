import OrderedCollections
public import SessionBridgeMessaging
import SessionBridgeScriptEngine
import Synchronization

/// The pages' Cache Storage (the Cache API's `caches`): named caches of request–response pairs,
/// one set per origin, shared by every page of a data store and its workers, as WebKit shares
/// them across the web views of a data store. Kept in memory for as long as the store.
///
/// Each origin holds at most ``quota`` bytes of response bodies; a `put` past it is refused
/// with a `QuotaExceededError` and the cache is left as it was.
///
/// A deleted cache goes from the names at once, but a page's `Cache` object of it goes on
/// working on its pairs, as in WebKit (which keeps them while the object lives): the last
/// ``keptDeletedCaches`` deleted caches of an origin are kept, counted against its quota, the
/// oldest dropped first when a `put` needs room; a `Cache` object of a dropped one is refused
/// with an `InvalidStateError`.
public final class CacheStorages: Sendable {
    /// The body bytes one origin's caches may hold: 64 MB.
    public static let quota = 64 * 1024 * 1024
    /// How many deleted caches an origin keeps for the `Cache` objects of them.
    static let keptDeletedCaches = 8

    /// One stored pair: its head (request URL, method and header fields; the response's status,
    /// status text, type, header fields, whether it was redirected, and its URL) as the page
    /// gave it, and the response's body.
    struct Entry: Sendable {
        let id: Int
        let head: [ScriptValue]
        let body: [UInt8]
    }

    /// A cache: its id (a page's `Cache` object keeps it) and its pairs, in the order they were put.
    struct Cache: Sendable {
        let id: Int
        var entries: [Entry] = []

        var bytes: Int { entries.reduce(0) { $0 + $1.body.count } }
    }

    private struct Origin: Sendable {
        var caches: OrderedDictionary<String, Cache> = [:]
        /// Deleted caches, oldest first.
        var deleted: [Cache] = []
        var bytes = 0

        /// The cache `id`, named or deleted.
        func cache(_ id: Int) -> Cache? {
            caches.values.first { $0.id == id } ?? deleted.first { $0.id == id }
        }

        /// Puts `cache` back where it was found.
        mutating func replace(_ cache: Cache) {
            if let name = caches.first(where: { $0.value.id == cache.id })?.key {
                caches[name] = cache
            } else if let index = deleted.firstIndex(where: { $0.id == cache.id }) {
                deleted[index] = cache
            }
        }

        /// Drops the oldest deleted cache but `keeping`; whether there was one.
        mutating func dropOldestDeleted(keeping id: Int) -> Bool {
            guard let index = deleted.firstIndex(where: { $0.id != id }) else { return false }
            bytes -= deleted.remove(at: index).bytes
            return true
        }
    }

    private struct State: Sendable {
        var origins: [SecurityOrigin: Origin] = [:]
        var nextID = 1
    }

    private let state = Mutex(State())

    /// No caches yet.
    public init() {}

    /// The names of `origin`'s caches, in the order they were made.
    public func names(forOrigin origin: SecurityOrigin) -> [String] {
        state.withLock { Array($0.origins[origin]?.caches.keys ?? []) }
    }

    /// The id of `origin`'s cache `name`, made when `creating` and missing; nil when missing.
    func cacheID(_ name: String, forOrigin origin: SecurityOrigin, creating: Bool) -> Int? {
        state.withLock { state in
            if let cache = state.origins[origin]?.caches[name] { return cache.id }
            guard creating else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.origins[origin, default: Origin()].caches[name] = Cache(id: id)
            return id
        }
    }

    /// Removes `origin`'s cache `name` from its names (kept for its `Cache` objects); whether
    /// there was one.
    func removeCache(_ name: String, forOrigin origin: SecurityOrigin) -> Bool {
        state.withLock { state in
            guard var stored = state.origins[origin], let cache = stored.caches.removeValue(forKey: name) else { return false }
            stored.deleted.append(cache)
            while stored.deleted.count > Self.keptDeletedCaches, stored.dropOldestDeleted(keeping: -1) {}
            state.origins[origin] = stored
            return true
        }
    }

    /// The heads of the pairs of the cache `id` (each with its entry's id first), or nil when the
    /// cache was removed.
    func heads(ofCache id: Int, forOrigin origin: SecurityOrigin) -> [[ScriptValue]]? {
        state.withLock { state in
            state.origins[origin]?.cache(id).map { cache in
                cache.entries.map { [.number(Double($0.id))] + $0.head }
            }
        }
    }

    /// The body of the pair `entry` of the cache `id`, or nil.
    func body(ofEntry entry: Int, inCache id: Int, forOrigin origin: SecurityOrigin) -> [UInt8]? {
        state.withLock { state in
            state.origins[origin]?.cache(id)?.entries.first { $0.id == entry }?.body
        }
    }

    /// What a batch of changes to a cache came to.
    enum Outcome: Equatable {
        case done
        /// The cache was deleted and is no longer kept.
        case noCache
        /// The origin's bodies would exceed ``quota``.
        case overQuota
    }

    /// Removes the pairs `removing` from the cache `id` and appends `adding`, all or nothing.
    func change(
        cache id: Int, forOrigin origin: SecurityOrigin, removing: Set<Int>, adding: [(head: [ScriptValue], body: [UInt8])]
    ) -> Outcome {
        state.withLock { state in
            guard var stored = state.origins[origin], var cache = stored.cache(id) else { return .noCache }
            let change =
                adding.reduce(0) { $0 + $1.body.count } - cache.entries.filter { removing.contains($0.id) }.reduce(0) { $0 + $1.body.count }
            // Deleted caches make room first.
            while stored.bytes + change > Self.quota, stored.dropOldestDeleted(keeping: id) {}
            guard stored.bytes + change <= Self.quota else { return .overQuota }
            cache.entries.removeAll { removing.contains($0.id) }
            for pair in adding {
                cache.entries.append(Entry(id: state.nextID, head: pair.head, body: pair.body))
                state.nextID += 1
            }
            stored.replace(cache)
            stored.bytes += change
            state.origins[origin] = stored
            return .done
        }
    }

    /// Removes every cache of every origin.
    public func removeAll() {
        state.withLock { $0.origins.removeAll() }
    }
}
