import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import Synchronization

/// WebKit's console lines for errors the reporter script reports too.
///
/// WebKit writes a line for each uncaught error (`TypeError: boom`) and unhandled rejection
/// (`Unhandled Promise Rejection: …`); the reporter script reports the same error with its
/// name and place, which the exit code counts. The two come through different channels, in
/// either order, so an error-level line of WebKit's waits up to ``webKitLineGrace`` for the
/// reporter's error with the same text and is left out when it comes: each error is printed
/// once.
struct AwaitedWebKitLines: Sendable {
    /// The texts of the reporter's errors whose WebKit line has not come yet, a list per error.
    var reported: [[String]] = []
    /// WebKit's error lines waiting for a reporter's error, oldest first, each with when it is due.
    var waiting: [(due: ContinuousClock.Instant, event: PageEvent, text: String)] = []
    /// Whether a task prints the waiting lines as they fall due (one at a time: a page that
    /// writes a million error lines makes no million tasks).
    var printing = false

    /// How many of either are kept at most (a page that throws faster than the lines come
    /// loses only the dedup, not a line).
    static let limit = 64
}

extension Transcript {
    /// How long an error-level line of WebKit's waits for the reporter's error before it is
    /// printed (the two came within milliseconds here; a loaded machine can hold one for longer).
    /// A run's end prints what still waits.
    static let webKitLineGrace = Duration.seconds(1)

    /// The texts WebKit writes for `error`.
    static func webKitTexts(for error: ScriptError, unhandledRejection: Bool) -> [String] {
        let prefix = unhandledRejection ? "Unhandled Promise Rejection: " : ""
        return [prefix + "\(error.name): \(error.message)", prefix + error.message]
    }

    /// Notes the reporter's `error`: WebKit's line for it, waiting or to come, is left out.
    func reporterReported(_ error: ScriptError, unhandledRejection: Bool) {
        let texts = Self.webKitTexts(for: error, unhandledRejection: unhandledRejection)
        awaitedWebKitLines.withLock { awaited in
            if let index = awaited.waiting.firstIndex(where: { texts.contains($0.text) }) {
                awaited.waiting.remove(at: index)
                return
            }
            awaited.reported.append(texts)
            if awaited.reported.count > AwaitedWebKitLines.limit { awaited.reported.removeFirst() }
        }
    }

    /// Prints an event of the WebKit view: an error-level console line once it is known not to
    /// repeat an error the reporter reports.
    func webKitEvent(_ event: PageEvent) {
        guard case .console(let message, _) = event, message.level == .error else { return page(event) }
        let (repeated, startPrinting, overflow) = awaitedWebKitLines.withLock { awaited -> (Bool, Bool, PageEvent?) in
            if let index = awaited.reported.firstIndex(where: { $0.contains(message.text) }) {
                awaited.reported.remove(at: index)
                return (true, false, nil)
            }
            awaited.waiting.append((.now + Self.webKitLineGrace, event, message.text))
            let overflow = awaited.waiting.count > AwaitedWebKitLines.limit ? awaited.waiting.removeFirst().event : nil
            let start = !awaited.printing
            awaited.printing = true
            return (false, start, overflow)
        }
        if let overflow { page(overflow) }
        guard !repeated, startPrinting else { return }
        Task {
            while let due = self.printDueWebKitLines() {
                try? await Task.sleep(until: due, clock: .continuous)
            }
        }
    }

    /// Prints the waiting lines that are due; returns when the next falls due, or `nil` (the
    /// printing task then ends) when none waits.
    private func printDueWebKitLines() -> ContinuousClock.Instant? {
        let now = ContinuousClock.now
        let (due, next) = awaitedWebKitLines.withLock { awaited -> ([PageEvent], ContinuousClock.Instant?) in
            let count = awaited.waiting.prefix { $0.due <= now }.count
            let due = awaited.waiting.prefix(count).map(\.event)
            awaited.waiting.removeFirst(count)
            let next = awaited.waiting.first?.due
            if next == nil { awaited.printing = false }
            return (due, next)
        }
        for event in due { page(event) }
        return next
    }

    /// Prints every waiting line: at the end of a run, before its summary.
    func printWaitingWebKitLines() {
        let due = awaitedWebKitLines.withLock { awaited in
            defer { awaited.waiting.removeAll() }
            return awaited.waiting.map(\.event)
        }
        for event in due { page(event) }
    }
}
