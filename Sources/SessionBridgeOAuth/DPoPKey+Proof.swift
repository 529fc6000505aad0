import Crypto
public import Foundation

extension DPoPKey {
    /// A DPoP proof JWT (RFC 9449 §4.2) for one request: header `typ: dpop+jwt`, `alg: ES256`
    /// and the public `jwk`; claims `jti` (fresh), `htm`, `htu` (the URL without query and
    /// fragment), `iat`, and when given `ath` (the access token's SHA-256) and the server's `nonce`.
    ///
    /// - Parameters:
    ///   - method: the request's HTTP method.
    ///   - url: the request's URL.
    ///   - accessToken: the access token the request carries (resource requests), for `ath`.
    ///   - nonce: the latest `DPoP-Nonce` the server gave, if any.
    ///   - now: the issue time.
    public func proof(method: String, url: URL, accessToken: Secret? = nil, nonce: String? = nil, now: Date = Date()) -> Secret {
        let jwk = publicJWK
        let header: [String: Any] = ["typ": "dpop+jwt", "alg": algorithm, "jwk": jwk]
        var claims: [String: Any] = [
            "jti": Base64URL.random(byteCount: 18), "htm": method.uppercased(), "htu": Self.htu(url),
            "iat": Int(now.timeIntervalSince1970),
        ]
        if let accessToken { claims["ath"] = Self.accessTokenHash(accessToken.exposedValue) }
        if let nonce { claims["nonce"] = nonce }
        // Plain dictionaries of strings and integers always encode.
        let headerJSON = (try? JSONSerialization.data(withJSONObject: header, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        let claimsJSON = (try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(claimsJSON)
        // ECDSA over P-256 with a system key cannot fail for in-memory data.
        let signature = (try? privateKey.signature(for: Data(signingInput.utf8)).rawRepresentation) ?? Data()
        return Secret(signingInput + "." + Base64URL.encode(signature))
    }

    /// The `htu` of `url` (RFC 9449 §4.2): scheme, host, port and path, without query and fragment.
    public static func htu(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url.absoluteString }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.url?.absoluteString ?? url.absoluteString
    }

    /// The `ath` of an access token: base64url of its ASCII bytes' SHA-256.
    public static func accessTokenHash(_ accessToken: String) -> String {
        Base64URL.encode(SHA256.hash(data: Data(accessToken.utf8)))
    }
}
