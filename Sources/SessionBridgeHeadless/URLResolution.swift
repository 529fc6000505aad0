import Foundation

/// A URL a page names, resolved as the URL Standard's parser resolves it, on Foundation's parser:
/// what Foundation reads otherwise (RFC 3986) is made what the standard makes of it first.
///
/// Leading and trailing spaces and C0 controls go, and every tab and newline; a backslash is a
/// slash before the query in an `http`, `https`, `ws`, `wss`, `ftp` or `file` URL; what RFC 3986
/// does not allow in a path, query or fragment is percent-encoded as UTF-8, an escape already
/// there kept as it is (`/é%20` is `/%C3%A9%20`, not `%2520`); the scheme and the host are
/// lowercased, the scheme's default port dropped, and the path's `.` and `..` segments
/// (`%2e` too) removed; the empty string is the base without its fragment; a relative URL has
/// no meaning against a base without a path of its own (`blob:`, `data:`, `about:blank`).
/// (`|`, `^`, `[` and `]` in a path come out escaped, where the standard leaves them.)
///
/// The page's own `URL` is the standard's parser written in JavaScript (``WebPlatformPrelude``),
/// made only when a script reads it; a request, a script's source or a redirect resolves here,
/// natively, so that a document that only loads things never makes it. `RequestURLTests`
/// holds the two to the same answers.
enum URLResolution {
    /// Schemes the URL Standard calls special, with their default ports.
    static let specialSchemes: [String: Int?] = ["http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21, "file": nil]

    /// `input` resolved against `base`; nil when it is no URL (`http:` alone has no host).
    static func resolve(_ input: String, against base: URL?) -> URL? {
        var text = Substring(input).trimmingPrefix { $0.isASCII && $0.asciiValue! <= 0x20 }
        while let last = text.last, last.isASCII, last.asciiValue! <= 0x20 { text = text.dropLast() }
        let cleaned = String(text.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" })
        let scheme = Self.scheme(of: cleaned)
        let baseText = base?.absoluteString
        if cleaned.isEmpty {
            guard let baseText else { return nil }
            return URL(string: String(baseText.prefix { $0 != "#" }))
        }
        if scheme == nil, let baseText, let baseScheme = Self.scheme(of: baseText),
            !baseText.dropFirst(baseScheme.count + 1).hasPrefix("/"), !cleaned.hasPrefix("#")
        {
            return nil  // a base with an opaque path takes no relative URL
        }
        let effective = scheme ?? base?.scheme?.lowercased()
        let special = effective.map { specialSchemes.keys.contains($0) } ?? false
        var input = cleaned
        if special {
            // A backslash is a slash before the query.
            let end = input.firstIndex { $0 == "?" || $0 == "#" } ?? input.endIndex
            input = input[..<end].replacingOccurrences(of: "\\", with: "/") + input[end...]
        }
        if let scheme, special {
            let rest = input.dropFirst(scheme.count + 1)
            // `http:path`: relative to a base of the same scheme, else its authority follows
            // however many slashes come first.
            if !rest.hasPrefix("//"), base?.scheme?.lowercased() == scheme { return resolve(String(rest), against: base) }
            if scheme != "file" { input = scheme + "://" + rest.drop { $0 == "/" } }
        } else if special, input.hasPrefix("//"), effective != "file" {
            input = "//" + input.drop { $0 == "/" }
        }
        // A relative path whose first segment holds a colon is no scheme (RFC 3986 reads one).
        if scheme == nil, let colon = input.firstIndex(of: ":"),
            !input[..<colon].contains(where: { $0 == "/" || $0 == "?" || $0 == "#" })
        {
            input = "./" + input
        }
        let encoded = escaped(input, scheme: scheme)
        guard let url = URL(string: encoded, relativeTo: base)?.absoluteURL else { return nil }
        guard special else {
            // Every scheme is lowercased, and a path of segments loses its dot segments.
            var text = url.absoluteString
            if let scheme, scheme != url.scheme { text = scheme + text.dropFirst(scheme.count) }
            if url.path.hasPrefix("/"), let components = URLComponents(string: text) {
                let cleaned = removingDotSegments(components.percentEncodedPath)
                if cleaned != components.percentEncodedPath {
                    var changed = components
                    changed.percentEncodedPath = cleaned
                    text = changed.string ?? text
                }
            }
            return text == url.absoluteString ? url : URL(string: text) ?? url
        }
        // A special URL but a `file:` one has a host.
        if effective != "file", url.host?.isEmpty ?? true { return nil }
        return normalized(url)
    }

    /// The scheme `text` starts with, lowercased, if any.
    static func scheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return nil }
        let name = text[..<colon]
        guard let first = name.first, first.isASCII, first.isLetter,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
        else { return nil }
        return name.lowercased()
    }

