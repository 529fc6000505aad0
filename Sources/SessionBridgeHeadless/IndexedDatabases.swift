public import Foundation
import SessionBridgeCookies
public import SessionBridgeMessaging
import Synchronization

/// The pages' IndexedDB databases (the Indexed Database API), one set per origin, shared by
/// every page using a ``WebsiteDataStore``.
///
/// The headless engine keeps each database as one whole: its version and its state (object
/// stores, indexes, records) in the form the page's `indexedDB` reads and writes
/// (``WebPlatformPrelude/indexedDBSource``). A page loads a database when it opens it and again
/// when another document has committed to it since; a transaction that changed something saves
/// the whole database when it commits. One that commits after another page committed makes its
/// changes again on the newest state, so neither page's are lost. Two pages' transactions over
/// the same object store wait for each other as WebKit's do: a `readwrite` one runs alone, and
/// reads what the other page committed before it. An upgrade or a deletion in one page waits
/// until the store's other pages have closed their connections.
///
/// `CryptoKey`s stored in a database are kept here with their description
/// (``StoredCryptoKey``), by origin, and saved with the databases; the states refer to them by
/// id. The material is saved as it is, in the file the profile's cookies sit beside (mode
/// `0600`): WebKit wraps it with a key of the user's keyring first.
///
/// An origin's databases hold at most ``quota`` bytes (UTF-16 code units of their state, two
/// bytes each); a commit past it fails with a `QuotaExceededError` and changes nothing. A
/// persistent store's databases are saved next to its cookies (`<profile>.indexeddb`),
/// crash-safely, behind the page that committed.
public final class IndexedDatabases: Sendable {
    /// The bytes one origin's databases may hold: 64 MB.
    public static let quota = 64 * 1024 * 1024

    /// One database as stored: its version, its state, and how many commits it has seen in
    /// this process (a document's copy is current while the count is the one it read).
    struct Stored: Sendable {
        var version: Int
        var state: String
        var generation: Int
        /// What the quota counts of it (its name's and its state's UTF-16 code units, two bytes each).
        var bytes: Int
    }

    private let origins = Mutex<Contents>(Contents())

    /// The databases by origin, and the material of the `CryptoKey`s their states refer to
    /// (``StoredCryptoKey``), by origin and id.
    struct Contents {
        var databases: [SecurityOrigin: [String: Stored]] = [:]
        var keys: [SecurityOrigin: [String: StoredCryptoKey]] = [:]
        var generation = 0
        /// How many times every database was deleted at once (``removeAll()``), and each
        /// database by an app (``deleteDatabase(_:forOrigin:)``): a connection opened before
        /// is closed, and its transactions commit nothing (see ``epoch(of:forOrigin:)``).
        var clearings = 0
        var deletions: [ConnectionKey: Int] = [:]

        func epoch(of name: String, forOrigin origin: SecurityOrigin) -> Int {
            clearings &+ deletions[ConnectionKey(origin: origin, name: name), default: 0]
        }
    }
    /// The open connections to each database, by the script context (a document's world) that
    /// holds them: an upgrade or a deletion in one document waits until the others have closed
    /// theirs, as across WebKit's pages.
    private let connections = Mutex<[ConnectionKey: [ObjectIdentifier: Int]]>([:])

    struct ConnectionKey: Hashable, Sendable {
        let origin: SecurityOrigin
        let name: String
    }

    /// The object stores the documents' running transactions hold: a `readwrite` transaction
    /// holds its stores alone, `readonly` ones share theirs, so a transaction of one page waits
    /// for another page's over the same stores, as across WebKit's pages.
    private let storeLocks = Mutex<[StoreKey: StoreLock]>([:])

    struct StoreKey: Hashable, Sendable {
        let origin: SecurityOrigin
        let name: String
        let store: String
    }

    struct StoreLock: Sendable {
        /// The holder writing, and how many of its transactions are.
        var writer: ObjectIdentifier? = nil
        var writes = 0
        /// The holders reading, with how many transactions each.
        var readers: [ObjectIdentifier: Int] = [:]
        /// Whether a holder was refused since the lock was last let go.
        var contended = false

        var isFree: Bool { writer == nil && readers.isEmpty }

