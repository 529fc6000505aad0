import AsyncHTTPClient
import Foundation
import NIOCore
import SessionBridgeTesting

/// One loopback certificate per test process (the reference server speaks HTTPS so WebKit
/// sends its `Secure` cookies).
enum LoopbackTLS {
    static let shared: Result<LoopbackCertificate, any Error> = Result { try LoopbackCertificate.make() }
}

extension LoopbackCertificate {
    /// An HTTP client that trusts the certificate and follows no redirects (shut it down after use).
    func makeHTTPClient() -> HTTPClient {
        HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(
                tlsConfiguration: clientTLS, redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: .seconds(30))))
    }
}
