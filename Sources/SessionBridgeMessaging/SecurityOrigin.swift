public import Foundation

/// The origin of a document: scheme, host and port, as browsers compare them.
public struct SecurityOrigin: Sendable, Hashable, CustomStringConvertible {
    public let scheme: String
    public let host: String
    /// The port, `nil` when it is the scheme's default.
    public let port: Int?

    /// The origin of `url`; `nil` for URLs without a host (an opaque origin never matches).
    public init?(url: URL) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        self.scheme = scheme
        self.host = host
        let defaultPort = ["http": 80, "https": 443, "ws": 80, "wss": 443][scheme]
        self.port = url.port == defaultPort ? nil : url.port
    }

    /// Parses `"https://app.example"` or `"http://127.0.0.1:8080"`.
    public init?(_ string: String) {
        guard let url = URL(string: string) else { return nil }
        self.init(url: url)
    }

    /// `scheme://host[:port]`.
    public var description: String {
        "\(scheme)://\(host.contains(":") ? "[\(host)]" : host)" + (port.map { ":\($0)" } ?? "")
    }
}
