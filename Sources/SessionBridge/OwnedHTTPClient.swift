package import AsyncHTTPClient
import Synchronization

/// An AsyncHTTPClient pool with one owner, closed by the owner's ``shutdown()`` or, failing that,
/// when it is dropped.
///
/// AsyncHTTPClient stops a debug build whose client was never shut down; an owner that drops
/// its pool on an error thrown before `shutdown()` must not end the process for it.
package final class OwnedHTTPClient: Sendable {
    /// The pool.
    package let client: HTTPClient
    /// Whether ``shutdown()`` has begun closing the connections.
    private let isShutDown = Atomic<Bool>(false)

    /// Creates a pool of its own, on the shared event loops.
    package init(configuration: HTTPClient.Configuration) {
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Closes the connections; a second call does nothing.
    package func shutdown() async throws {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try await client.shutdown()
    }

    deinit {
        // The pool keeps itself alive until its connections are closed.
        if !isShutDown.load(ordering: .acquiring) { _ = client.shutdown() }
    }
}
