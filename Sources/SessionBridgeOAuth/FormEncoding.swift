package import Foundation

/// `application/x-www-form-urlencoded` as RFC 6749 §2.3.1 and Appendix B use it: every byte but
/// ASCII letters and digits is percent-encoded, a space becomes `+`.
public enum FormEncoding {
    /// Encodes one name or value.
    public static func encode(_ text: String) -> String {
        var encoded: [UInt8] = []
        append(text, to: &encoded)
        return String(decoding: encoded, as: UTF8.self)
    }

    /// Encodes fields in order as `name=value&…`.
    ///
    /// Byte by byte into one buffer: a string per escaped byte took 20-25 µs of every token
    /// request for a refresh token (figure 6's probe), against about 1 µs.
    public static func encode(_ fields: [(String, String)]) -> String {
        var encoded: [UInt8] = []
        encoded.reserveCapacity(fields.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 2 } * 3 / 2)
        for (index, (name, value)) in fields.enumerated() {
            if index > 0 { encoded.append(UInt8(ascii: "&")) }
            append(name, to: &encoded)
            encoded.append(UInt8(ascii: "="))
            append(value, to: &encoded)
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func append(_ text: String, to encoded: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                encoded.append(byte)
            case UInt8(ascii: " "):
                encoded.append(UInt8(ascii: "+"))
            default:
                encoded.append(UInt8(ascii: "%"))
                encoded.append(hexDigits[Int(byte >> 4)])
                encoded.append(hexDigits[Int(byte & 0x0F)])
            }
        }
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
