import Foundation
public import SessionBridgeHeadless
public import SessionBridgeMessaging
public import SessionBridgeScriptEngine
import Synchronization

/// Keeps what a `WebPage` reported, safely from any thread, for assertions: pass ``handler``
/// as the page's `eventHandler`.
///
/// ```swift
/// let recorder = PageEventRecorder()
/// let page = WebPage(configuration: configuration, eventHandler: recorder.handler)
/// try await page.load(url)
/// #expect(recorder.exchanges.map(\.statusCode) == [200])
/// ```
public final class PageEventRecorder: Sendable {
    private let storage = Mutex<(events: [PageEvent], observers: [@Sendable (PageEvent) -> Void], consoleBytes: Int)>(([], [], 0))

    /// How much console text the recorder keeps in all; past it, a console line is kept as
    /// its level and length only (observers still see every line whole).
    public static let maxConsoleBytes = 16 << 20

    /// Creates an empty recorder.
    public init() {}

    /// Records an event and passes it to the observers.
    public func record(_ event: PageEvent) {
        let observers = storage.withLock { state in
            if case .console(var message, let url) = event {
                let bytes = message.text.utf8.count
                if state.consoleBytes + bytes > Self.maxConsoleBytes {
                    message.text = "<\(bytes) bytes of console text not kept>"
                } else {
                    state.consoleBytes += bytes
                }
                state.events.append(.console(message, url: url))
            } else {
                state.events.append(event)
            }
            return state.observers
        }
        for observer in observers { observer(event) }
    }

    /// ``record(_:)`` as a page's event handler.
    public var handler: @Sendable (PageEvent) -> Void { { event in self.record(event) } }

    /// Calls `observer` with every event recorded from now on.
    public func observe(_ observer: @escaping @Sendable (PageEvent) -> Void) {
        storage.withLock { $0.observers.append(observer) }
    }

    /// Every event so far, oldest first.
    public var events: [PageEvent] { storage.withLock { $0.events } }

    /// The HTTP exchanges so far.
    public var exchanges: [HTTPExchange] {
        events.compactMap { if case .http(let exchange) = $0 { return exchange } else { return nil } }
    }

    /// The script errors so far.
    public var scriptErrors: [ScriptError] {
        events.compactMap { if case .scriptError(let error, _, _) = $0 { return error } else { return nil } }
    }

    /// The console lines so far.
    public var consoleLines: [String] {
        events.compactMap { if case .console(let message, _) = $0 { return message.text } else { return nil } }
    }

    /// Every string that reached `page`'s scripts or its observers: the recorded console lines
    /// and errors, the bodies and replies of `bridgeCalls`, and the page's `document.cookie`.
    public func stringsSeenByPage(_ page: WebPage, bridgeCalls: [MessageLog.Entry]) async -> [String] {
        var strings: [String] = []
        for event in events {
            switch event {
            case .console(let message, _): strings.append(message.text)
            case .scriptError(let error, _, _): strings += [error.name, error.message, error.stack ?? ""]
            default: break
            }
        }
        for entry in bridgeCalls {
            entry.body.forEachString { strings.append($0) }
            if case .replied(let value) = entry.outcome { value.forEachString { strings.append($0) } }
            if case .rejected(_, let message) = entry.outcome { strings.append(message) }
        }
        if let cookie = try? await page.evaluateJavaScript("document.cookie").stringValue { strings.append(cookie) }
        return strings
    }
}
