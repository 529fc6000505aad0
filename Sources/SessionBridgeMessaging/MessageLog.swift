public import Foundation
public import SessionBridgeScriptEngine
import Synchronization

/// A bounded record of every bridge call: name, world, origin, timing and outcome, with values
/// redacted by a ``RedactionPolicy``.
public final class MessageLog: Sendable {
    /// How a call ended.
    public enum Outcome: Sendable, Hashable {
        /// Delivered to a handler without reply.
        case delivered
        /// Resolved with this (redacted) value.
        case replied(ScriptValue)
        /// Rejected with this code and public message.
        case rejected(code: String, message: String)
        /// Refused before reaching a handler (body not cloneable, origin not allowed, overload).
        case refused(code: String, message: String)
    }

    /// One call.
    public struct Entry: Sendable, Hashable {
        public var name: String
        public var world: ContentWorld
        public var origin: String
        public var body: ScriptValue
        public var outcome: Outcome
        public var started: Date
        public var duration: Duration
    }

    /// The policy that hides secrets before anything is stored.
    public let redaction: RedactionPolicy
    /// How many entries are kept (oldest dropped first); 0 keeps none (``totalCount`` and the
    /// observers still see every call).
    public let capacity: Int
    private let storage = Mutex(Ring())
    private let observers = Mutex<[@Sendable (Entry) -> Void]>([])
    private let hasObservers = Atomic<Bool>(false)
    /// Wall-clock time of `origin`, so entries get dates without a system call each.
    private let originDate = Date()
    private let origin = ContinuousClock.now

    /// Creates a log keeping the last `capacity` calls (a negative capacity keeps none).
    public init(capacity: Int = 1000, redaction: RedactionPolicy = .default) {
        self.capacity = max(0, capacity)
        self.redaction = redaction
    }

    /// The kept entries, oldest first.
    public var entries: [Entry] {
        let records = storage.withLock { ring in
            ring.next == 0 ? ring.records : Array(ring.records[ring.next...] + ring.records[..<ring.next])
        }
        return records.map(entry)
    }

    /// How many calls were recorded in all, dropped ones included.
    public var totalCount: Int { storage.withLock { $0.total } }

    /// Calls `observer` with every entry from now on.
    public func observe(_ observer: @escaping @Sendable (Entry) -> Void) {
        observers.withLock { $0.append(observer) }
        hasObservers.store(true, ordering: .releasing)
    }

    /// The kept records: appended until the log holds ``capacity`` of them; from then on each
    /// new one takes the place of the oldest, at `next`, moved in with no copy, and the one it
    /// replaces moved out.
    private struct Ring {
        var records: [Record] = []
        /// Where the next record goes once the ring is full: the oldest one.
        var next = 0
        /// Every call recorded, dropped ones included.
        var total = 0
    }

    /// A call as stored: redacted at once, but its date and the entry's copies of the route's
    /// strings made only when someone reads it (a call is recorded far more often than read).
    private struct Record {
        let route: ScriptMessage.Route
        let body: ScriptValue
        let outcome: Outcome
        let started: ContinuousClock.Instant
        let duration: Duration
    }

    /// Records a call to the handler and from the frame of `route`.
    package func record(_ route: ScriptMessage.Route, body: ScriptValue, outcome: Outcome, started: ContinuousClock.Instant) {
        var record = Record(
            route: route, body: redaction.redact(body), outcome: redacted(outcome), started: started,
            duration: .now - started)
        let observed = hasObservers.load(ordering: .acquiring) ? entry(record) : nil
        let capacity = self.capacity
        storage.withLock { ring in
            ring.total += 1
            guard capacity > 0 else { return }
            guard ring.records.count == capacity else { return ring.records.append(record) }
            // The oldest record is swapped out into `record` and released after the lock:
            // freeing its values (recorded `capacity` calls earlier, so out of the cache) was
            // half of the log's time inside it.
            swap(&ring.records[ring.next], &record)
            ring.next = ring.next + 1 == capacity ? 0 : ring.next + 1
        }
        guard let observed else { return }
        for observer in observers.withLock({ $0 }) { observer(observed) }
    }

    private func entry(_ record: Record) -> Entry {
        Entry(
            name: record.route.name, world: record.route.world, origin: record.route.origin, body: record.body,
            outcome: record.outcome, started: originDate + (record.started - origin).timeInterval, duration: record.duration)
    }

    private func redacted(_ outcome: Outcome) -> Outcome {
        if case .replied(let value) = outcome { return .replied(redaction.redact(value)) }
        return outcome
    }
}

extension Duration {
    /// Seconds, as one division of two durations (splitting into `components` divides a
    /// 128-bit count, a visible part of the log's cost per call).
    var timeInterval: TimeInterval { self / .seconds(1) }
}
