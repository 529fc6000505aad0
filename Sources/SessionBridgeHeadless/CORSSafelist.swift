import Foundation

/// What the Fetch standard lets a page send to another origin without asking it first, and
/// what it lets the page read of the answer.
enum CORSSafelist {
    /// `GET`, `HEAD` and `POST`: the methods a request may use without a preflight.
    static func isSafelistedMethod(_ method: String) -> Bool {
        method == "GET" || method == "HEAD" || method == "POST"
    }

    /// Whether a request header may go to another origin without a preflight (Fetch: CORS-
    /// safelisted request-header): `Accept`, `Accept-Language`, `Content-Language`, a
    /// `Content-Type` of a form or text, a single `Range` of bytes; values of 128 bytes at most.
    static func isSafelistedRequestHeader(name: String, value: String) -> Bool {
        let bytes = value.utf8
        guard bytes.count <= 128 else { return false }
        switch name.lowercased() {
        case "accept":
            return !bytes.contains(where: isUnsafeByte)
        case "accept-language", "content-language":
            return bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "a")...UInt8(ascii: "z"):
                    true
                default: " *,-.;=".utf8.contains(byte)
                }
            }
        case "content-type":
            guard !bytes.contains(where: isUnsafeByte) else { return false }
            return ["application/x-www-form-urlencoded", "multipart/form-data", "text/plain"].contains(mimeEssence(value))
        case "range":
            return isSingleByteRange(value)
        default:
            return false
        }
    }

    /// The names a preflight must ask for (Fetch: CORS-unsafe request-header names): those of
    /// headers that are not safelisted, and all of them when the safelisted values together pass
    /// 1,024 bytes; lowercased, sorted, each once.
    static func unsafeRequestHeaderNames(_ headers: [HTTPHeader]) -> [String] {
        var unsafe: Set<String> = []
        var safelistedBytes = 0
        for header in headers {
            if isSafelistedRequestHeader(name: header.name, value: header.value) {
                safelistedBytes += header.value.utf8.count
            } else {
                unsafe.insert(header.name.lowercased())
            }
        }
        if safelistedBytes > 1024 { unsafe.formUnion(headers.map { $0.name.lowercased() }) }
        return unsafe.sorted()
    }

    /// Whether a header may be set on a `no-cors` request (Fetch: no-CORS-safelisted
    /// request-header): the safelisted ones but `Range`.
    static func isNoCORSSafelistedRequestHeader(name: String, value: String) -> Bool {
        name.lowercased() != "range" && isSafelistedRequestHeader(name: name, value: value)
    }

    /// The response headers a page reads of another origin's answer without it exposing them.
    static let safelistedResponseHeaderNames: Set<String> = [
        "cache-control", "content-language", "content-length", "content-type", "expires", "last-modified", "pragma",
    ]

    /// A comma-separated list of a header's values, each trimmed of spaces and tabs, the empty
    /// ones left out.
    static func list(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: [" ", "\t"]) }.filter { !$0.isEmpty }
    }

    // MARK: Private

    /// Fetch: a CORS-unsafe request-header byte.
    private static func isUnsafeByte(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F || "\"():<>?@[\\]{}".utf8.contains(byte)
    }

    /// `type/subtype` of a MIME type, lowercased; empty when the value is none.
    private static func mimeEssence(_ value: String) -> String {
        let essence = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = essence.trimmingCharacters(in: [" ", "\t", "\r", "\n"]).lowercased()
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && FetchRequestRules.isToken(String($0)) }) else { return "" }
        return trimmed
    }

    /// `bytes=<first>-` or `bytes=<first>-<last>` with `first` ≤ `last` (Fetch: simple range
    /// header value).
    private static func isSingleByteRange(_ value: String) -> Bool {
        guard value.hasPrefix("bytes=") else { return false }
        let range = value.dropFirst("bytes=".count).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard range.count == 2, let first = digits(range[0]) else { return false }
        if range[1].isEmpty { return true }
        guard let last = digits(range[1]) else { return false }
        return first <= last
    }

    /// A number written in ASCII digits only (no sign), as a `Range` has them.
    private static func digits(_ text: Substring) -> UInt64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return UInt64(text)
    }
}
