import Foundation
public import JWTKit

/// A private key a confidential client signs its assertions with (`private_key_jwt`,
/// RFC 7523): P-256 for `ES256` or RSA (2048 bits or more) for `RS256`, read from PEM.
///
/// The key never prints: `description`, `debugDescription` and `dump` show only the algorithm
/// and the key id.
///
/// ```swift
/// let key = try ClientPrivateKey(pem: String(contentsOfFile: "client.pem", encoding: .utf8), keyID: "k1")
/// let authentication = ClientAuthentication.privateKeyJWT(key)
/// ```
public struct ClientPrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable,
    CustomLeafReflectable
{
    /// The JWS algorithms a client assertion can be signed with.
    public enum Algorithm: String, Sendable, Hashable {
        /// ECDSA with P-256 and SHA-256.
        case es256 = "ES256"
        /// RSASSA-PKCS1-v1_5 with SHA-256.
        case rs256 = "RS256"
    }

    enum Backing: Sendable {
        case ecdsa(ES256PrivateKey)
        case rsa(JWTKit.Insecure.RSA.PrivateKey)
    }

    let backing: Backing
    /// The algorithm the key signs with.
    public let algorithm: Algorithm
    /// The `kid` sent in the assertion's header, when the server registered several keys.
    public var keyID: String?

    /// Reads a PEM private key (PKCS#8 `PRIVATE KEY`, SEC1 `EC PRIVATE KEY` or PKCS#1
    /// `RSA PRIVATE KEY`).
    ///
    /// - Throws: ``OAuthError`` with ``OAuthError/Code/invalidConfiguration`` when the text is
    ///   neither a P-256 nor an RSA private key; the message never quotes the key.
    public init(pem: String, keyID: String? = nil) throws(OAuthError) {
        if let key = try? ES256PrivateKey(pem: pem) {
            backing = .ecdsa(key)
            algorithm = .es256
        } else if let key = try? JWTKit.Insecure.RSA.PrivateKey(pem: pem) {
            backing = .rsa(key)
            algorithm = .rs256
        } else {
            throw OAuthError(
                .invalidConfiguration, "the client key is not a PEM P-256 (ES256) or RSA (RS256) private key of 2048 bits or more")
        }
        self.keyID = keyID
    }

    /// The public half as a JWK, to register with the authorization server.
    public var publicJWK: JWK {
        switch backing {
        case .ecdsa(let key):
            let parameters = key.publicKey.parameters
            return .ecdsa(.es256, identifier: keyID.map { JWKIdentifier(string: $0) }, x: parameters?.x, y: parameters?.y, curve: .p256)
        case .rsa(let key):
            let primitives = try? key.publicKey.getKeyPrimitives()
            return .rsa(
                .rs256, identifier: keyID.map { JWKIdentifier(string: $0) },
                modulus: primitives.map { Base64URL.encode($0.modulus) }, exponent: primitives.map { Base64URL.encode($0.publicExponent) })
        }
    }

    /// The public half as PEM.
    public var publicKeyPEM: String {
        switch backing {
        case .ecdsa(let key): key.publicKey.pemRepresentation
        case .rsa(let key): key.publicKey.pemRepresentation
        }
    }

    /// A key collection that signs with this key.
    func signingKeys() async -> JWTKeyCollection {
        let keys = JWTKeyCollection()
        let kid = keyID.map { JWKIdentifier(string: $0) }
        switch backing {
        case .ecdsa(let key): await keys.add(ecdsa: key, kid: kid)
        case .rsa(let key): await keys.add(rsa: key, digestAlgorithm: .sha256, kid: kid)
        }
        return keys
    }

    /// `ClientPrivateKey(ES256, kid: …)`; never the key.
    public var description: String { "ClientPrivateKey(\(algorithm.rawValue)\(keyID.map { ", kid: \($0)" } ?? ""), <redacted>)" }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// Shows the algorithm and key id only.
    public var customMirror: Mirror {
        Mirror(self, children: ["algorithm": algorithm.rawValue, "keyID": keyID as Any, "key": "<redacted>"], displayStyle: .struct)
    }
}
