import Crypto
import SessionBridgeScriptEngine

/// The NIST curves of WebCrypto's `namedCurve`, with the operations `crypto.subtle` does on
/// them. A point is its coordinates, `x` then `y`; a scalar is the private key's big-endian
/// bytes, as long as a coordinate.
enum SubtleCurve: String, Sendable {
    case p256 = "P-256"
    case p384 = "P-384"
    case p521 = "P-521"

    /// The bytes of one coordinate or of the private scalar.
    var coordinateSize: Int {
        switch self {
        case .p256: 32
        case .p384: 48
        case .p521: 66
        }
    }

    /// The point of an uncompressed (`04 x y`) or compressed (`02 x`, `03 x`) X9.62 form,
    /// checked to be on the curve.
    func point(x963OrCompressed bytes: [UInt8]) throws -> [UInt8] {
        let compressed = bytes.count == coordinateSize + 1
        switch self {
        case .p256:
            let key =
                try compressed ? P256.Signing.PublicKey(compressedRepresentation: bytes) : P256.Signing.PublicKey(x963Representation: bytes)
            return Array(key.rawRepresentation)
        case .p384:
            let key =
                try compressed ? P384.Signing.PublicKey(compressedRepresentation: bytes) : P384.Signing.PublicKey(x963Representation: bytes)
            return Array(key.rawRepresentation)
        case .p521:
            let key =
                try compressed ? P521.Signing.PublicKey(compressedRepresentation: bytes) : P521.Signing.PublicKey(x963Representation: bytes)
            return Array(key.rawRepresentation)
        }
    }

    /// The point of a SubjectPublicKeyInfo on this curve.
    func point(spki bytes: [UInt8]) throws -> [UInt8] {
        switch self {
        case .p256: Array(try P256.Signing.PublicKey(derRepresentation: bytes).rawRepresentation)
        case .p384: Array(try P384.Signing.PublicKey(derRepresentation: bytes).rawRepresentation)
        case .p521: Array(try P521.Signing.PublicKey(derRepresentation: bytes).rawRepresentation)
        }
    }

    /// The scalar and point of a PKCS #8 private key on this curve.
    func scalar(pkcs8 bytes: [UInt8]) throws -> (scalar: [UInt8], point: [UInt8]) {
        guard DERIntegers.isPKCS8(bytes) else { throw ScriptThrow("DataError", "The key data is not a PKCS #8 key.") }
        switch self {
        case .p256:
            let key = try P256.Signing.PrivateKey(derRepresentation: bytes)
            return (Array(key.rawRepresentation), Array(key.publicKey.rawRepresentation))
        case .p384:
            let key = try P384.Signing.PrivateKey(derRepresentation: bytes)
            return (Array(key.rawRepresentation), Array(key.publicKey.rawRepresentation))
        case .p521:
            let key = try P521.Signing.PrivateKey(derRepresentation: bytes)
            return (Array(key.rawRepresentation), Array(key.publicKey.rawRepresentation))
        }
    }

    /// The public point of a private scalar.
    func point(ofScalar scalar: [UInt8]) throws -> [UInt8] {
        switch self {
        case .p256: Array(try P256.Signing.PrivateKey(rawRepresentation: scalar).publicKey.rawRepresentation)
        case .p384: Array(try P384.Signing.PrivateKey(rawRepresentation: scalar).publicKey.rawRepresentation)
        case .p521: Array(try P521.Signing.PrivateKey(rawRepresentation: scalar).publicKey.rawRepresentation)
        }
    }

    func spki(point: [UInt8]) throws -> [UInt8] {
        switch self {
        case .p256: Array(try P256.Signing.PublicKey(rawRepresentation: point).derRepresentation)
        case .p384: Array(try P384.Signing.PublicKey(rawRepresentation: point).derRepresentation)
        case .p521: Array(try P521.Signing.PublicKey(rawRepresentation: point).derRepresentation)
        }
    }

    func pkcs8(scalar: [UInt8]) throws -> [UInt8] {
        switch self {
        case .p256: Array(try P256.Signing.PrivateKey(rawRepresentation: scalar).derRepresentation)
        case .p384: Array(try P384.Signing.PrivateKey(rawRepresentation: scalar).derRepresentation)
        case .p521: Array(try P521.Signing.PrivateKey(rawRepresentation: scalar).derRepresentation)
        }
    }

    /// An ECDSA signature of `digest` in WebCrypto's form: `r` then `s`, each as long as a coordinate.
    func sign(_ digest: any Digest, scalar: [UInt8]) throws -> [UInt8] {
        switch self {
        case .p256: Array(try P256.Signing.PrivateKey(rawRepresentation: scalar).signature(for: digest).rawRepresentation)
        case .p384: Array(try P384.Signing.PrivateKey(rawRepresentation: scalar).signature(for: digest).rawRepresentation)
        case .p521: Array(try P521.Signing.PrivateKey(rawRepresentation: scalar).signature(for: digest).rawRepresentation)
        }
    }

    /// Whether `signature` (`r` then `s`) is this point's ECDSA signature of `digest`; false for
    /// a signature of the wrong length.
    func verify(_ signature: [UInt8], for digest: any Digest, point: [UInt8]) -> Bool {
        switch self {
        case .p256:
            guard let key = try? P256.Signing.PublicKey(rawRepresentation: point),
                let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
            else { return false }
            return key.isValidSignature(signature, for: digest)
        case .p384:
            guard let key = try? P384.Signing.PublicKey(rawRepresentation: point),
                let signature = try? P384.Signing.ECDSASignature(rawRepresentation: signature)
            else { return false }
            return key.isValidSignature(signature, for: digest)
        case .p521:
            guard let key = try? P521.Signing.PublicKey(rawRepresentation: point),
                let signature = try? P521.Signing.ECDSASignature(rawRepresentation: signature)
            else { return false }
            return key.isValidSignature(signature, for: digest)
        }
    }

    /// The ECDH shared secret (the shared point's `x`) of a private scalar and a peer's point.
    func sharedSecret(scalar: [UInt8], point: [UInt8]) throws -> [UInt8] {
        let secret: SharedSecret =
            switch self {
            case .p256:
                try P256.KeyAgreement.PrivateKey(rawRepresentation: scalar)
                    .sharedSecretFromKeyAgreement(with: .init(rawRepresentation: point))
            case .p384:
                try P384.KeyAgreement.PrivateKey(rawRepresentation: scalar)
                    .sharedSecretFromKeyAgreement(with: .init(rawRepresentation: point))
            case .p521:
                try P521.KeyAgreement.PrivateKey(rawRepresentation: scalar)
                    .sharedSecretFromKeyAgreement(with: .init(rawRepresentation: point))
            }
        return secret.bytes
    }
}
