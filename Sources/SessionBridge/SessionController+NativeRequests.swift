import Foundation
import SessionBridgeCookies
import SessionBridgeOAuth

/// An access token with how it is presented.
struct AccessCredential: Sendable {
    var token: Secret
    /// Bound to the DPoP key: sent as `Authorization: DPoP` with a proof.
    var isDPoP: Bool
}

extension SessionController {
    // MARK: Native requests

    /// The access token in memory while it is valid past the refresh margin, for
    /// ``SessionHTTPClient``.
    func freshAccessToken() -> AccessCredential? {
        guard hasFreshAccessToken, let accessToken else { return nil }
        return AccessCredential(token: accessToken, isDPoP: accessTokenIsDPoP)
    }

    /// The `Authorization` field for `credential` on a request: `Bearer`, or `DPoP` with a
    /// fresh proof (`ath`, the origin's latest nonce) when the token is DPoP-bound.
    nonisolated func authorizationFields(for credential: AccessCredential, method: String, url: URL) -> [(String, String)] {
        if credential.isDPoP, let proof = client.oauth.dpopProof(method: method.uppercased(), url: url, accessToken: credential.token) {
            return [("Authorization", "DPoP \(credential.token.exposedValue)"), ("DPoP", proof.exposedValue)]
        }
        return [("Authorization", "Bearer \(credential.token.exposedValue)")]
    }

    /// Remembers the `DPoP-Nonce` of an answer from `url` and says whether the request is worth
    /// sending once more with a proof that carries it (a `401` `use_dpop_nonce`).
    nonisolated func needsDPoPNonceRetry(status: Int, headers: [(String, String)], from url: URL) -> Bool {
        configuration.dpopKey != nil && client.oauth.needsNonceRetry(status: status, headers: headers, body: Data(), from: url)
    }

    /// Applies a native request's `Set-Cookie` lines (deletions included) to the native store
    /// and every attached page (the native store's persistent profile is written behind the
    /// request); returns what was applied.
    func applyNativeResponseCookies(_ lines: [String], from url: URL, context: RequestContext) async -> [CookieWriteOperation] {
        guard !lines.isEmpty else { return [] }
        // Into the native store at once; into its persistent profile behind the request.
        let jar = cookieJar
        let apply = { jar.applyResponseCookies(lines, from: url, context: context) }
        let applied = attachment.map { $0.savingBehind(apply) } ?? apply()
        await fanOut(applied.operations)
        publish()  // a native sign-in to a cookie-refresh product starts the session
        return applied.operations
    }
}
