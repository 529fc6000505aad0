import Foundation

/// A realistic, deterministic mix of `Set-Cookie` values: every Expires form a server sends
/// (RFC 1123, RFC 850, asctime), Max-Age, Domain, Path, Secure, HttpOnly, SameSite, and long
/// values of 200–4000 bytes beside the usual short ones.
enum CookieHeaders {
    /// The URL the headers are received from.
    static let origin = "https://www.shop.example/account/login"
    static var originURL: URL { URL(string: origin)! }

    static func mix(count: Int = 200) -> [String] {
        var random = SplitMix(seed: 0x5e55_1011)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        func value(_ length: Int) -> String {
            String((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
        }
        var headers: [String] = []
        for i in 0..<count {
            let length: Int
            switch i % 10 {
            case 0: length = 200 + Int(random.next() % 800)
            case 1: length = 1000 + Int(random.next() % 3000)
            default: length = 8 + Int(random.next() % 56)
            }
            var header = "c\(i)_\(["sid", "pref", "ab", "csrf", "track"][i % 5])=\(value(length))"
            switch i % 6 {
            case 0: header += "; Expires=Wed, 21 Oct 2037 07:28:00 GMT"
            case 1: header += "; expires=Wednesday, 21-Oct-37 07:28:00 GMT"
            case 2: header += "; Expires=Wed Oct 21 07:28:00 2037"
            case 3: header += "; Max-Age=\(3600 * (1 + i % 48))"
            case 4: header += "; Max-Age=86400; Expires=Thu, 01 Jan 2037 00:00:00 GMT"
            default: break
            }
            if i % 3 == 0 { header += "; Domain=shop.example" }
            header += ["; Path=/", "; Path=/account", "; path=/"][i % 3]
            if i % 2 == 0 { header += "; Secure" }
            if i % 4 != 3 { header += "; HttpOnly" }
            header += ["; SameSite=Lax", "; SameSite=Strict", "; SameSite=None", ""][i % 4]
            if i % 4 == 2 && i % 2 != 0 { header += "; Secure" }
            headers.append(header)
        }
        return headers
    }
}

/// A small deterministic generator (SplitMix64).
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
