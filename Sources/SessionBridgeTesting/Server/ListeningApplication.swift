import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A Hummingbird application run in a service group of its own, once it listens: the test
/// servers' shared start.
struct ListeningApplication: Sendable {
    let serviceGroup: ServiceGroup
    let task: Task<Void, any Error>
    let port: Int

    /// Makes the application with `make` (given the function its `onServerRunning` calls) and
    /// runs it until it listens; no signal handling, as the process that embeds it owns its
    /// signals.
    static func start(
        logger: Logger, _ make: (_ onServerRunning: @escaping @Sendable (any Channel) async -> Void) throws -> some Service
    ) async throws -> ListeningApplication {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let application = try make { channel in
            portContinuation.yield(channel.localAddress?.port ?? 0)
            portContinuation.finish()
        }
        let serviceGroup = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { portContinuation.finish() }
            try await serviceGroup.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            throw ReferenceServer.StartError.notListening
        }
        return ListeningApplication(serviceGroup: serviceGroup, task: task, port: port)
    }
}