        func admits(_ holder: ObjectIdentifier, exclusive: Bool) -> Bool {
            guard writer == nil || writer == holder else { return false }
            return !exclusive || readers.keys.allSatisfy { $0 == holder }
        }
    }
    /// The file these databases are saved to, if any.
    public let fileURL: URL?
    /// Why the file could not be read when the databases were made (it was then kept aside as
    /// `<file>.corrupt` and the store started empty), or nil.
    public let loadWarning: String?
    /// The last failed save (the databases were kept in memory), or nil.
    public var saveError: String? { file?.saveError }
    private let file: SavedFile?

    /// Databases in memory only.
    public init() {
        fileURL = nil
        loadWarning = nil
        self.file = nil
    }

    /// Databases saved to `file`: loaded from it now if it exists.
    public init(file: URL) {
        fileURL = file
        self.file = SavedFile(url: file, label: "sessionbridge.indexeddb.save")
        let (loaded, warning) = SavedFile.load(file, what: "the databases start", decode: Self.contents(decoding:))
        if let loaded { origins.withLock { $0 = loaded } }
        loadWarning = warning
    }

    /// The origins that have databases.
    public var databaseOrigins: [SecurityOrigin] {
        origins.withLock { $0.databases.keys.sorted { $0.description < $1.description } }
    }

    /// The names and versions of `origin`'s databases, with the bytes each holds, sorted by name.
    public func databases(forOrigin origin: SecurityOrigin) -> [(name: String, version: Int, bytes: Int)] {
        origins.withLock {
            $0.databases[origin]?.map { (name: $0.key, version: $0.value.version, bytes: $0.value.bytes) } ?? []
        }
        .sorted { $0.name < $1.name }
    }

    /// `origin`'s database `name` as stored, or nil.
    func database(_ name: String, forOrigin origin: SecurityOrigin) -> Stored? {
        origins.withLock { $0.databases[origin]?[name] }
    }

    /// Which commit `origin`'s database `name` is at (-1 when there is none).
    func generation(of name: String, forOrigin origin: SecurityOrigin) -> Int {
        origins.withLock { $0.databases[origin]?[name]?.generation ?? -1 }
    }

    /// Stores a committed database; nil when the origin would exceed ``quota``, or when the
    /// database was deleted by the app since the committing connection was opened (its
    /// `epoch`, ``epoch(of:forOrigin:)``): nothing changes then. Else its new generation.
    func commit(_ name: String, version: Int, state: String, forOrigin origin: SecurityOrigin, epoch: Int? = nil) -> Int? {
        let generation = origins.withLock { all -> Int? in
            if let epoch, epoch != all.epoch(of: name, forOrigin: origin) { return nil }
            var databases = all.databases[origin] ?? [:]
            let others = databases.filter { $0.key != name }.reduce(0) { $0 + $1.value.bytes }
            let bytes = Self.size(name, state)
            guard others + bytes <= Self.quota else { return nil }
            all.generation += 1
            databases[name] = Stored(version: version, state: state, generation: all.generation, bytes: bytes)
            all.databases[origin] = databases
            return all.generation
        }
        if generation != nil { scheduleSave() }
        return generation
    }

    /// Deletes `origin`'s database `name`; whether there was one. The pages' connections open to
    /// it commit nothing from then on: a page's next transaction over it aborts, and the page
    /// closes them (a `close` event), as when all data is cleared.
    @discardableResult
    public func deleteDatabase(_ name: String, forOrigin origin: SecurityOrigin) -> Bool {
        removeDatabase(name, forOrigin: origin, endingConnections: true)
    }

    /// Deletes `origin`'s database `name`; whether there was one. A page's `deleteDatabase`
    /// runs once every connection to it has closed, so it ends none (`endingConnections`: false).
    func removeDatabase(_ name: String, forOrigin origin: SecurityOrigin, endingConnections: Bool) -> Bool {
        let removed = origins.withLock { all -> Bool in
            if endingConnections { all.deletions[ConnectionKey(origin: origin, name: name), default: 0] += 1 }
            guard all.databases[origin]?.removeValue(forKey: name) != nil else { return false }
            if all.databases[origin]?.isEmpty == true { all.databases[origin] = nil }
            return true
        }
        if removed { scheduleSave() }
        return removed
    }

