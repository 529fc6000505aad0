public import Foundation
import OrderedCollections
public import SessionBridgeMessaging
import SessionBridgeScriptEngine
import Synchronization

/// The pages' Cache Storage (the Cache API's `caches`): named caches of request–response pairs,
/// one set per origin, shared by every page of a data store and its workers, as WebKit shares
/// them across the web views of a data store. A persistent store's caches are saved next to its
/// cookies (`<profile>.cachestorage`), crash-safely, behind the page that changed them, as
/// WebKit keeps a persistent data store's on disk; a non-persistent store's are in memory only.
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

    struct Origin: Sendable {
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

    struct State: Sendable {
        var origins: [SecurityOrigin: Origin] = [:]
        var nextID = 1
    }

    private let state = Mutex(State())
    /// The file these caches are saved to, if any.
    public let fileURL: URL?
    /// Why the file could not be read when the caches were made (it was then kept aside as
    /// `<file>.corrupt` and the store started empty), or nil.
    public let loadWarning: String?
    /// The last failed save (the caches were kept in memory), or nil.
    public var saveError: String? { file?.saveError }
    private let file: SavedFile?

    /// No caches yet, in memory only.
    public init() {
        fileURL = nil
        loadWarning = nil
        file = nil
    }

    /// Caches saved to `file`: loaded from it now if it exists.
    public init(file: URL) {
        fileURL = file
        self.file = SavedFile(url: file, label: "sessionbridge.cachestorage.save")
        let (loaded, warning) = SavedFile.load(file, what: "the caches start", decode: Self.state(decoding:))
        if let loaded { state.withLock { $0 = loaded } }
        loadWarning = warning
    }

    /// Waits for the saves of the changes made so far.
    public func flush() {
        file?.flush()
    }

    /// The names of `origin`'s caches, in the order they were made.
    public func names(forOrigin origin: SecurityOrigin) -> [String] {
        state.withLock { Array($0.origins[origin]?.caches.keys ?? []) }
    }

    /// The id of `origin`'s cache `name`, made when `creating` and missing; nil when missing.
    func cacheID(_ name: String, forOrigin origin: SecurityOrigin, creating: Bool) -> Int? {
        let (id, made) = state.withLock { state -> (Int?, Bool) in
            if let cache = state.origins[origin]?.caches[name] { return (cache.id, false) }
            guard creating else { return (nil, false) }
            let id = state.nextID
            state.nextID += 1
            state.origins[origin, default: Origin()].caches[name] = Cache(id: id)
            return (id, true)
        }
        if made { scheduleSave() }
        return id
    }

    /// Removes `origin`'s cache `name` from its names (kept for its `Cache` objects); whether
    /// there was one.
    func removeCache(_ name: String, forOrigin origin: SecurityOrigin) -> Bool {
        let removed = state.withLock { state in
            guard var stored = state.origins[origin], let cache = stored.caches.removeValue(forKey: name) else { return false }
            stored.deleted.append(cache)
            while stored.deleted.count > Self.keptDeletedCaches, stored.dropOldestDeleted(keeping: -1) {}
            state.origins[origin] = stored
            return true
        }
        if removed { scheduleSave() }
        return removed
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
        let (outcome, named) = state.withLock { state -> (Outcome, Bool) in
            guard var stored = state.origins[origin], var cache = stored.cache(id) else { return (.noCache, false) }
            let change =
                adding.reduce(0) { $0 + $1.body.count } - cache.entries.filter { removing.contains($0.id) }.reduce(0) { $0 + $1.body.count }
            // Deleted caches make room first.
            while stored.bytes + change > Self.quota, stored.dropOldestDeleted(keeping: id) {}
            guard stored.bytes + change <= Self.quota else { return (.overQuota, false) }
            cache.entries.removeAll { removing.contains($0.id) }
            for pair in adding {
                cache.entries.append(Entry(id: state.nextID, head: pair.head, body: pair.body))
                state.nextID += 1
            }
            stored.replace(cache)
            stored.bytes += change
            state.origins[origin] = stored
            return (.done, stored.caches.values.contains { $0.id == id })
        }
        // A deleted cache's pairs are not saved: only its `Cache` objects reach them.
        if named { scheduleSave() }
        return outcome
    }

    /// Removes every cache of every origin.
    public func removeAll() {
        state.withLock { $0.origins.removeAll() }
        scheduleSave()
    }

    // MARK: Saving

    private func scheduleSave() {
        file?.scheduleSave { [self] in Self.encoded(state.withLock { $0.origins }) }
    }

    /// The file's form: `{"version": 1, "origins": {"https://app.example": [[name, [[head,
    /// body], …]], …]}}`, the caches in the order they were made and their pairs in the order
    /// they were put; a head as the page's `Cache` keeps it (request URL, method, header
    /// fields; response status, status text, type, header fields, redirected, URL), a body in
    /// base64. Deleted caches are not saved.
    static func encoded(_ origins: [SecurityOrigin: Origin]) -> [UInt8] {
        var object: [String: Any] = [:]
        for (origin, stored) in origins where !stored.caches.isEmpty {
            object[origin.description] = stored.caches.map { name, cache -> [Any] in
                [name, cache.entries.map { [$0.head.map(Self.jsonObject), Data($0.body).base64EncodedString()] as [Any] }]
            }
        }
        let file: [String: Any] = ["version": 1, "origins": object]
        return (try? JSONSerialization.data(withJSONObject: file, options: [.sortedKeys])).map { Array($0) } ?? []
    }

    /// The caches a file holds, or nil when it is not one this store wrote (or holds more
    /// than an origin's quota).
    static func state(decoding data: Data) -> State? {
        guard let file = try? JSONSerialization.jsonObject(with: data) as? [String: Any], file["version"] as? Int == 1,
            let origins = file["origins"] as? [String: Any]
        else { return nil }
        var state = State()
        for (text, value) in origins {
            guard let origin = SecurityOrigin(text), let caches = value as? [Any] else { return nil }
            var stored = Origin()
            for cache in caches {
                guard let pair = cache as? [Any], pair.count == 2, let name = pair[0] as? String, stored.caches[name] == nil,
                    let entries = pair[1] as? [Any]
                else { return nil }
                var made = Cache(id: state.nextID)
                state.nextID += 1
                for entry in entries {
                    guard let parts = entry as? [Any], parts.count == 2, let head = (parts[0] as? [Any]).flatMap(Self.head),
                        let text = parts[1] as? String, let body = Data(base64Encoded: text)
                    else { return nil }
                    made.entries.append(Entry(id: state.nextID, head: head, body: Array(body)))
                    state.nextID += 1
                }
                stored.bytes += made.bytes
                stored.caches[name] = made
            }
            guard stored.bytes <= quota else { return nil }
            if !stored.caches.isEmpty { state.origins[origin] = stored }
        }
        return state
    }

    /// A head as the page's `Cache` reads it: request URL, method and header fields; response
    /// status, status text, type, header fields, whether it was redirected, and its URL.
    private static func head(_ values: [Any]) -> [ScriptValue]? {
        guard values.count == 9, let url = values[0] as? String, let method = values[1] as? String,
            let requestFields = fields(values[2]), let status = values[3] as? Int, let statusText = values[4] as? String,
            let type = values[5] as? String, let responseFields = fields(values[6]), let redirected = values[7] as? Bool,
            let responseURL = values[8] as? String
        else { return nil }
        return [
            .string(url), .string(method), requestFields, .number(Double(status)), .string(statusText), .string(type),
            responseFields, .bool(redirected), .string(responseURL),
        ]
    }

    /// Header fields as `[[name, value], …]`.
    private static func fields(_ value: Any) -> ScriptValue? {
        guard let pairs = value as? [[String]], pairs.allSatisfy({ $0.count == 2 }) else { return nil }
        return .array(pairs.map { .array($0.map(ScriptValue.string)) })
    }

    /// A head's member as JSON: strings, numbers, Booleans and arrays of them.
    private static func jsonObject(_ value: ScriptValue) -> Any {
        switch value {
        case .bool(let bool): bool
        case .number(let number): number.rounded() == number && abs(number) < 1e15 ? Int(number) as Any : number
        case .string(let string): string
        case .array(let elements): elements.map(jsonObject)
        default: NSNull()
        }
    }
}
