import Crypto
import CryptoExtras
import Foundation

/// A `CryptoKey` a page stored in IndexedDB or sent to another document, as it is kept
/// natively: its material and its description together. The stored value refers to it by an
/// id, so the material never enters the JavaScript heap, and the key read back is described
/// by what was kept, never by the text that refers to it: no state or message a page shapes
/// makes a key it may not export exportable, or gives it other usages.
///
/// The id is the SHA-256 of the whole form: storing one key again, or a copy of it, keeps one
/// entry.
struct StoredCryptoKey: Sendable {
    let key: SubtleKey
    /// `"secret"`, `"private"` or `"public"`.
    let type: String
    let extractable: Bool
    /// The key's `algorithm`, as JSON text.
    let algorithm: String
    let usages: [String]

    /// The saved form: `{"key": material, "type", "extractable", "algorithm", "usages"}`.
    var form: [String: Any] {
        ["key": Self.form(of: key), "type": type, "extractable": extractable, "algorithm": algorithm, "usages": usages]
    }

    /// The id the stored value refers to the key by.
    var id: String {
        let text = (try? JSONSerialization.data(withJSONObject: form, options: [.sortedKeys])) ?? Data()
        return "k" + SHA256.hash(data: text).map { String(format: "%02x", $0) }.joined()
    }

    init(key: SubtleKey, type: String, extractable: Bool, algorithm: String, usages: [String]) {
        self.key = key
        self.type = type
        self.extractable = extractable
        self.algorithm = algorithm
        self.usages = usages
    }

    /// The key of a saved form, or nil for one that is not a key's (a damaged file).
    init?(form: Any) {
        guard let parts = form as? [String: Any], let material = parts["key"], let key = Self.key(from: material),
            let type = parts["type"] as? String, ["secret", "private", "public"].contains(type),
            let extractable = parts["extractable"] as? Bool, let algorithm = parts["algorithm"] as? String,
            let usages = parts["usages"] as? [String]
        else { return nil }
        self.init(key: key, type: type, extractable: extractable, algorithm: algorithm, usages: usages)
    }

    /// The material's form: `["secret", bytes]`,
    /// `["elliptic", curve, scalar or null, point]`, `["edwards", seed or null, public key]`,
    /// `["rsa", private key DER or null, public key DER]`, bytes in base64.
    static func form(of key: SubtleKey) -> [Any] {
        func text(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
        func optional(_ bytes: [UInt8]?) -> Any { bytes.map(text) ?? NSNull() }
        switch key {
        case .secret(let bytes):
            return ["secret", text(bytes)]
        case .elliptic(let curve, let scalar, let point):
            return ["elliptic", curve.rawValue, optional(scalar), text(point)]
        case .edwards(let seed, let publicKey):
            return ["edwards", optional(seed), text(publicKey)]
        case .rsa(let privateKey, let publicKey):
            return ["rsa", optional(privateKey.map { Array($0.derRepresentation) }), text(Array(publicKey.derRepresentation))]
        }
    }

    /// The material of a saved form, or nil.
    static func key(from form: Any) -> SubtleKey? {
        guard let parts = form as? [Any], let kind = parts.first as? String else { return nil }
        func bytes(_ index: Int) -> [UInt8]? {
            guard index < parts.count, let text = parts[index] as? String, let data = Data(base64Encoded: text) else { return nil }
            return Array(data)
        }
        func optional(_ index: Int) -> [UInt8]?? {
            guard index < parts.count else { return nil }
            return parts[index] is NSNull ? .some(nil) : bytes(index).map { .some($0) }
        }
        switch kind {
        case "secret":
            guard parts.count == 2, let secret = bytes(1), !secret.isEmpty else { return nil }
            return .secret(secret)
        case "elliptic":
            guard parts.count == 4, let name = parts[1] as? String, let curve = SubtleCurve(rawValue: name),
                let scalar = optional(2), let point = bytes(3), point.count == 2 * curve.coordinateSize,
                scalar.map({ $0.count == curve.coordinateSize }) ?? true
            else { return nil }
            return .elliptic(curve: curve, scalar: scalar, point: point)
        case "edwards":
            guard parts.count == 3, let seed = optional(1), let publicKey = bytes(2), publicKey.count == 32,
                seed.map({ $0.count == 32 }) ?? true
            else { return nil }
            return .edwards(seed: seed, publicKey: publicKey)
        case "rsa":
            guard parts.count == 3, let privateDER = optional(1), let publicDER = bytes(2),
                let publicKey = try? _RSA.Signing.PublicKey(derRepresentation: publicDER)
            else { return nil }
            guard let privateDER else { return .rsa(privateKey: nil, publicKey: publicKey) }
            guard let privateKey = try? _RSA.Signing.PrivateKey(derRepresentation: privateDER) else { return nil }
            return .rsa(privateKey: privateKey, publicKey: publicKey)
        default:
            return nil
        }
    }
}
