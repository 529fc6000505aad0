import Foundation
import SessionBridgeCookies
import SessionBridgeMessaging
import SessionBridgeTesting
import Synchronization

@testable import SessionBridgeHeadless

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
