public import AsyncHTTPClient
public import Foundation
import JWTKit
import Logging

/// Validates ID tokens as OpenID Connect Core §3.1.3.7 asks: the signature against the
/// issuer's JSON Web Key Set, `iss` (a multi-tenant issuer's, `…/{tenantid}/…`, filled with the
/// token's `tid`), `aud` (and `azp` when there are several audiences),
/// `exp` and `iat` within a clock skew, and the `nonce` of the sign-in that asked for it.
///
/// The key set is fetched on first use and again when a token names a key it lacks (the
/// issuer rotated its keys), at most every `reloadInterval`.
public actor IDTokenValidator {
    /// The issuer the token must name.
    public nonisolated let issuer: String
    /// The client id the token must be issued to.
    public nonisolated let clientID: String
    /// Where the issuer publishes its keys.
    public nonisolated let jwksURI: URL
    /// The clock difference tolerated on `exp` and `iat`.
    public nonisolated let clockSkew: Duration
    private let httpClient: HTTPClient
    private let timeout: Duration
    /// A confidential client's secret, the key of ID tokens signed with HMAC (OpenID Connect
    /// Core §10.1), as Auth0 signs them for an application set to HS256.
    private let clientSecret: Secret?
    private var keys: JWTKeyCollection?
    private var keyIDs: Set<String> = []
    private var loadedAt: ContinuousClock.Instant?
    /// The shortest time between two fetches of the key set, so tokens naming unknown keys
    /// cannot make the client hammer the issuer.
    static let reloadInterval: Duration = .seconds(30)

    /// Creates a validator.
    public init(
        issuer: String, clientID: String, jwksURI: URL, clockSkew: Duration = .seconds(60),
        httpClient: HTTPClient, timeout: Duration = .seconds(10), clientSecret: Secret? = nil
    ) {
        self.clientSecret = clientSecret
        self.issuer = issuer
        self.clientID = clientID
        self.jwksURI = jwksURI
        self.clockSkew = clockSkew
        self.httpClient = httpClient
        self.timeout = timeout
    }

    /// The algorithms an ID token may be signed with from the issuer's key set; `none` never.
    static let acceptedAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
    /// The HMAC algorithms, whose key is the client's secret: a client without one refuses them.
    static let hmacAlgorithms: [String: DigestAlgorithm] = ["HS256": .sha256, "HS384": .sha384, "HS512": .sha512]
    /// The bytes of each HMAC algorithm's hash output, the shortest key it takes.
    private let digestBytes = ["HS256": 32, "HS384": 48, "HS512": 64]

    struct Payload: JWTPayload {
        func verify(using algorithm: some JWTAlgorithm) async throws {}
        init(from decoder: any Decoder) throws {}
        func encode(to encoder: any Encoder) throws {}
    }

    /// Whether `token` can be validated with the keys already loaded, no request made: the
    /// key set is loaded and holds the key the token names (any, for a token naming none).
    public func hasKeys(for token: String) -> Bool {
        guard keys != nil else { return false }
        guard let headerData = token.split(separator: ".", maxSplits: 1).first.flatMap({ Base64URL.decode($0) }),
            let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any]
        else { return true }  // refused at once, without a request
        return (header["kid"] as? String).map { keyIDs.contains($0) } ?? true
    }

    /// Validates `token`.
    ///
    /// - Parameters:
    ///   - token: the compact ID token.
    ///   - nonce: the nonce the authorization request sent; `nil` on refresh.
    ///   - now: the time to check `exp` and `iat` against.
    /// - Throws: ``OAuthError`` with ``OAuthError/Code/invalidIDToken`` saying which check failed.
    public func validate(_ token: String, nonce: String?, now: Date = Date()) async throws(OAuthError) -> IDToken {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let payloadData = Base64URL.decode(parts[1]),
            let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
            let claims = (try? JSONSerialization.jsonObject(with: payloadData)) as? [String: Any]
        else { throw Self.failure("it is not a compact JWS with JSON header and claims") }
        // RFC 7515 §4.1.11: an extension the token says must be understood, and this client
        // understands none.
        if header["crit"] != nil { throw Self.failure("its header names extensions that must be understood (crit)") }
        if let algorithm = header["alg"] as? String, let digest = Self.hmacAlgorithms[algorithm] {
            guard let clientSecret else {
                throw Self.failure("its algorithm \(algorithm) needs a client secret, which this client has not")
            }
            // RFC 7518 §3.2: a key as long as the hash's output at least (and JWTKit traps on a shorter one).
            guard clientSecret.exposedValue.utf8.count >= digestBytes[algorithm, default: 64] else {
                throw Self.failure("its algorithm \(algorithm) needs a client secret as long as its hash (RFC 7518 §3.2)")
            }
            let collection = JWTKeyCollection()
            await collection.add(hmac: HMACKey(from: clientSecret.exposedValue), digestAlgorithm: digest)
            do {
                _ = try await collection.verify(token, as: Payload.self, iteratingKeys: true)
            } catch {
                throw Self.failure("its signature does not verify with the client's secret")
            }
            return try claimsChecked(claims, payload: payloadData, nonce: nonce, now: now)
        }
        guard let algorithm = header["alg"] as? String, Self.acceptedAlgorithms.contains(algorithm) else {
            throw Self.failure("its algorithm \((header["alg"] as? String).map { OAuthError.sanitize($0) } ?? "(none)") is not accepted")
        }
        let kid = header["kid"] as? String
        let unknownKey = kid.map { !keyIDs.contains($0) } ?? false
        if keys == nil || (unknownKey && loadedAt.map { ContinuousClock.now - $0 >= Self.reloadInterval } ?? true) { try await loadKeys() }
        guard let keys else { throw Self.failure("the issuer's keys could not be loaded") }
        if let kid, !keyIDs.contains(kid) { throw Self.failure("it is signed with a key the issuer does not publish") }
        do {
            _ = try await keys.verify(token, as: Payload.self, iteratingKeys: kid == nil)
        } catch {
            throw Self.failure("its signature does not verify with the issuer's keys")
        }
        return try claimsChecked(claims, payload: payloadData, nonce: nonce, now: now)
    }

    /// Checks the claims of a token whose signature verified, and returns it.
    private func claimsChecked(_ claims: [String: Any], payload payloadData: Data, nonce: String?, now: Date) throws(OAuthError) -> IDToken
    {
        // A multi-tenant issuer's token names the issuer of the tenant its `tid` names.
        var expected = issuer
        if let template = IssuerTemplate(issuer) {
            guard let tenant = claims["tid"] as? String, let tenantIssuer = template.issuer(ofTenant: tenant) else {
                throw OAuthError(.issuerMismatch, "the ID token of a multi-tenant issuer names no tenant (tid)")
            }
            expected = tenantIssuer
        }
        guard let iss = claims["iss"] as? String, iss == expected else {
            throw OAuthError(
                .issuerMismatch,
                "the ID token names the issuer \((claims["iss"] as? String).map { "'\(OAuthError.sanitize($0))'" } ?? "(none)"), not '\(OAuthError.sanitize(expected))'"
            )
        }
        guard let sub = claims["sub"] as? String, !sub.isEmpty else { throw Self.failure("it has no subject") }
        let audience: [String] = (claims["aud"] as? String).map { [$0] } ?? ((claims["aud"] as? [Any])?.compactMap { $0 as? String } ?? [])
        guard audience.contains(clientID) else { throw Self.failure("it is not issued to this client (aud)") }
        let azp = claims["azp"] as? String
        if let azp, azp != clientID { throw Self.failure("it is authorized for another party (azp)") }
        if audience.count > 1, azp == nil { throw Self.failure("it has several audiences and no azp") }
        let skew = Double(clockSkew.components.seconds)
        guard let exp = (claims["exp"] as? NSNumber)?.doubleValue else { throw Self.failure("it has no exp") }
        guard exp > now.timeIntervalSince1970 - skew else { throw Self.failure("it has expired") }
        guard let iat = (claims["iat"] as? NSNumber)?.doubleValue else { throw Self.failure("it has no iat") }
        guard iat <= now.timeIntervalSince1970 + skew else { throw Self.failure("it was issued in the future (iat)") }
        // RFC 7519 §4.1.5.
        if let nbf = (claims["nbf"] as? NSNumber)?.doubleValue, nbf > now.timeIntervalSince1970 + skew {
            throw Self.failure("it is not valid before a time still to come (nbf)")
        }
        let tokenNonce = claims["nonce"] as? String
        if let nonce, tokenNonce != nonce { throw Self.failure("its nonce is not the one this sign-in sent") }

        var texts: [String: String] = [:]
        for (name, value) in claims {
            if let text = value as? String {
                texts[name] = text
            } else if let number = value as? NSNumber {
                texts[name] = number.stringValue
            }
        }
        return IDToken(
            issuer: iss, subject: sub, audience: audience, expiresAt: Date(timeIntervalSince1970: exp),
            issuedAt: Date(timeIntervalSince1970: iat), nonce: tokenNonce, authorizedParty: azp, claims: texts, payload: payloadData)
    }

    private func loadKeys() async throws(OAuthError) {
        let answer = try await OAuthHTTP.get(jwksURI, client: httpClient, timeout: timeout)
        guard answer.status == 200, let json = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any],
            let list = json["keys"] as? [[String: Any]]
        else { throw Self.failure("the issuer's key set at \(jwksURI.absoluteString) could not be read") }
        let collection = JWTKeyCollection()
        var ids: Set<String> = []
        for (index, var entry) in list.enumerated() where (entry["use"] as? String ?? "sig") == "sig" {
            // A key without `kid` is still usable: it gets a local one.
            if entry["kid"] == nil { entry["kid"] = "#\(index)" }
            guard let data = try? JSONSerialization.data(withJSONObject: entry), let jwk = try? JSONDecoder().decode(JWK.self, from: data),
                (try? await collection.add(jwk: jwk)) != nil
            else { continue }
            if let kid = entry["kid"] as? String { ids.insert(kid) }
        }
        guard !ids.isEmpty else { throw Self.failure("the issuer's key set holds no usable signing key") }
        keys = collection
        keyIDs = ids
        loadedAt = .now
    }

    static func failure(_ reason: String) -> OAuthError {
        OAuthError(.invalidIDToken, "the ID token was refused: \(reason)")
    }
}