    /// Counts a connection `holder` opened to `origin`'s database `name`.
    func connect(_ name: String, forOrigin origin: SecurityOrigin, holder: ObjectIdentifier) {
        connections.withLock { $0[ConnectionKey(origin: origin, name: name), default: [:]][holder, default: 0] += 1 }
    }

    /// Counts one of `holder`'s connections to `origin`'s database `name` closed.
    func disconnect(_ name: String, forOrigin origin: SecurityOrigin, holder: ObjectIdentifier) {
        connections.withLock { all in
            let key = ConnectionKey(origin: origin, name: name)
            guard let count = all[key]?[holder] else { return }
            all[key]?[holder] = count > 1 ? count - 1 : nil
            if all[key]?.isEmpty == true { all[key] = nil }
        }
    }

    /// Forgets every connection `holder` had open and lets go of the stores its transactions
    /// held (its document is gone).
    func release(_ holder: ObjectIdentifier) {
        connections.withLock { all in
            for key in Array(all.keys) {
                all[key]?[holder] = nil
                if all[key]?.isEmpty == true { all[key] = nil }
            }
        }
        storeLocks.withLock { locks in
            for key in Array(locks.keys) {
                if locks[key]?.writer == holder {
                    locks[key]?.writer = nil
                    locks[key]?.writes = 0
                }
                locks[key]?.readers[holder] = nil
                if locks[key]?.isFree == true { locks[key] = nil }
            }
        }
    }

    /// Takes `stores` of `origin`'s database `name` for a transaction of `holder`'s: alone
    /// (`exclusive`, a `readwrite` transaction) or shared with other readers. All or none:
    /// `false`, taking nothing, while another holder's transaction holds one of them so that
    /// they cannot be shared; the transaction then waits.
    func acquire(
        _ stores: [String], of name: String, forOrigin origin: SecurityOrigin, exclusive: Bool, holder: ObjectIdentifier
    ) -> Bool {
        storeLocks.withLock { locks in
            let keys = stores.map { StoreKey(origin: origin, name: name, store: $0) }
            var admitted = true
            for key in keys where !(locks[key]?.admits(holder, exclusive: exclusive) ?? true) {
                locks[key]?.contended = true
                admitted = false
            }
            guard admitted else { return false }
            for key in keys {
                if exclusive {
                    locks[key, default: StoreLock()].writer = holder
                    locks[key, default: StoreLock()].writes += 1
                } else {
                    locks[key, default: StoreLock()].readers[holder, default: 0] += 1
                }
            }
            return true
        }
    }

    /// Lets go of what ``acquire(_:of:forOrigin:exclusive:holder:)`` took; whether a
    /// transaction of another holder's was refused one of these stores meanwhile (and waits).
    func relinquish(
        _ stores: [String], of name: String, forOrigin origin: SecurityOrigin, exclusive: Bool, holder: ObjectIdentifier
    ) -> Bool {
        storeLocks.withLock { locks in
            var contended = false
            for store in stores {
                let key = StoreKey(origin: origin, name: name, store: store)
                guard var lock = locks[key] else { continue }
                if exclusive, lock.writer == holder {
                    lock.writes -= 1
                    if lock.writes <= 0 { lock.writer = nil; lock.writes = 0 }
                } else if !exclusive, let count = lock.readers[holder] {
                    lock.readers[holder] = count > 1 ? count - 1 : nil
                }
                if lock.isFree {
                    contended = contended || lock.contended
                    locks[key] = nil
                } else {
                    locks[key] = lock
                }
            }
            return contended
        }
    }

    /// How many connections to `origin`'s database `name` holders other than `holder` have open.
    func connections(to name: String, forOrigin origin: SecurityOrigin, besides holder: ObjectIdentifier) -> Int {
        connections.withLock { all in
            (all[ConnectionKey(origin: origin, name: name)] ?? [:]).reduce(0) { $0 + ($1.key == holder ? 0 : $1.value) }
        }
    }

    /// Deletes every database. The connections open to them are closed, as WebKit closes
    /// them (``WebsiteDataStore/removeAllData()`` tells their pages), and their transactions
    /// commit nothing.
    public func removeAll() {
        origins.withLock {
            $0.databases.removeAll()
            $0.keys.removeAll()
            $0.clearings += 1
        }
        scheduleSave()
    }

    /// Which deletion by the app `origin`'s database `name` is at (every database's
    /// ``removeAll()`` included); a connection remembers it when it opens.
    func epoch(of name: String, forOrigin origin: SecurityOrigin) -> Int {
        origins.withLock { $0.epoch(of: name, forOrigin: origin) }
    }

