import Crypto
import Foundation

/// Subresource Integrity: a script's `integrity` attribute or a request's `integrity` names
/// the digests its body may have, and a body that has none of them is not used, as in WebKit.
///
/// Only the strongest algorithm named counts (`sha512` over `sha384` over `sha256`); a name or
/// algorithm the engine does not know is ignored, and metadata with nothing known in it checks
/// nothing. An opaque answer (another origin's, fetched without CORS) never matches.
enum SubresourceIntegrity {
    /// Whether `body` may be used under `metadata` (the attribute's text).
    static func matches(_ metadata: String, body: [UInt8], opaque: Bool) -> Bool {
        let known = parse(metadata)
        guard let strongest = known.map(\.algorithm).max() else { return true }
        guard !opaque else { return false }
        let digest = strongest.digest(of: body)
        return known.contains { $0.algorithm == strongest && $0.digest == digest }
    }

    /// A hash function SRI names, weakest first.
    enum Algorithm: Int, Comparable {
        case sha256, sha384, sha512

        init?(name: Substring) {
            switch name.lowercased() {
            case "sha256": self = .sha256
            case "sha384": self = .sha384
            case "sha512": self = .sha512
            default: return nil
            }
        }

        static func < (lhs: Algorithm, rhs: Algorithm) -> Bool { lhs.rawValue < rhs.rawValue }

        /// `body`'s digest, as SRI compares it (``normalized(_:)``).
        func digest(of body: [UInt8]) -> String {
            let bytes: [UInt8] =
                switch self {
                case .sha256: Array(SHA256.hash(data: body))
                case .sha384: Array(SHA384.hash(data: body))
                case .sha512: Array(SHA512.hash(data: body))
                }
            return SubresourceIntegrity.normalized(Data(bytes).base64EncodedString())
        }
    }

    /// The known entries of `metadata`: `<algorithm>-<base64 digest>[?options]`, separated by
    /// white space.
    static func parse(_ metadata: String) -> [(algorithm: Algorithm, digest: String)] {
        metadata.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" }).compactMap { token in
            guard let dash = token.firstIndex(of: "-"), let algorithm = Algorithm(name: token[..<dash]) else { return nil }
            let value = token[token.index(after: dash)...].prefix { $0 != "?" }
            return (algorithm, normalized(String(value)))
        }
    }

    /// A digest in base64 or base64url, without its padding.
    static func normalized(_ digest: String) -> String {
        String(String.UnicodeScalarView(digest.unicodeScalars.compactMap { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 == "=" ? nil : $0 }))
    }
}
