import Foundation
import Synchronization
import Bridge
import Cookies
import SessionBridgeTesting
@testable import WebPage

/// Collects a page's events, safely from any thread.
final class EventRecorder: Sendable {
    private let storage = Mutex<[PageEvent]>([])
    var events: [PageEvent] { storage.withLock { $0 } }
    var handler: @Sendable (PageEvent) -> Void { { event in self.storage.withLock { $0.append(event) } } }

    var exchanges: [HTTPExchange] {
        events.compactMap { if case .http(let exchange) = $0 { return exchange } else { return nil } }
    }

    var scriptErrors: [ScriptError] {
        events.compactMap { if case .scriptError(let error, _, _) = $0 { return error } else { return nil } }
    }

    var consoleLines: [String] {
        events.compactMap { if case .console(let message, _) = $0 { return message.text } else { return nil } }
    }
}

/// A reference server for one test.
func withServer<T>(_ configuration: ReferenceServerConfiguration = .init(), _ body: (ReferenceServer) async throws -> T) async throws -> T {
    try await ReferenceServer.withRunning(configuration, body)
}

/// A value shared with closures that run on other threads.
final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value { storage.withLock { $0 } }
    func update(_ body: (inout Value) -> Void) { storage.withLock { body(&$0) } }
}
