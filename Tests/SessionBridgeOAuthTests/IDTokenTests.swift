import Foundation
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
}
