import AsyncHTTPClient
import SessionBridgeHeadless
import SessionBridgeTesting
import Synchronization

/// An HTTP client of the runner's own that trusts the embedded server's loopback certificate,
/// follows no redirects and fails a refused connection at once (as the session's default client
/// does).
///
/// It closes its connections when dropped without ``shutdown()``, as when a run ends early with
/// an error: AsyncHTTPClient stops a debug build whose client was never shut down, and the
/// runner must end with its own clear error instead.
final class LoopbackClient: Sendable {
    let client: HTTPClient
    private let isShutDown = Atomic<Bool>(false)

    init(trusting certificate: LoopbackCertificate) {
        var configuration = WebPage.defaultHTTPClientConfiguration
        configuration.tlsConfiguration = certificate.clientTLS
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Closes the connections; a second call does nothing.
    func shutdown() async {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try? await client.shutdown()
    }

    deinit {
        // The pool keeps itself alive until its connections are closed.
        if !isShutDown.load(ordering: .acquiring) { _ = client.shutdown() }
    }
}
