import Foundation

/// A `data:` URL's contents, read as the Fetch Standard's data: URL processor reads them: the
/// media type before the first comma (`text/plain;charset=US-ASCII` when none is given), the
/// rest percent-decoded, then base64-decoded when the type ends with `;base64`. The page APIs
/// read them in JavaScript (`fetch`, `XMLHttpRequest`); module scripts and imports, whose
/// fetches are native, read them here.
struct DataURL: Equatable, Sendable {
    /// The media type, `;base64` removed.
    var mimeType: String
    var body: [UInt8]

    /// `nil` when `url` is no `data:` URL, or one without a comma or with malformed base64.
    init?(_ url: URL) {
        let text = url.absoluteString
        guard text.count > 5, text.prefix(5).lowercased() == "data:" else { return nil }
        var rest = Substring(text.dropFirst(5))
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        guard let comma = rest.firstIndex(of: ",") else { return nil }
        // (Decoded too: Foundation's URL escapes the spaces the standard keeps, `text/plain ;base64`.)
        var type = String(decoding: Self.percentDecoded(rest[..<comma]), as: UTF8.self).trimmingCharacters(in: .whitespaces)
        var body = Self.percentDecoded(rest[rest.index(after: comma)...])
        // `;base64`, with any spaces around it, ends the type.
        if let semicolon = type.lastIndex(of: ";"),
            type[type.index(after: semicolon)...].trimmingCharacters(in: .whitespaces).lowercased() == "base64"
        {
            type = String(type[..<semicolon]).trimmingCharacters(in: .whitespaces)
            guard let decoded = Self.forgivingBase64(body) else { return nil }
            body = decoded
        }
        if type.hasPrefix(";") { type = "text/plain" + type }
        self.mimeType = type.isEmpty ? "text/plain;charset=US-ASCII" : type
        self.body = body
    }

    private static func percentDecoded(_ text: Substring) -> [UInt8] {
        let bytes = Array(text.utf8)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return decoded
    }

    /// The value of a hexadecimal digit's byte, or nil (also read by ``URLResolution``).
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The Infra Standard's forgiving-base64 decode: ASCII whitespace ignored, padding optional.
    private static func forgivingBase64(_ bytes: [UInt8]) -> [UInt8]? {
        var text = bytes.filter { ![0x09, 0x0A, 0x0C, 0x0D, 0x20].contains($0) }
        if text.count % 4 == 0, text.last == UInt8(ascii: "=") {
            text.removeLast()
            if text.last == UInt8(ascii: "=") { text.removeLast() }
        }
        guard text.count % 4 != 1, !text.contains(UInt8(ascii: "=")) else { return nil }
        text += Array(repeating: UInt8(ascii: "="), count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: Data(text)).map { Array($0) }
    }
}
