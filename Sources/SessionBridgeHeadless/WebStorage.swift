public import Foundation
import OrderedCollections
import SessionBridgeCookies
public import SessionBridgeMessaging
import Synchronization

/// The key–value pairs of a page's `localStorage` or `sessionStorage` (HTML's Web Storage), one
/// storage area per origin.
///
/// A ``WebsiteDataStore``'s ``WebsiteDataStore/localStorage`` is shared by every page using the
/// store; a ``WebPage``'s ``WebPage/sessionStorage`` lasts as long as the page, across its
/// navigations. Each area holds at most ``quota`` bytes, counted as WebKit counts them (a key or
/// value whose characters are all Latin-1 a byte a character, another two bytes a UTF-16 code
/// unit, as WebKit keeps its strings); a write past it is refused with a `QuotaExceededError`,
/// and the area is left as it was.
///
/// A page's change to an origin's area fires `storage` at the other pages observing it (each
/// committed document's page world observes its data store's `localStorage`).
///
/// A page's key or value holding a lone UTF-16 surrogate, which a Swift `String` cannot hold,
/// is kept here in the pages' own encoding of it (U+FDD0, then its units, each lone surrogate
/// as U+FDD1 and a private-use character); pages read it back as they wrote it.
///
/// Storage made with a file (a persistent data store's `localStorage`) is loaded from it and
/// saved to it crash-safely after each change, behind the page that made it (``flush()`` waits
/// for the writes); the rest lives in memory.
public final class WebStorage: Sendable {
    /// The bytes one origin's area may hold: 5 MB, as in WebKit.
    public static let quota = 5 * 1024 * 1024

    private let areas = Mutex<[SecurityOrigin: Area]>([:])
    /// The file this storage is saved to, if any.
    public let fileURL: URL?
    /// Why the file could not be read when the storage was made (it was then kept aside as
    /// `<file>.corrupt` and the storage started empty), or nil.
    public let loadWarning: String?
    /// The last failed save (the storage kept its items in memory), or nil.
    public var saveError: String? { file?.saveError }
    private let file: SavedFile?
    /// The documents told of changes made by others (`storage` events), by an id of each.
    private let observers = Mutex<[ObjectIdentifier: (origin: SecurityOrigin, notify: @Sendable (Change) -> Void)]>([:])

    /// A change one document made, for the `storage` events of the others.
    struct Change: Sendable {
        /// The key, nil for `clear()`.
        let key: String?
        let oldValue: String?
        let newValue: String?
        /// The URL of the document that made it.
        let url: String
    }

    struct Area: Sendable {
        var items: OrderedDictionary<String, String> = [:]
        var bytes = 0
    }

    /// Storage in memory only.
    public init() {
        fileURL = nil
        loadWarning = nil
        self.file = nil
    }

    /// Storage saved to `file`: loaded from it now if it exists.
    public init(file: URL) {
        fileURL = file
        self.file = SavedFile(url: file, label: "sessionbridge.webstorage.save")
        let (loaded, warning) = SavedFile.load(file, what: "the storage starts", decode: Self.areas(decoding:))
        if let loaded { areas.withLock { $0 = loaded } }
        loadWarning = warning
    }

