import DequeModule
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
    private let storage = Mutex<(records: Deque<Record>, total: Int)>((Deque(), 0))
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
        let records = storage.withLock { Array($0.records) }
        return records.map(entry)
    }

    /// How many calls were recorded in all, dropped ones included.
    public var totalCount: Int { storage.withLock { $0.total } }

    /// Calls `observer` with every entry from now on.
    public func observe(_ observer: @escaping @Sendable (Entry) -> Void) {
        observers.withLock { $0.append(observer) }
        hasObservers.store(true, ordering: .releasing)
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
    func record(_ route: ScriptMessage.Route, body: ScriptValue, outcome: Outcome, started: ContinuousClock.Instant) {
        let record = Record(
            route: route, body: redaction.redact(body), outcome: redacted(outcome), started: started,
            duration: .now - started)
        // The record dropped is released after the lock: freeing its values (recorded a
        // thousand calls earlier, so out of the cache) was half of the log's time inside it.
        let dropped = storage.withLock { storage -> Record? in
            storage.total += 1
            guard capacity > 0 else { return nil }
            let dropped = storage.records.count >= capacity ? storage.records.removeFirst() : nil
            storage.records.append(record)
            return dropped
        }
        withExtendedLifetime(dropped) {}
        guard hasObservers.load(ordering: .acquiring) else { return }
        let entry = entry(record)
        for observer in observers.withLock({ $0 }) { observer(entry) }
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
