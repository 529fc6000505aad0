import CryptoExtras
import Foundation
import JWTKit
import SessionBridgeOAuth

/// The algorithms the ``ReferenceServer`` signs ID tokens with.
public enum IDTokenAlgorithm: String, Sendable, Hashable {
    /// ECDSA P-256 with SHA-256.
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256 (a 2048-bit key).
    case rs256 = "RS256"
}

/// The server's ID token signing key (published at `/oauth/jwks`) and a second, unpublished
/// key that signs the tokens of ``OAuthFaults/IDTokenFault/badSignature``.
final class IDTokenKeys: Sendable {
    enum Key: Sendable {
        case ecdsa(ES256PrivateKey)
        case rsa(JWTKit.Insecure.RSA.PrivateKey)
    }

    let algorithm: IDTokenAlgorithm
    let keyID: String
    private let published: Key
    private let unpublished: Key
    /// The public key set, as JSON.
    let jwksJSON: String

    init(algorithm: IDTokenAlgorithm) {
        self.algorithm = algorithm
        self.keyID = RandomToken.make(prefix: "k", byteCount: 6)
        let kid = JWKIdentifier(string: keyID)
        let jwk: JWK
        switch algorithm {
        case .es256:
            let key = ES256PrivateKey()
            let parameters = key.publicKey.parameters
            jwk = .ecdsa(.es256, identifier: kid, x: parameters?.x, y: parameters?.y, curve: .p256)
            published = .ecdsa(key)
            unpublished = .ecdsa(ES256PrivateKey())
        case .rs256:
            let key = Self.makeRSAKey()
            let primitives = try? key.publicKey.getKeyPrimitives()
            jwk = .rsa(
                .rs256, identifier: kid, modulus: primitives.map { Base64URL.encode($0.modulus) },
                exponent: primitives.map { Base64URL.encode($0.publicExponent) })
            published = .rsa(key)
            unpublished = .rsa(Self.makeRSAKey())
        }
        let keys = JWKS(keys: [jwk])
        self.jwksJSON = (try? String(decoding: HTTPHelpers.jsonEncoder.encode(keys), as: UTF8.self)) ?? "{\"keys\":[]}"
    }

    private static func makeRSAKey() -> JWTKit.Insecure.RSA.PrivateKey {
        // A fresh 2048-bit key is always valid for JWTKit (which wants 2048 bits or more).
        try! JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    /// Signs `claims`; with the unpublished key when `validSignature` is false.
    func sign(_ claims: IDTokenClaims, validSignature: Bool = true) async throws -> String {
        var header = JWTHeader()
        header.typ = "JWT"
        let kid = JWKIdentifier(string: keyID)
        let keys = JWTKeyCollection()
        switch validSignature ? published : unpublished {
        case .ecdsa(let key): await keys.add(ecdsa: key, kid: kid)
        case .rsa(let key): await keys.add(rsa: key, digestAlgorithm: .sha256, kid: kid)
        }
        return try await keys.sign(claims, kid: kid, header: header)
    }
}

/// The claims of an ID token the reference server issues.
struct IDTokenClaims: JWTPayload {
    var iss: String
    var sub: String
    /// A multi-tenant issuer's tenant.
    var tid: String?
    var aud: String
    var azp: String
    var exp: Int
    var iat: Int
    var auth_time: Int
    var nonce: String?
    var name: String
    var sid: String

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
