import Synchronization

/// The process's resident memory, in bytes, past which a script is ended with
/// ``ScriptError/Kind/memoryLimitExceeded`` (``ScriptContext/Configuration/memoryLimit``).
///
/// Contexts given the same limit share it: one raised with ``raise(to:)`` holds for each of
/// them from its next entry into JavaScript, whenever the context was made. A headless page
/// gives one to all its documents, the next ones made ahead included, and to its workers.
public final class MemoryLimit: Sendable {
    private let storage: Atomic<UInt64>

    /// A limit of `bytes` (at least 1).
    public init(bytes: Int) {
        storage = Atomic(UInt64(max(1, bytes)))
    }

    /// The limit now, in bytes.
    public var bytes: Int { Int(clamping: storage.load(ordering: .relaxed)) }

    /// Raises the limit to `bytes`; a lower figure leaves it as it is.
    public func raise(to bytes: Int) {
        storage.max(UInt64(max(1, bytes)), ordering: .relaxed)
    }
}