    /// The origin whose area a document at `url` uses, or nil for a document that has none (an
    /// opaque origin: `about:`, `data:`, `file:`; its scripts get a `SecurityError`).
    public static func origin(of url: URL) -> SecurityOrigin? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        return SecurityOrigin(url: url)
    }

    /// The origins whose areas hold pairs.
    public var origins: [SecurityOrigin] {
        areas.withLock { $0.keys.sorted { $0.description < $1.description } }
    }

    /// The pairs `origin`'s area holds, in the order they were first set.
    public func items(forOrigin origin: SecurityOrigin) -> [(key: String, value: String)] {
        areas.withLock { $0[origin]?.items.elements.map { (key: $0.key, value: $0.value) } ?? [] }
    }

    /// The value stored under `key`, or nil.
    public func item(_ key: String, forOrigin origin: SecurityOrigin) -> String? {
        areas.withLock { $0[origin]?.items[key] }
    }

    /// Stores `value` under `key`; false when the area would exceed ``quota`` (nothing changes).
    @discardableResult
    public func setItem(_ value: String, forKey key: String, origin: SecurityOrigin) -> Bool {
        setItem(value, forKey: key, origin: origin, by: nil)
    }

    /// ``setItem(_:forKey:origin:)`` for a document (`by`, with its URL): the other documents
    /// observing the origin are told of a change.
    func setItem(_ value: String, forKey key: String, origin: SecurityOrigin, by document: (id: ObjectIdentifier, url: URL)?) -> Bool {
        let outcome = areas.withLock { areas -> (stored: Bool, old: String?) in
            var area = areas[origin] ?? Area()
            let previous = area.items[key]
            if previous == value { return (true, value) }
            let old = previous.map { Self.size(key, $0) } ?? 0
            let bytes = area.bytes - old + Self.size(key, value)
            guard bytes <= Self.quota else { return (false, previous) }
            area.items[key] = value
            area.bytes = bytes
            areas[origin] = area
            return (true, previous)
        }
        guard outcome.stored, outcome.old != value else { return outcome.stored }
        scheduleSave()
        report(Change(key: key, oldValue: outcome.old, newValue: value, url: document?.url.absoluteString ?? ""), origin, by: document?.id)
        return true
    }

    /// Removes the pair stored under `key`, if any.
    public func removeItem(_ key: String, forOrigin origin: SecurityOrigin) {
        removeItem(key, forOrigin: origin, by: nil)
    }

    func removeItem(_ key: String, forOrigin origin: SecurityOrigin, by document: (id: ObjectIdentifier, url: URL)?) {
        let removed = areas.withLock { areas -> String? in
            guard var area = areas[origin], let old = area.items.removeValue(forKey: key) else { return nil }
            area.bytes -= Self.size(key, old)
            areas[origin] = area.items.isEmpty ? nil : area
            return old
        }
        guard let removed else { return }
        scheduleSave()
        report(Change(key: key, oldValue: removed, newValue: nil, url: document?.url.absoluteString ?? ""), origin, by: document?.id)
    }

    /// Empties `origin`'s area.
    public func removeItems(forOrigin origin: SecurityOrigin) {
        removeItems(forOrigin: origin, by: nil)
    }

    func removeItems(forOrigin origin: SecurityOrigin, by document: (id: ObjectIdentifier, url: URL)?) {
        guard areas.withLock({ $0.removeValue(forKey: origin) }) != nil else { return }
        scheduleSave()
        report(Change(key: nil, oldValue: nil, newValue: nil, url: document?.url.absoluteString ?? ""), origin, by: document?.id)
    }

    // MARK: Storage events

    /// Tells `notify` of each change to `origin`'s area that another document (or native code)
    /// makes, until ``stopObserving(_:)`` with the same `id`.
    func observe(_ origin: SecurityOrigin, as id: ObjectIdentifier, notify: @escaping @Sendable (Change) -> Void) {
        observers.withLock { $0[id] = (origin, notify) }
    }

    func stopObserving(_ id: ObjectIdentifier) {
        observers.withLock { _ = $0.removeValue(forKey: id) }
    }

    private func report(_ change: Change, _ origin: SecurityOrigin, by source: ObjectIdentifier?) {
        let told = observers.withLock { $0.filter { $0.key != source && $0.value.origin == origin }.map(\.value.notify) }
        for notify in told { notify(change) }
    }

    /// Empties every area.
    public func removeAll() {
        areas.withLock { $0.removeAll() }
        scheduleSave()
    }

    /// Waits for the saves of the changes made so far.
    public func flush() {
        file?.flush()
    }

    /// How many pairs `origin`'s area holds.
    func count(forOrigin origin: SecurityOrigin) -> Int {
        areas.withLock { $0[origin]?.items.count ?? 0 }
    }

    /// The key at `index` in `origin`'s area, or nil.
    func key(at index: Int, forOrigin origin: SecurityOrigin) -> String? {
        areas.withLock { areas in
            guard let items = areas[origin]?.items, index >= 0, index < items.count else { return nil }
            return items.keys[index]
        }
    }

    /// Gives `other` a copy of `origin`'s area: a window a page opens starts with a copy of
    /// the page's session storage.
    func copyItems(forOrigin origin: SecurityOrigin, to other: WebStorage) {
        guard let area = areas.withLock({ $0[origin] }) else { return }
        other.areas.withLock { $0[origin] = area }
        other.scheduleSave()
    }

    // MARK: Saving

    /// Saves the areas behind the caller: one write for the changes made until it starts.
    private func scheduleSave() {
        file?.scheduleSave { [self] in Self.encoded(areas.withLock { $0 }) }
    }

    /// The file's form: `{"version": 1, "origins": {"https://app.example": [[key, value], ...]}}`,
    /// each origin's pairs in the order they were first set.
    static func encoded(_ areas: [SecurityOrigin: Area]) -> [UInt8] {
        var origins: [String: [[String]]] = [:]
        for (origin, area) in areas { origins[origin.description] = area.items.elements.map { [$0.key, $0.value] } }
        let object: [String: Any] = ["version": 1, "origins": origins]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map { Array($0) } ?? []
    }

    static func areas(decoding data: Data) -> [SecurityOrigin: Area]? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], object["version"] as? Int == 1,
            let origins = object["origins"] as? [String: Any]
        else { return nil }
        var areas: [SecurityOrigin: Area] = [:]
        for (text, value) in origins {
            guard let origin = SecurityOrigin(text), let pairs = value as? [[String]] else { return nil }
            var area = Area()
            for pair in pairs {
                guard pair.count == 2 else { return nil }
                area.items[pair[0]] = pair[1]
                area.bytes += size(pair[0], pair[1])
            }
            guard area.bytes <= quota else { return nil }
            if !area.items.isEmpty { areas[origin] = area }
        }
        return areas
    }

    private static func size(_ key: String, _ value: String) -> Int {
        bytes(key) + bytes(value)
    }

    /// A string's bytes as WebKit holds it: one a character when all are Latin-1, else two a
    /// UTF-16 code unit.
    private static func bytes(_ text: String) -> Int {
        var units = 0
        var wide = false
        for unit in text.utf16 {
            units += 1
            if unit > 0xFF { wide = true }
        }
        return wide ? units * 2 : units
    }
}