    /// `text` with what RFC 3986 does not allow after the authority percent-encoded, escapes kept.
    static func escaped(_ text: String, scheme: String?) -> String {
        var head = "", rest = Substring(text)
        if let scheme {
            head = String(rest.prefix(scheme.count + 1))
            rest = rest.dropFirst(scheme.count + 1)
        }
        // The authority (after `//`) is left to Foundation, which maps a host to ASCII.
        if rest.hasPrefix("//") {
            let end = rest.dropFirst(2).firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            head += rest[..<end]
            rest = rest[end...]
        }
        var out = head
        var inFragment = false
        let utf8 = Array(rest.utf8)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            switch byte {
            case UInt8(ascii: "%"):
                let hex = index + 2 < utf8.count && DataURL.hexValue(utf8[index + 1]) != nil && DataURL.hexValue(utf8[index + 2]) != nil
                out += hex ? "%" : "%25"
            case UInt8(ascii: "#"):
                out += inFragment ? "%23" : "#"
                inFragment = true
            case 0x21...0x7E where !Self.refused.contains(byte):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
            index += 1
        }
        return out
    }

    /// Printable ASCII that RFC 3986 does not allow in a path, query or fragment.
    static let refused: Set<UInt8> = Set("\"<>\\^`{|}[]".utf8)

    /// A special URL with its scheme and host lowercased, its default port dropped and its
    /// path's dot segments removed (an empty path is `/`).
    static func normalized(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        let scheme = components.scheme?.lowercased()
        components.scheme = scheme
        if let host = components.percentEncodedHost, host != host.lowercased() { components.percentEncodedHost = host.lowercased() }
        if let port = components.port, let scheme, let standard = specialSchemes[scheme], standard == port { components.port = nil }
        let path = components.percentEncodedPath
        let cleaned = removingDotSegments(path.isEmpty && components.host != nil ? "/" : path)
        if cleaned != path { components.percentEncodedPath = cleaned }
        return components.url ?? url
    }

    /// RFC 3986's remove_dot_segments, `%2e` read as `.` as the URL Standard reads it.
    static func removingDotSegments(_ path: String) -> String {
        guard path.contains(".") || path.lowercased().contains("%2e") else { return path }
        let isDot = { (segment: Substring) in segment == "." || segment.lowercased() == "%2e" }
        let isDotDot = { (segment: Substring) in
            let lowered = segment.lowercased()
            return lowered == ".." || lowered == ".%2e" || lowered == "%2e." || lowered == "%2e%2e"
        }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (position, segment) in segments.enumerated() {
            let last = position == segments.count - 1
            if isDot(segment) {
                if last { output.append("") }
            } else if isDotDot(segment) {
                if output.count > 1 { output.removeLast() }
                if last { output.append("") }
            } else {
                output.append(segment)
            }
        }
        let joined = output.joined(separator: "/")
        return path.hasPrefix("/") && !joined.hasPrefix("/") ? "/" + joined : joined
    }
}
