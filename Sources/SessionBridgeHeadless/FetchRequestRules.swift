import Foundation

/// The Fetch standard's rules for what a page may put in a request's method and header fields,
/// checked before anything reaches the wire.
///
/// A method or header that breaks them is refused with a `TypeError`, as browsers do; a
/// forbidden request header (`Host`, `Cookie`, `Transfer-Encoding`, …) is dropped silently,
/// as browsers do, because the page's loader owns it.
enum FetchRequestRules {
    /// Why a page's request was refused.
    struct Violation: Error, Sendable, Equatable {
        var message: String
    }

    /// The methods normalised to upper case whatever case the page wrote them in.
    static let normalizedMethods: Set<String> = ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]
    /// The methods a page may never send.
    static let forbiddenMethods: Set<String> = ["CONNECT", "TRACE", "TRACK"]
    /// Request headers the loader owns (Fetch: forbidden request-header names).
    static let forbiddenHeaderNames: Set<String> = [
        "accept-charset", "accept-encoding", "access-control-request-headers", "access-control-request-method",
        "connection", "content-length", "cookie", "cookie2", "date", "dnt", "expect", "host", "keep-alive",
        "origin", "referer", "set-cookie", "te", "trailer", "transfer-encoding", "upgrade", "via",
    ]
    /// Headers that would let a page send a forbidden method through a server that honours them.
    static let methodOverrideHeaderNames: Set<String> = ["x-http-method", "x-http-method-override", "x-method-override"]

    /// The method to send for `method`: a token (RFC 9110 §5.6.2), one of the six standard
    /// methods in upper case, never `CONNECT`, `TRACE` or `TRACK`.
    static func method(_ method: String) throws(Violation) -> String {
        guard isToken(method) else {
            throw Violation(message: "'\(printable(method))' is not a valid HTTP method")
        }
        let upper = method.uppercased()
        if forbiddenMethods.contains(upper) {
            throw Violation(message: "'\(method)' HTTP method is unsupported")
        }
        return normalizedMethods.contains(upper) ? upper : method
    }

    /// Checks a header field and tells whether it goes out: `false` for a forbidden request
    /// header, which is dropped. The value is normalised (leading and trailing spaces, tabs, CR
    /// and LF removed) as `Headers` does.
    static func header(name: String, value: String) throws(Violation) -> (name: String, value: String)? {
        guard isToken(name) else {
            throw Violation(message: "'\(printable(name))' is not a valid HTTP header name")
        }
        let trimmed = normalizedValue(value)
        guard trimmed.unicodeScalars.allSatisfy({ $0.value <= 0xFF && $0 != "\0" && $0 != "\r" && $0 != "\n" }) else {
            throw Violation(message: "the value of header '\(name)' is not a valid HTTP header value")
        }
        let lower = name.lowercased()
        if forbiddenHeaderNames.contains(lower) || lower.hasPrefix("proxy-") || lower.hasPrefix("sec-") { return nil }
        if methodOverrideHeaderNames.contains(lower) {
            let methods = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: [" ", "\t"]).uppercased() }
            if methods.contains(where: forbiddenMethods.contains) { return nil }
        }
        return (name, trimmed)
    }

    /// Whether `text` is an RFC 9110 token: one or more of ALPHA, DIGIT and ``!#$%&'*+-.^_`|~``.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func normalizedValue(_ value: String) -> String {
        let whitespace: Set<Unicode.Scalar> = [" ", "\t", "\r", "\n"]
        let scalars = value.unicodeScalars
        guard let first = scalars.firstIndex(where: { !whitespace.contains($0) }),
            let last = scalars.lastIndex(where: { !whitespace.contains($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    /// `text` with control characters shown as escapes, short enough for a message.
    private static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(64) {
            out += scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }
        return text.unicodeScalars.count > 64 ? out + "…" : out
    }
}
