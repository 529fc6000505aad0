public import Foundation
import OrderedCollections
public import SessionBridgeMessaging
import Synchronization

/// The key–value pairs of a page's `localStorage` or `sessionStorage` (HTML's Web Storage), one
/// storage area per origin.
///
/// A ``WebsiteDataStore``'s ``WebsiteDataStore/localStorage`` is shared by every page using the
/// store; a ``WebPage``'s ``WebPage/sessionStorage`` lasts as long as the page, across its
/// navigations. Both live in memory. Each area holds at most ``quota`` bytes, counted as
/// WebKit counts them (UTF-16 code units of keys and values, two bytes each); a write past it is
/// refused with a `QuotaExceededError`, and the area is left as it was.
public final class WebStorage: Sendable {
    /// The bytes one origin's area may hold: 5 MB, as in WebKit.
    public static let quota = 5 * 1024 * 1024

    private let areas = Mutex<[SecurityOrigin: Area]>([:])

    struct Area: Sendable {
        var items: OrderedDictionary<String, String> = [:]
        var bytes = 0
    }

    public init() {}

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
        areas.withLock { areas in
            var area = areas[origin] ?? Area()
            let old = area.items[key].map { Self.size(key, $0) } ?? 0
            let bytes = area.bytes - old + Self.size(key, value)
            guard bytes <= Self.quota else { return false }
            area.items[key] = value
            area.bytes = bytes
            areas[origin] = area
            return true
        }
    }

    /// Removes the pair stored under `key`, if any.
    public func removeItem(_ key: String, forOrigin origin: SecurityOrigin) {
        areas.withLock { areas in
            guard var area = areas[origin], let old = area.items.removeValue(forKey: key) else { return }
            area.bytes -= Self.size(key, old)
            areas[origin] = area.items.isEmpty ? nil : area
        }
    }

    /// Empties `origin`'s area.
    public func removeItems(forOrigin origin: SecurityOrigin) {
        areas.withLock { _ = $0.removeValue(forKey: origin) }
    }

    /// Empties every area.
    public func removeAll() {
        areas.withLock { $0.removeAll() }
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
    }

    private static func size(_ key: String, _ value: String) -> Int {
        (key.utf16.count + value.utf16.count) * 2
    }
}
