import Synchronization

/// The bytes of a document's `keepalive` request bodies in flight (beacons are such requests),
/// which the Fetch Standard keeps within 64 KB: a request that would pass it fails.
final class KeepaliveQuota: Sendable {
    static let limit = 65_536
    private let inFlight = Mutex(0)

    init() {}

    /// Takes `bytes` of the quota; `false` (and nothing taken) when they do not fit.
    func take(_ bytes: Int) -> Bool {
        inFlight.withLock { used in
            guard used + bytes <= Self.limit else { return false }
            used += bytes
            return true
        }
    }

    /// Gives back what a request that ended took.
    func give(_ bytes: Int) {
        inFlight.withLock { $0 = max(0, $0 - bytes) }
    }
}
