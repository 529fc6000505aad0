import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import SessionBridgeOAuth
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// The clients' guard against status codes below 100 (`refusingMalformedStatusCodes()`) sits on
/// every HTTP/2 stream too: an identity provider that speaks HTTP/2 (most do, over TLS) is
/// answered through it as before.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct HTTP2Tests {
    @Test func anHTTP2ServersAnswersPassTheGuard() async throws {
        let certificate = try LoopbackCertificate.make()
        let router = Router()
        router.get("/.well-known/openid-configuration") { _, _ in "{}" }
        let (ports, found) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router, server: try .http2Upgrade(tlsConfiguration: certificate.serverTLS),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                found.yield(channel.localAddress?.port ?? 0)
                found.finish()
            }, logger: Logger(label: "http2-tests"))
        let group = ServiceGroup(
            configuration: .init(services: [application], gracefulShutdownSignals: [], logger: Logger(label: "http2-tests")))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        var configuration = OAuthClientConfiguration.defaultHTTPClientConfiguration
        configuration.tlsConfiguration = certificate.clientTLS
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let response = try await client.execute(
                HTTPClientRequest(url: "https://127.0.0.1:\(port)/.well-known/openid-configuration"), timeout: .seconds(10))
            #expect(response.version == .http2)
            #expect(response.status == .ok)
            #expect(String(buffer: try await response.body.collect(upTo: 1024)) == "{}")
        } catch {
            Issue.record("an HTTP/2 answer did not pass: \(error)")
        }
        try await client.shutdown()
        await group.triggerGracefulShutdown()
        try await running.value
    }
}
