package import Foundation

extension URL {
    /// Whether the URL names no port or one a TCP connection can have (0-65535).
    ///
    /// `URL` accepts any number as a port, and AsyncHTTPClient stops the process when asked to
    /// connect to a larger one at an IP address: every URL from configuration, a discovery
    /// document or an app's request is checked before it is sent.
    package var hasPortInRange: Bool {
        port.map { (0...65_535).contains($0) } ?? true
    }
}
