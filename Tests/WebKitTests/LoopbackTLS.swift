import AsyncHTTPClient
import Foundation
import HummingbirdTLS

/// A self-signed certificate for 127.0.0.1, made with `openssl` once per test process, so the
/// reference server can speak HTTPS: WebKit stores and sends `Secure` cookies (the session's
/// `__Host-session`) only over HTTPS, also on loopback.
struct LoopbackTLS: Sendable {
    let certificatePEM: String
    let server: TLSConfiguration
    let client: TLSConfiguration

    static let shared: Result<LoopbackTLS, any Error> = Result { try make() }

    private static func make() throws -> LoopbackTLS {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificateFile = directory.appendingPathComponent("cert.pem").path
        let keyFile = directory.appendingPathComponent("key.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", keyFile, "-out", certificateFile,
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        guard let certificate = try NIOSSLCertificate.fromPEMFile(certificateFile).first else { throw CocoaError(.fileReadCorruptFile) }
        let key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        var client = TLSConfiguration.makeClientConfiguration()
        client.trustRoots = .certificates([certificate])
        return LoopbackTLS(
            certificatePEM: try String(contentsOfFile: certificateFile, encoding: .utf8),
            server: TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key)),
            client: client)
    }

    /// An HTTP client that trusts the certificate and follows no redirects (shut it down after use).
    func makeHTTPClient() -> HTTPClient {
        HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(
            tlsConfiguration: client, redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: .seconds(30))))
    }
}
