import Crypto
import Foundation
import Synchronization

/// A freshly issued pair of tokens and what the answer needs to carry.
struct IssuedTokens: Sendable {
    var accessToken: String
    var refreshToken: String
    var claims: AccessTokenClaims
    var expiresIn: Int
}

/// Why an access token was refused.
enum AccessTokenRejection: Error, Sendable, Equatable {
    case missing
    case malformed
    case badSignature
    case expired
    case revoked
    /// A DPoP-bound token presented without its proof.
    case boundToKey

    var description: String {
        switch self {
        case .missing: "No access token was presented."
        case .malformed: "The access token is malformed."
        case .badSignature: "The access token signature is invalid."
        case .expired: "The access token has expired."
        case .revoked: "The session of the access token was revoked."
        case .boundToKey: "The access token is bound to a DPoP key; present it with a proof."
        }
    }
}
