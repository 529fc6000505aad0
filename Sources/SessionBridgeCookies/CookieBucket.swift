import Foundation

/// The cookies of one domain in a ``CookieJar``, in the order they were stored, with an index
/// from identity to position: setting a cookie finds the one it replaces with one hash lookup
/// instead of comparing it with every cookie of the domain (up to the per-domain limit).
///
/// Every change goes through this type, so the index always maps each stored cookie's
/// identity to its position, and nothing else.
struct CookieBucket {
    /// A cookie's identity within one domain (the domain is the bucket's): name, host-only
    /// flag, path and partition key, as ``Cookie/hasSameIdentity(as:)`` compares them.
    struct Identity: Hashable {
        var name: String
        var path: String
        var isHostOnly: Bool
        var partitionKey: String?

        init(_ cookie: Cookie) {
            name = cookie.name
            path = cookie.path
            isHostOnly = cookie.isHostOnly
            partitionKey = cookie.partitionKey
        }

        /// Hashes the name alone: within one domain, cookies sharing a name are few, and
        /// equality still compares every field.
        func hash(into hasher: inout Hasher) {
            hasher.combine(name)
        }
    }

    /// The domain's cookies, oldest stored first.
    private(set) var entries: [CookieJar.Entry] = []
    /// Identity → index in ``entries``.
    private var positions: [Identity: Int] = [:]

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    /// The position of the stored cookie with the identity of `cookie`.
    func index(of cookie: Cookie) -> Int? {
        positions.isEmpty ? nil : positions[Identity(cookie)]
    }

    /// Adds a cookie whose identity is not in the bucket.
    mutating func append(_ entry: CookieJar.Entry) {
        positions[Identity(entry.cookie)] = entries.count
        entries.append(entry)
    }

    /// Overwrites the cookie at `index` with one of the same identity, and returns the one it
    /// replaced. With `keepingCreationTime`, the stored cookie takes the replaced one's
    /// creation time (the storage model's step for a replaced cookie).
    mutating func exchangeCookie(at index: Int, with cookie: consuming Cookie, keepingCreationTime: Bool = false) -> Cookie {
        if keepingCreationTime { cookie.creationTime = entries[index].cookie.creationTime }
        swap(&entries[index].cookie, &cookie)
        return cookie
    }

    /// Sets the last-access time of the cookie at `index`.
    mutating func touch(at index: Int, now: Date) {
        entries[index].cookie.lastAccessTime = now
    }

    /// Removes the cookie at `index`; the later ones move down by one.
    @discardableResult
    mutating func remove(at index: Int) -> CookieJar.Entry {
        let removed = entries.remove(at: index)
        positions[Identity(removed.cookie)] = nil
        if index < entries.count { positions = positions.mapValues { $0 > index ? $0 - 1 : $0 } }
        return removed
    }

    /// Removes every cookie `shouldRemove` picks, keeping the order of the others.
    mutating func removeAll(where shouldRemove: (CookieJar.Entry) throws -> Bool) rethrows {
        let before = entries.count
        try entries.removeAll(where: shouldRemove)
        guard entries.count != before else { return }
        positions.removeAll(keepingCapacity: true)
        for (i, entry) in entries.enumerated() { positions[Identity(entry.cookie)] = i }
    }

    /// Whether the index maps exactly each stored cookie's identity to its position.
    var isConsistent: Bool {
        guard positions.count == entries.count else { return false }
        return entries.indices.allSatisfy { positions[Identity(entries[$0].cookie)] == $0 }
    }
}
