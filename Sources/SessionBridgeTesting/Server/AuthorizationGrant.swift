import Crypto
import Foundation
import SessionBridgeOAuth

/// An authorization code the authorization endpoint issued, and what its exchange must match.
struct AuthorizationGrant: Sendable {
    var clientID: String
    var redirectURI: String
    var codeChallenge: String
    var nonce: String?
    var scope: String?
    var username: String
    var expiresAt: Date
    /// The `dpop_jkt` of the authorization request (RFC 9449 §10): the code is exchanged only
    /// with a proof by that key.
    var dpopKeyThumbprint: String? = nil

    /// Whether `verifier` is the one whose `S256` challenge was sent (RFC 7636 §4.6).
    func accepts(verifier: String) -> Bool {
        guard (43...128).contains(verifier.count) else { return false }
        let challenge = Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
        return ServerCore.constantTimeEquals(challenge, codeChallenge)
    }
}
