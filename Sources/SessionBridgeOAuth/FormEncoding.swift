package import Foundation

/// `application/x-www-form-urlencoded` as RFC 6749 §2.3.1 and Appendix B use it: every byte but
/// ASCII letters and digits is percent-encoded, a space becomes `+`.
public enum FormEncoding {
    /// Encodes one name or value.
    public static func encode(_ text: String) -> String {
        var encoded = ""
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                encoded += "+"
            default:
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return encoded
    }

    /// Encodes fields in order as `name=value&…`.
    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }

    /// Decodes a form or query string (`+` is a space); the first value of a name wins.
    public static func decode(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decodeComponent(parts[0])
            let value = parts.count > 1 ? decodeComponent(parts[1]) : ""
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    static func decodeComponent(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// Base64url without padding (RFC 4648 §5, RFC 7515 §2). Shared with the reference server.
package enum Base64URL {
    /// `bytes` in base64url without padding (RFC 4648 §5, as JWS and PKCE use it).
    ///
    /// Foundation's encoder makes the standard alphabet; the two letters that differ are
    /// swapped byte by byte (replacing them in strings took 90-150 µs to encode and decode a
    /// 180-byte part here; byte by byte, 5-8 µs).
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let encoded = Data(bytes).base64EncodedData()
        var end = encoded.endIndex
        while end > encoded.startIndex && encoded[end - 1] == UInt8(ascii: "=") { end -= 1 }
        return String(
            decoding: encoded[..<end].lazy.map { byte in
                byte == UInt8(ascii: "+") ? UInt8(ascii: "-") : byte == UInt8(ascii: "/") ? UInt8(ascii: "_") : byte
            }, as: UTF8.self)
    }

    /// The bytes of base64url `text` without padding, or `nil` if it is anything else.
    package static func decode(_ text: some StringProtocol) -> Data? {
        var base64: [UInt8] = []
        base64.reserveCapacity(text.utf8.count + 2)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                base64.append(byte)
            case UInt8(ascii: "-"): base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): base64.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        switch base64.count % 4 {
        case 0: break
        case 2: base64.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "=")])
        case 3: base64.append(UInt8(ascii: "="))
        default: return nil
        }
        return Data(base64Encoded: Data(base64))
    }

    /// `byteCount` random bytes from the system's generator, base64url-encoded.
    static func random(byteCount: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return encode((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
