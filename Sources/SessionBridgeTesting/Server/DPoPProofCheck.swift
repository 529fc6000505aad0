import Crypto
import Foundation
import SessionBridgeOAuth

/// The server's check of a DPoP proof (RFC 9449 §4.3): an `ES256` JWT of type `dpop+jwt`
/// signed by the public key in its `jwk` header, for this method and URL, issued within the
/// accepted window, never seen before, with the server's nonce when one is required and the
/// access token's hash on resource requests.
struct DPoPProofCheck {
    /// Why a proof was refused; the text is safe to send back.
    enum Refusal: Error, Equatable {
        /// The proof is malformed, badly signed, stale, replayed or for another request.
        case invalid(String)
        /// The proof lacks the server's current nonce.
        case useNonce
    }

    /// What an accepted proof proves: the key's RFC 7638 thumbprint.
    struct Accepted {
        var thumbprint: String
    }

    var method: String
    /// The request's URL without query and fragment.
    var url: String
    /// The access token the request carries, whose hash `ath` must be.
    var accessToken: String?
    /// The nonces the server accepts now; `nil` when it requires none.
    var acceptedNonces: [String]?
    /// How far `iat` may be from now, either way.
    var window: TimeInterval
    var now: Date

    private struct Header: Decodable {
        var typ: String?
        var alg: String?
        var jwk: [String: String]?
    }

    private struct Claims: Decodable {
        var jti: String?
        var htm: String?
        var htu: String?
        var iat: Double?
        var nonce: String?
        var ath: String?
    }

    /// Checks `proof`; `usedIDs` is the replay cache (`jti` to the time it can be forgotten).
    func check(_ proof: String, usedIDs: inout [String: Date]) -> Result<Accepted, Refusal> {
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        guard proof.utf8.count <= 8192, parts.count == 3, let headerData = Base64URL.decode(parts[0]),
            let claimsData = Base64URL.decode(parts[1]), let signature = Base64URL.decode(parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: headerData),
            let claims = try? JSONDecoder().decode(Claims.self, from: claimsData)
        else { return .failure(.invalid("The DPoP proof is not a readable JWT.")) }
        guard header.typ == "dpop+jwt" else { return .failure(.invalid("The DPoP proof's typ is not dpop+jwt.")) }
        guard header.alg == "ES256" else { return .failure(.invalid("The DPoP proof's alg is not ES256.")) }
        guard let jwk = header.jwk, jwk["kty"] == "EC", jwk["crv"] == "P-256", jwk["d"] == nil,
            let x = jwk["x"], let y = jwk["y"], let xBytes = Base64URL.decode(x), let yBytes = Base64URL.decode(y),
            let key = try? P256.Signing.PublicKey(rawRepresentation: xBytes + yBytes)
        else { return .failure(.invalid("The DPoP proof's jwk is not a P-256 public key.")) }
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.isValidSignature(ecdsa, for: Data("\(parts[0]).\(parts[1])".utf8))
        else { return .failure(.invalid("The DPoP proof's signature is invalid.")) }
        guard let jti = claims.jti, !jti.isEmpty, jti.utf8.count <= 256 else { return .failure(.invalid("The DPoP proof has no jti.")) }
        guard claims.htm == method else { return .failure(.invalid("The DPoP proof is for another method.")) }
        guard claims.htu == url else { return .failure(.invalid("The DPoP proof is for another URL.")) }
        guard let iat = claims.iat, abs(iat - now.timeIntervalSince1970) <= window else {
            return .failure(.invalid("The DPoP proof's iat is outside the accepted window."))
        }
        if let accessToken {
            guard claims.ath == DPoPKey.accessTokenHash(accessToken) else {
                return .failure(.invalid("The DPoP proof's ath does not match the access token."))
            }
        }
        if let acceptedNonces {
            guard let nonce = claims.nonce, acceptedNonces.contains(nonce) else { return .failure(.useNonce) }
        }
        usedIDs = usedIDs.filter { $0.value > now }
        guard usedIDs[jti] == nil else { return .failure(.invalid("The DPoP proof was already used.")) }
        usedIDs[jti] = now.addingTimeInterval(2 * window)
        return .success(Accepted(thumbprint: DPoPKey.thumbprint(x: x, y: y)))
    }
}
