public import Crypto
import Foundation

/// The key pair a client proves possession of its tokens with (DPoP, RFC 9449): a P-256 key
/// for `ES256`, generated and held natively. Tokens the server binds to it are useless to
/// anyone who does not hold the private key.
///
/// The private key never prints: `description`, `debugDescription` and `dump` show only the
/// algorithm and the public key's thumbprint, and no error quotes it.
///
/// ```swift
/// var configuration = SessionConfiguration(server: serverURL)
/// configuration.dpopKey = DPoPKey()
/// ```
public struct DPoPKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable, CustomLeafReflectable {
    let privateKey: P256.Signing.PrivateKey

    /// Generates a new key pair.
    public init() {
        self.privateKey = P256.Signing.PrivateKey()
    }

    /// Uses a key pair the app keeps in its own store.
    public init(privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    /// The JWS algorithm of the proofs: `ES256`.
    public var algorithm: String { "ES256" }

    /// The public key's coordinates, base64url-encoded.
    var coordinates: (x: String, y: String) {
        let raw = privateKey.publicKey.rawRepresentation
        return (Base64URL.encode(raw.prefix(32)), Base64URL.encode(raw.suffix(32)))
    }

    /// The public key as a JWK (RFC 7517), the members of the proof's `jwk` header.
    public var publicJWK: [String: String] {
        let (x, y) = coordinates
        return ["kty": "EC", "crv": "P-256", "x": x, "y": y]
    }

    /// The public key's JWK SHA-256 thumbprint (RFC 7638), base64url-encoded: the `jkt` a
    /// server binds tokens to (`cnf.jkt`, `dpop_jkt`).
    public var thumbprint: String {
        DPoPKey.thumbprint(x: coordinates.x, y: coordinates.y)
    }

    /// The RFC 7638 thumbprint of a P-256 public key given by its base64url coordinates: the
    /// SHA-256 of its required members in lexicographic order, without whitespace.
    public static func thumbprint(x: String, y: String) -> String {
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        return Base64URL.encode(SHA256.hash(data: Data(canonical.utf8)))
    }

    /// `DPoPKey(ES256, jkt: …)`; never the private key.
    public var description: String { "DPoPKey(ES256, jkt: \(thumbprint), <private key redacted>)" }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// Shows the algorithm and the thumbprint only.
    public var customMirror: Mirror {
        Mirror(self, children: ["algorithm": algorithm, "thumbprint": thumbprint, "privateKey": "<redacted>"], displayStyle: .struct)
    }
}
