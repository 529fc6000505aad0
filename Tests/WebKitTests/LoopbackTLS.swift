import AsyncHTTPClient
import Foundation
import NIOCore
import SessionBridgeHeadless
import SessionBridgeTesting

/// One loopback certificate per test process (the reference server speaks HTTPS so WebKit
/// sends its `Secure` cookies).
enum LoopbackTLS {
    static let shared: Result<LoopbackCertificate, any Error> = Result { try LoopbackCertificate.make() }
}

extension LoopbackCertificate {
    /// An HTTP client that trusts the certificate, follows no redirects and fails a refused
    /// connection at once, as pages' default client does (shut it down after use).
    func makeHTTPClient() -> HTTPClient {
        var configuration = WebPage.defaultHTTPClientConfiguration
        configuration.tlsConfiguration = clientTLS
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
