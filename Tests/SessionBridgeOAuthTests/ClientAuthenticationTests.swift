import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore
import NIOHTTP1
import SessionBridgeOAuth
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct ClientAuthenticationTests {
    @Test func basicCredentialsAreFormEncodedBeforeBase64() async throws {
        var form: [(String, String)] = []
        var headers: [(String, String)] = []
        try await ClientAuthentication.clientSecretBasic(Secret("a b:c/é")).authenticate(
            form: &form, headers: &headers, clientID: "my client", audience: "https://as.example/token")
        let encoded = try #require(headers.first { $0.0 == "Authorization" }?.1.dropFirst("Basic ".count))
        let decoded = String(decoding: try #require(Data(base64Encoded: String(encoded))), as: UTF8.self)
        #expect(decoded == "my+client:a+b%3Ac%2F%C3%A9")
        #expect(form.isEmpty)
    }

    @Test(arguments: ["basic", "post", "app"])
    func eachSecretMethodIsAcceptedByTheServer(clientID: String) async throws {
        try await withServer(confidentialServerConfiguration()) { server in
            let authentication: ClientAuthentication =
                switch clientID {
                case "basic": .clientSecretBasic(Secret(basicSecret))
                case "post": .clientSecretPost(Secret(postSecret))
                default: .none
                }
            let client = makeClient(server, clientID: clientID, authentication: authentication)
            let answer = try await send(client, .password(username: "demo", password: Secret("demo")))
            #expect(answer.refreshToken != nil)
            let refreshed = try await send(client, .refreshToken(try #require(answer.refreshToken)))
            #expect(refreshed.refreshToken != answer.refreshToken)
        }
    }

    @Test func aWrongSecretIsInvalidClientAndNeverQuoted() async throws {
        try await withServer(confidentialServerConfiguration()) { server in
            for authentication in [
                ClientAuthentication.clientSecretBasic(Secret("wrong-secret-1")), .clientSecretPost(Secret("wrong-secret-1")), .none,
            ] {
                let client = makeClient(server, clientID: "basic", authentication: authentication)
                let error = await oauthError { _ = try await send(client, .password(username: "demo", password: Secret("demo"))) }
                #expect(error?.code == .invalidClient)
                #expect(error?.isConfigurationError == true)
                #expect(error?.status == 401)
                #expect(!"\(String(describing: error))".contains("wrong-secret-1"))
            }
        }
    }

    @Test func aGrantTheClientMayNotUseIsUnauthorizedClient() async throws {
        try await withServer(confidentialServerConfiguration()) { server in
            let client = makeClient(server, clientID: "password-only")
            let answer = try await send(client, .password(username: "demo", password: Secret("demo")))
            let error = await oauthError { _ = try await send(client, .refreshToken(try #require(answer.refreshToken))) }
            #expect(error?.code == .unauthorizedClient)
        }
    }

    @Test func privateKeyJWTWithES256AndRS256() async throws {
        let ec = try makeECKey()
        let rsa = try makeRSAKey()
        #expect(ec.algorithm == .es256)
        #expect(rsa.algorithm == .rs256)
        try await withServer(confidentialServerConfiguration(ecKey: ec, rsaKey: rsa)) { server in
            for (id, key) in [("jwt-es", ec), ("jwt-rs", rsa)] {
                let client = makeClient(server, clientID: id, authentication: .privateKeyJWT(key))
                let answer = try await send(client, .password(username: "demo", password: Secret("demo")))
                // A second request signs a second assertion (a fresh jti): accepted too.
                _ = try await send(client, .refreshToken(try #require(answer.refreshToken)))
            }
        }
    }

    @Test func theAssertionCarriesTheRFC7523Claims() async throws {
        let key = try makeECKey()
        let now = Date()
        let assertion = try await ClientAssertion.sign(clientID: "jwt-es", audience: "https://as.example/token", key: key, now: now)
        let parts = assertion.exposedValue.split(separator: ".")
        #expect(parts.count == 3)
        var payload = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while payload.count % 4 != 0 { payload += "=" }
        let data = try #require(Data(base64Encoded: payload))
        let claims = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(claims["iss"] as? String == "jwt-es")
        #expect(claims["sub"] as? String == "jwt-es")
        #expect(claims["aud"] as? String == "https://as.example/token")
        #expect((claims["jti"] as? String)?.count ?? 0 >= 16)
        #expect((claims["exp"] as? Int) == Int(now.timeIntervalSince1970) + 60)
    }

    @Test func anExpiredAssertionAndAReplayedOneAreRefused() async throws {
        let key = try makeECKey()
        try await withServer(confidentialServerConfiguration(ecKey: key)) { server in
            let audience = server.url("/oauth/token").absoluteString
            func post(_ assertion: Secret) async throws -> Int {
                var request = HTTPClientRequest(url: audience)
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(
                    Array(
                        FormEncoding.encode([
                            ("grant_type", "password"), ("username", "demo"), ("password", "demo"), ("client_id", "jwt-es"),
                            ("client_assertion_type", ClientAssertion.type), ("client_assertion", assertion.exposedValue),
                        ]).utf8))
                let response = try await OAuthClientConfiguration.defaultHTTPClient.execute(request, timeout: .seconds(5))
                let body = String(buffer: try await response.body.collect(upTo: 1 << 16))
                if response.status.code != 200 { #expect(body.contains("invalid_client")) }
                return Int(response.status.code)
            }
            let expired = try await ClientAssertion.sign(
                clientID: "jwt-es", audience: audience, key: key, now: Date().addingTimeInterval(-120))
            #expect(try await post(expired) == 401)
            let fresh = try await ClientAssertion.sign(clientID: "jwt-es", audience: audience, key: key)
            #expect(try await post(fresh) == 200)
            #expect(try await post(fresh) == 401)  // the same jti again
            let otherKey = try makeECKey()
            let forged = try await ClientAssertion.sign(clientID: "jwt-es", audience: audience, key: otherKey)
            #expect(try await post(forged) == 401)
        }
    }

    @Test func aKeyThatIsNotAPrivateKeyIsAClearError() {
        #expect(throws: OAuthError.self) { try ClientPrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----") }
        do {
            _ = try ClientPrivateKey(pem: "garbage-key-material")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(!error.description.contains("garbage-key-material"))
        }
    }

    @Test func revocationUsesTheClientsAuthentication() async throws {
        try await withServer(confidentialServerConfiguration()) { server in
            let client = makeClient(server, clientID: "post", authentication: .clientSecretPost(Secret(postSecret)))
            let answer = try await send(client, .password(username: "demo", password: Secret("demo")))
            let refresh = try #require(answer.refreshToken)
            let wrong = makeClient(server, clientID: "post", authentication: .clientSecretPost(Secret("nope")))
            #expect(await oauthError { try await wrong.revoke(refresh) }?.code == .invalidClient)
            #expect(server.stats().activeSessions == 1)
            try await client.revoke(refresh)
            #expect(server.stats().activeSessions == 0)
            let error = await oauthError { _ = try await send(client, .refreshToken(refresh)) }
            #expect(error?.code == .invalidGrant)
        }
    }
}
