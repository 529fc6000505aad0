import Foundation

/// The parts of a request URL the storage model needs.
struct CookieURL: Sendable {
    /// Canonicalised host: ASCII lower-case, IPv6 without brackets.
    var host: String
    /// Whether ``host`` is an IP address (no domain matching on suffixes).
    var isIPAddress: Bool
    /// The path, percent-encoded as sent, `/` when empty.
    var path: String
    /// A secure origin: https/wss, or loopback (127.0.0.0/8, ::1, localhost).
    var isSecure: Bool
    /// The scheme, lower-case.
    var scheme: String

    init?(_ url: URL) {
        guard var host = url.host(percentEncoded: true), !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        host = Self.asciiLowercased(host)
        if host.hasSuffix("."), host.count > 1 { host.removeLast() }
        self.host = host
        self.isIPAddress = Self.isIPAddress(host)
        let p = url.path(percentEncoded: true)
        self.path = p.isEmpty ? "/" : Self.normalizingPercentEncoding(p)
        let scheme = url.scheme?.lowercased() ?? ""
        self.scheme = scheme
        self.isSecure = scheme == "https" || scheme == "wss" || Self.isLoopback(host)
    }

    /// Decodes percent-encoded unreserved characters (RFC 3986, 6.2.2.2), so that `/f%6Fo`
    /// path-matches `/foo`; every other escape is kept as sent.
    static func normalizingPercentEncoding(_ path: String) -> String {
        guard path.utf8.contains(UInt8(ascii: "%")) else { return path }
        let bytes = Array(path.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let hi = hex(bytes[i + 1]), let lo = hex(bytes[i + 2]) {
                let c = hi << 4 | lo
                let unreserved =
                    (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39)
                    || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "~")
                if unreserved {
                    out.append(c)
                    i += 3
                    continue
                }
            }
            out.append(bytes[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    static func asciiLowercased(_ s: String) -> String {
        var needs = false
        for c in s.utf8 where c >= 0x41 && c <= 0x5A { needs = true; break }
        if !needs { return s }
        return String(decoding: s.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// An IPv6 address (it holds a colon) or a dotted-quad IPv4 address. Reads the UTF-8 bytes
    /// once: `String.contains(_:)` would go through Foundation's string search.
    static func isIPAddress(_ host: String) -> Bool {
        var dots = 0
        var digitsAndDotsOnly = true
        for c in host.utf8 {
            if c == UInt8(ascii: ":") { return true }
            if c == UInt8(ascii: ".") { dots += 1 } else if !(c >= 0x30 && c <= 0x39) { digitsAndDotsOnly = false }
        }
        return digitsAndDotsOnly && dots == 3
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "0:0:0:0:0:0:0:1"
            || (host.hasPrefix("127.") && isIPAddress(host))
    }

    /// The default path of a request path (RFC 6265bis "Paths and Path-Match").
    static func defaultPath(_ path: String) -> String {
        guard path.utf8.first == UInt8(ascii: "/") else { return "/" }
        guard let last = path.utf8.lastIndex(of: UInt8(ascii: "/")), last != path.utf8.startIndex else {
            return "/"
        }
        return String(path[..<last])
    }

    /// Path-match (RFC 6265bis).
    static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.utf8.starts(with: cookiePath.utf8) else { return false }
        if cookiePath.utf8.last == UInt8(ascii: "/") { return true }
        let next = requestPath.utf8[requestPath.utf8.index(requestPath.utf8.startIndex, offsetBy: cookiePath.utf8.count)]
        return next == UInt8(ascii: "/")
    }

    /// Domain-match (RFC 6265bis): identical, or a host name ending in "." + domain.
    static func domainMatches(host: String, isIP: Bool, domain: String) -> Bool {
        if host == domain { return true }
        if isIP { return false }
        let h = host.utf8.count, d = domain.utf8.count
        guard h > d, d > 0, host.utf8.reversed().starts(with: domain.utf8.reversed()) else { return false }
        let dotIndex = host.utf8.index(host.utf8.startIndex, offsetBy: h - d - 1)
        return host.utf8[dotIndex] == UInt8(ascii: ".")
    }
}
