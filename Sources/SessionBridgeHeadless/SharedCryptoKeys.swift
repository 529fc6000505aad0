import Synchronization

/// The `CryptoKey`s documents send one another (a `BroadcastChannel`'s message, another
/// window's `postMessage`): the message's wire form refers to each by its id, and the
/// receiving document makes its key from what is kept here (``StoredCryptoKey``), so the
/// material never enters a JavaScript heap on the way.
///
/// Kept for the process, up to ``capacity`` keys, the oldest shared let go first: a message
/// read after its key was let go fails with a `messageerror`, as a message that cannot be
/// deserialized does.
final class SharedCryptoKeys: Sendable {
    /// The process's keys in flight between documents.
    static let shared = SharedCryptoKeys()

    /// How many keys are kept.
    static let capacity = 1024

    private let state = Mutex<(keys: [String: StoredCryptoKey], order: [String])>(([:], []))

    /// Keeps `key` and returns its id.
    func share(_ key: StoredCryptoKey) -> String {
        let id = key.id
        state.withLock { state in
            if state.keys.updateValue(key, forKey: id) != nil {
                state.order.removeAll { $0 == id }
            } else if state.order.count >= Self.capacity {
                state.keys[state.order.removeFirst()] = nil
            }
            state.order.append(id)
        }
        return id
    }

    /// The key shared as `id`, or nil.
    func key(_ id: String) -> StoredCryptoKey? {
        state.withLock { $0.keys[id] }
    }
}
