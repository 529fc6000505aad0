import Crypto
import Foundation
import SessionBridgeOAuth

/// Claims of an access token issued by the ``ReferenceServer``.
public struct AccessTokenClaims: Sendable, Equatable, Codable {
    /// Issuer: the server's base URL.
    public var iss: String
    /// Subject: the username.
    public var sub: String
    /// Issued at, in Unix seconds.
    public var iat: Int
    /// Expiry, in Unix seconds.
    public var exp: Int
    /// Session id: the refresh token family the token belongs to.
    public var sid: String
    /// Token id, unique per token.
    public var jti: String
    /// The confirmation of a DPoP-bound token (RFC 9449 §6.1): the key's thumbprint, `jkt`.
    public var cnf: Confirmation?

    /// The `cnf` claim.
    public struct Confirmation: Sendable, Equatable, Codable {
        /// The RFC 7638 thumbprint of the key the token is bound to.
        public var jkt: String

        /// Create a confirmation.
        public init(jkt: String) { self.jkt = jkt }
    }

    /// Create claims.
    public init(iss: String, sub: String, iat: Int, exp: Int, sid: String, jti: String, cnf: Confirmation? = nil) {
        self.cnf = cnf
        self.iss = iss
        self.sub = sub
        self.iat = iat
        self.exp = exp
        self.sid = sid
        self.jti = jti
    }
}

/// Compact JWS (RFC 7515) with HS256, as used for access tokens.
enum JWT {
    enum VerificationError: Error, Equatable {
        case malformed
        case unsupportedAlgorithm
        case badSignature
        case expired
    }

    private struct Header: Codable {
        var alg: String
        var typ: String?
    }

    static func sign(_ claims: AccessTokenClaims, key: SymmetricKey) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain structs of strings and integers cannot fail.
        let header = (try? encoder.encode(Header(alg: "HS256", typ: "JWT"))) ?? Data()
        let payload = (try? encoder.encode(claims)) ?? Data()
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        let mac = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: key)
        return signingInput + "." + Base64URL.encode(Data(mac))
    }

    /// Verify signature, algorithm and expiry; returns the claims.
    static func verify(
        _ token: String,
        key: SymmetricKey,
        now: Date = Date(),
        allowExpired: Bool = false
    ) throws(VerificationError) -> AccessTokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = Base64URL.decode(parts[0]),
            let payloadData = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { throw .malformed }
        guard let header = try? JSONDecoder().decode(Header.self, from: headerData) else { throw .malformed }
        guard header.alg == "HS256" else { throw .unsupportedAlgorithm }
        let signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signingInput, using: key) else {
            throw .badSignature
        }
        guard let claims = try? JSONDecoder().decode(AccessTokenClaims.self, from: payloadData) else { throw .malformed }
        guard allowExpired || Double(claims.exp) > now.timeIntervalSince1970 else { throw .expired }
        return claims
    }
}

/// Random opaque strings.
enum RandomToken {
    /// `prefix` followed by `byteCount` random bytes in base64url.
    static func make(prefix: String, byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return prefix + Base64URL.encode(Data(bytes))
    }
}
