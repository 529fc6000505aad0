import Foundation
public import HummingbirdTLS
import NIOCore

/// A self-signed certificate for `127.0.0.1`, made with the `openssl` command, so the
/// reference server can speak HTTPS on loopback. WebKit stores and sends `Secure` cookies
/// (the session's `__Host-session`) only over HTTPS, loopback included.
///
/// ```swift
/// let certificate = try LoopbackCertificate.make()
/// var configuration = ReferenceServerConfiguration()
/// configuration.tlsConfiguration = certificate.serverTLS
/// ```
public struct LoopbackCertificate: Sendable {
    /// The certificate in PEM, to trust it in a client or a web view.
    public let certificatePEM: String
    /// A server configuration presenting the certificate.
    public let serverTLS: TLSConfiguration
    /// A client configuration trusting only the certificate.
    public let clientTLS: TLSConfiguration

    /// Why a certificate could not be made (the message never holds key material).
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Makes a fresh key and certificate (valid two days) in a temporary directory, reads
    /// them, and removes the directory.
    public static func make() throws -> LoopbackCertificate {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loopback-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificateFile = directory.appendingPathComponent("cert.pem").path
        let keyFile = directory.appendingPathComponent("key.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", keyFile, "-out", certificateFile,
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        do {
            try openssl.run()
        } catch {
            throw Failure(description: "openssl could not be started (install the openssl package)")
        }
        // Not `waitUntilExit()`: that one can miss the child's exit on Linux (see `waitForExit`).
        guard let ended = openssl.waitForExitBlocking(timeout: .seconds(60)) else {
            openssl.terminate()
            throw Failure(description: "openssl did not finish within 60 s")
        }
        guard ended.reason == .exit, ended.status == 0 else { throw Failure(description: "openssl failed with status \(ended.status)") }
        guard let certificate = try NIOSSLCertificate.fromPEMFile(certificateFile).first else {
            throw Failure(description: "openssl wrote no certificate")
        }
        let key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        var client = TLSConfiguration.makeClientConfiguration()
        client.trustRoots = .certificates([certificate])
        var server = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
        // A connection's close waits for the client's answer to the server's `close_notify`
        // this long: WebKit's network process does not answer, and each of its connections held
        // the server's stop (and `bridge-runner run --engine webkit`'s exit) 5 s, the default.
        server.shutdownTimeout = .milliseconds(250)
        return LoopbackCertificate(
            certificatePEM: try String(contentsOfFile: certificateFile, encoding: .utf8), serverTLS: server, clientTLS: client)
    }
}
