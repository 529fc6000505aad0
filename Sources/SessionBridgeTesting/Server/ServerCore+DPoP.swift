import Foundation
import Hummingbird
import Synchronization

extension ServerCore {
    /// The `DPoP` header field name.
    static let dpopHeader = HTTPFields.Element.Name("DPoP")!
    /// The `DPoP-Nonce` header field name.
    static let dpopNonceHeader = HTTPFields.Element.Name("DPoP-Nonce")!

    /// What a request's `DPoP` header proves.
    enum DPoPOutcome {
        /// No proof was sent.
        case none
        /// A valid proof by the key with this thumbprint.
        case proven(String)
        /// The proof was refused.
        case refused(DPoPProofCheck.Refusal)
    }

    /// Checks the request's DPoP proof for `path` (and `accessToken` on resource requests).
    func dpopProof(of request: Request, accessToken: String? = nil) -> DPoPOutcome {
        let proofs = request.headers[values: Self.dpopHeader]
        guard !proofs.isEmpty else { return .none }
        guard proofs.count == 1 else { return .refused(.invalid("More than one DPoP proof was sent.")) }
        let url = self.issuer.withLock { $0 } + request.uri.path
        let now = Date()
        return self.withState { state in
            let check = DPoPProofCheck(
                method: request.method.rawValue, url: url, accessToken: accessToken,
                acceptedNonces: self.configuration.dpopNonces ? [state.dpopNonce, state.previousDPoPNonce].compactMap { $0 } : nil,
                window: self.configuration.dpopProofWindow.timeInterval, now: now)
            switch check.check(proofs[0], usedIDs: &state.usedDPoPProofIDs) {
            case .success(let accepted):
                state.stats.dpopProofs += 1
                return .proven(accepted.thumbprint)
            case .failure(.useNonce):
                state.stats.dpopNonceChallenges += 1
                return .refused(.useNonce)
            case .failure(let refusal):
                state.stats.dpopRefusals += 1
                return .refused(refusal)
            }
        }
    }

    /// The server's current DPoP nonce.
    var currentDPoPNonce: String { self.withState { $0.dpopNonce } }

    /// The token endpoint's answer to a refused proof: `use_dpop_nonce` with the nonce, or
    /// `invalid_dpop_proof` (RFC 9449 §5, §8).
    func tokenEndpointRefusal(_ refusal: DPoPProofCheck.Refusal) -> Response {
        switch refusal {
        case .useNonce:
            var headers = HTTPFields()
            headers[Self.dpopNonceHeader] = self.currentDPoPNonce
            return self.oauthError("use_dpop_nonce", "Authorization server requires nonce in DPoP proof.", extraHeaders: headers)
        case .invalid(let reason):
            return self.oauthError("invalid_dpop_proof", reason)
        }
    }

    /// A resource's `401` for a DPoP failure (RFC 9449 §7.1, §9), with the nonce when asked for.
    func resourceRefusal(error: String, description: String) -> Response {
        self.countUnauthorized()
        var headers: HTTPFields = [
            .wwwAuthenticate: "DPoP algs=\"ES256\", error=\"\(error)\", error_description=\"\(description)\"", .cacheControl: "no-store",
        ]
        if error == "use_dpop_nonce" { headers[Self.dpopNonceHeader] = self.currentDPoPNonce }
        return HTTPHelpers.json(OAuthError(error: error, error_description: description), status: .unauthorized, headers: headers)
    }

    /// The access token a resource request presents in its `Authorization` header, checked:
    /// a `Bearer` token must not be bound to a key; a `DPoP` token needs a proof by its key
    /// with its hash. Returns the claims, or the `401` to answer; `nil` when the header has
    /// no token.
    func authorizeResource(_ request: Request) -> Result<AccessTokenClaims, ResourceRefusal>? {
        guard let (scheme, token) = HTTPHelpers.authorization(in: request) else { return nil }
        switch scheme {
        case "bearer":
            return self.verifyAccessToken(token).mapError { .token($0) }
        case "dpop":
            let claims: AccessTokenClaims
            switch self.verifyAccessToken(token, binding: .any) {
            case .success(let verified): claims = verified
            case .failure(let rejection): return .failure(.token(rejection))
            }
            switch self.dpopProof(of: request, accessToken: token) {
            case .none: return .failure(.proof(.invalid("A DPoP token needs a DPoP proof.")))
            case .refused(let refusal): return .failure(.proof(refusal))
            case .proven(let thumbprint):
                guard claims.cnf?.jkt == thumbprint else { return .failure(.proof(.invalid("The access token is bound to another key."))) }
                return .success(claims)
            }
        default:
            return .failure(.token(.malformed))
        }
    }

    /// Why a resource request's `Authorization` was refused.
    enum ResourceRefusal: Error {
        case token(AccessTokenRejection)
        case proof(DPoPProofCheck.Refusal)
    }

    /// The `401` for a refused `Authorization`.
    func unauthorized(_ refusal: ResourceRefusal) -> Response {
        switch refusal {
        case .proof(.useNonce):
            return self.resourceRefusal(error: "use_dpop_nonce", description: "Resource server requires nonce in DPoP proof.")
        case .proof(.invalid(let reason)):
            return self.resourceRefusal(error: "invalid_dpop_proof", description: reason)
        case .token(let rejection):
            self.countUnauthorized()
            let challenge = rejection == .missing ? "Bearer realm=\"reference\"" : "Bearer realm=\"reference\", error=\"invalid_token\""
            return HTTPHelpers.json(
                OAuthError(error: "invalid_token", error_description: rejection.description), status: .unauthorized,
                headers: [.wwwAuthenticate: challenge, .cacheControl: "no-store"])
        }
    }
}