    /// Keeps a `CryptoKey` a page of `origin` stores in a database, and returns the id its
    /// state refers to it by.
    func storeKey(_ key: StoredCryptoKey, forOrigin origin: SecurityOrigin) -> String {
        let id = key.id
        let added = origins.withLock { all -> Bool in
            guard all.keys[origin]?[id] == nil else { return false }
            all.keys[origin, default: [:]][id] = key
            return true
        }
        if added { scheduleSave() }
        return id
    }

    /// `origin`'s stored key `id`, or nil.
    func storedKey(_ id: String, forOrigin origin: SecurityOrigin) -> StoredCryptoKey? {
        origins.withLock { $0.keys[origin]?[id] }
    }

    /// How many keys' material `origin`'s databases keep.
    var storedKeyCount: Int { origins.withLock { $0.keys.values.reduce(0) { $0 + $1.count } } }

    /// Waits for the saves of the commits made so far.
    public func flush() {
        file?.flush()
    }

    // MARK: Saving

    private func scheduleSave() {
        file?.scheduleSave { [self] in
            let (databases, keys) = origins.withLock { ($0.databases, $0.keys) }
            return Self.encoded(databases, keys)
        }
    }

    /// The file's form: `{"version": 1, "origins": {"https://app.example": {"name": [version, state]}},
    /// "keys": {"https://app.example": {"id": form}}}` (``StoredCryptoKey/form``).
    static func encoded(_ databases: [SecurityOrigin: [String: Stored]], _ keys: [SecurityOrigin: [String: StoredCryptoKey]]) -> [UInt8] {
        var origins: [String: [String: [Any]]] = [:]
        for (origin, named) in databases {
            origins[origin.description] = named.mapValues { [$0.version, $0.state] }
        }
        var object: [String: Any] = ["version": 1, "origins": origins]
        if !keys.isEmpty {
            var forms: [String: [String: [String: Any]]] = [:]
            for (origin, stored) in keys { forms[origin.description] = stored.mapValues(\.form) }
            object["keys"] = forms
        }
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map { Array($0) } ?? []
    }

    /// The file's contents; the keys no database refers to any more are left out (a key is
    /// kept while the process runs, since a page may hold a state that refers to it). A key
    /// whose form cannot be read is left out too, and the databases kept: reading a record
    /// that refers to it fails, the others read.
    static func contents(decoding data: Data) -> Contents? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let databases = databases(decoding: object)
        else { return nil }
        var contents = Contents(databases: databases)
        for (text, value) in object["keys"] as? [String: Any] ?? [:] {
            guard let origin = SecurityOrigin(text), let forms = value as? [String: Any] else { continue }
            let states = databases[origin]?.values.map(\.state) ?? []
            for (id, form) in forms where states.contains(where: { $0.contains(id) }) {
                if let key = StoredCryptoKey(form: form) { contents.keys[origin, default: [:]][id] = key }
            }
        }
        return contents
    }

    static func databases(decoding object: [String: Any]) -> [SecurityOrigin: [String: Stored]]? {
        guard object["version"] as? Int == 1, let origins = object["origins"] as? [String: Any] else { return nil }
        var databases: [SecurityOrigin: [String: Stored]] = [:]
        for (text, value) in origins {
            guard let origin = SecurityOrigin(text), let named = value as? [String: Any] else { return nil }
            var stored: [String: Stored] = [:]
            var bytes = 0
            for (name, entry) in named {
                guard let pair = entry as? [Any], pair.count == 2, let version = pair[0] as? Int, version >= 1,
                    let state = pair[1] as? String
                else { return nil }
                let counted = size(name, state)
                stored[name] = Stored(version: version, state: state, generation: 0, bytes: counted)
                bytes += counted
            }
            guard bytes <= quota else { return nil }
            if !stored.isEmpty { databases[origin] = stored }
        }
        return databases
    }

    private static func size(_ name: String, _ state: String) -> Int {
        (name.utf16.count + state.utf16.count) * 2
    }
}

/// Marks a script context whose connections ``IndexedDatabases`` counts, so that they are
/// forgotten once, when it closes.
final class IndexedDBConnectionsHeld: Sendable {}
