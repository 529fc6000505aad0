import Foundation
import JWTKit
import SessionBridgeOAuth
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct IDTokenTests {
    /// Signs in with the password grant and `openid`, returning the raw ID token.
    func idToken(from server: ReferenceServer) async throws -> Secret {
        try #require(try await send(makeClient(server), .password(username: "demo", password: Secret("demo"))).idToken)
    }

    @Test(arguments: [IDTokenAlgorithm.es256, .rs256])
    func aValidTokenOfEitherAlgorithmIsAccepted(algorithm: IDTokenAlgorithm) async throws {
        var configuration = ReferenceServerConfiguration()
        configuration.idTokenAlgorithm = algorithm
        try await withServer(configuration) { server in
            let token = try await makeClient(server).validateIDToken(try await idToken(from: server), nonce: nil)
            #expect(token.subject == "demo")
            #expect(token.expiresAt > Date())
            #expect(!"\(token)".contains("eyJ"))
        }
    }

    @Test(arguments: [
        (OAuthFaults.IDTokenFault.badSignature, OAuthError.Code.invalidIDToken, "signature"),
        (.wrongIssuer, .issuerMismatch, "issuer"),
        (.wrongAudience, .invalidIDToken, "aud"),
        (.expired, .invalidIDToken, "expired"),
    ])
    func eachFailedCheckIsReported(fault: OAuthFaults.IDTokenFault, code: OAuthError.Code, words: String) async throws {
        try await withServer { server in
            server.setOAuthFaults(OAuthFaults(idToken: fault))
            let raw = try await idToken(from: server)
            let error = await oauthError { _ = try await makeClient(server).validateIDToken(raw, nonce: nil) }
            #expect(error?.code == code)
            #expect(error?.message.contains(words) == true, "\(String(describing: error))")
        }
    }

    @Test func aNonceOtherThanTheOneSentIsRefused() async throws {
        try await withServer { server in
            server.setOAuthFaults(OAuthFaults(idToken: .wrongNonce))
            let client = makeClient(server)
            let (request, answer) = try await signInWithCode(client)
            let error = await oauthError { _ = try await client.validateIDToken(try #require(answer.idToken), nonce: request.nonce) }
            #expect(error?.code == .invalidIDToken)
            #expect(error?.message.contains("nonce") == true)
        }
    }

    @Test func unsignedAndHMACTokensAreRefused() async throws {
        try await withServer { server in
            let client = makeClient(server)
            func token(header: String) -> Secret {
                let encode = { (text: String) in
                    Data(text.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
                        .replacingOccurrences(of: "/", with: "_")
                }
                let claims =
                    #"{"iss":"\#(server.issuer)","sub":"demo","aud":"app","exp":\#(Int(Date().timeIntervalSince1970) + 60),"iat":\#(Int(Date().timeIntervalSince1970))}"#
                return Secret(encode(header) + "." + encode(claims) + ".")
            }
            for header in [#"{"alg":"none"}"#, #"{"alg":"HS256"}"#] {
                let error = await oauthError { _ = try await client.validateIDToken(token(header: header), nonce: nil) }
                #expect(error?.code == .invalidIDToken)
            }
        }
    }

    /// An ID token signed with HMAC, its key the client's secret (OpenID Connect Core §10.1,
    /// as Auth0 signs them for an application set to HS256), is accepted by a confidential
    /// client when its signature verifies with that secret, and by no other client.
    @Test func anHMACTokenIsCheckedWithTheClientsSecret() async throws {
        let issuer = "https://as.example/"
        let now = Int(Date().timeIntervalSince1970)
        let claims = HMACClaims(iss: issuer, sub: "u1", aud: "app", exp: now + 300, iat: now)
        let secret = "the-client-secret-of-forty-characters-00"
        let signed = try await JWTKeyCollection().add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256).sign(claims)
        let forged = try await JWTKeyCollection().add(hmac: HMACKey(from: String(secret.reversed())), digestAlgorithm: .sha256).sign(claims)
        func validator(secret: String?) -> IDTokenValidator {
            IDTokenValidator(
                issuer: issuer, clientID: "app", jwksURI: URL(string: "https://as.example/jwks")!,
                httpClient: OAuthClientConfiguration.defaultHTTPClient, clientSecret: secret.map(Secret.init))
        }
        let token = try await validator(secret: secret).validate(signed, nonce: nil)
        #expect(token.subject == "u1")
        // A token not valid before a time to come (RFC 7519 §4.1.5), and one whose header names
        // an extension that must be understood (RFC 7515 §4.1.11), are refused.
        var later = claims
        later.nbf = now + 3600
        var critical = JWTHeader()
        critical.crit = ["urn:example:unknown"]
        let keys = await JWTKeyCollection().add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        for refused in [try await keys.sign(later), try await keys.sign(claims, header: critical)] {
            await #expect(throws: OAuthError.self) { try await validator(secret: secret).validate(refused, nonce: nil) }
        }
        // Forged, no secret, and a secret shorter than the hash (RFC 7518 §3.2: refused, not a trap).
        for (secret, text) in [(secret, forged), (nil, signed), ("short", signed)] as [(String?, String)] {
            await #expect(throws: OAuthError.self) { try await validator(secret: secret).validate(text, nonce: nil) }
        }
    }

    struct HMACClaims: JWTPayload {
        var iss: String
        var sub: String
        var aud: String
        var exp: Int
        var iat: Int
        var nbf: Int?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}
