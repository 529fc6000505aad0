import Synchronization

/// The blob URLs a data store's documents and workers made (the File API's blob URL store), so
/// that the origin's other contexts read them too, as WebKit's network process keeps them for
/// all of a web process's contexts: a worker fetches a URL its page made, and the page one its
/// worker made. A URL goes when it is revoked or when the context that made it ends; each
/// context still reads its own from its own list first.
final class BlobURLRegistry: Sendable {
    /// A registered URL's contents.
    struct Entry: Sendable {
        var bytes: [UInt8]
        var type: String
        /// The context that made it (its document or worker).
        var owner: ObjectIdentifier
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
    }

    private let state = Mutex(State())

    /// The most bytes a store's registered URLs hold together; a URL made past it reads only
    /// in its own context.
    static let maximumBytes = 256 << 20

    /// Registers `url`; `false` when that would pass ``maximumBytes``.
    func register(_ url: String, bytes: [UInt8], type: String, owner: ObjectIdentifier) -> Bool {
        state.withLock { state in
            let replaced = state.entries[url]?.bytes.count ?? 0
            guard state.bytes - replaced + bytes.count <= Self.maximumBytes else { return false }
            state.entries[url] = Entry(bytes: bytes, type: type, owner: owner)
            state.bytes += bytes.count - replaced
            return true
        }
    }

    /// The contents of `url`, if it is registered.
    func entry(_ url: String) -> Entry? {
        state.withLock { $0.entries[url] }
    }

    /// Removes `url` (`URL.revokeObjectURL`).
    func revoke(_ url: String) {
        state.withLock { state in
            if let entry = state.entries.removeValue(forKey: url) { state.bytes -= entry.bytes.count }
        }
    }

    /// Removes the URLs `owner` made: its context ended.
    func removeAll(ownedBy owner: ObjectIdentifier) {
        state.withLock { state in
            state.entries = state.entries.filter { _, entry in
                if entry.owner != owner { return true }
                state.bytes -= entry.bytes.count
                return false
            }
        }
    }

    /// How many URLs are registered (for tests).
    var count: Int { state.withLock { $0.entries.count } }
}

/// Marks a context that registered a blob URL: its URLs are removed when it closes.
final class BlobURLOwner {}
