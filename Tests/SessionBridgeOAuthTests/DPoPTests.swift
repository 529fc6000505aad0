import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import SessionBridgeOAuth
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct DPoPTests {
    func decodeJSON(_ part: Substring) throws -> [String: Any] {
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func base64URL(_ data: some Sequence<UInt8>) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    func dpopClient(_ server: ReferenceServer, key: DPoPKey) -> OAuthClient {
        var configuration = OAuthClientConfiguration(
            server: AuthorizationServer(issuer: URL(string: server.issuer)!), clientID: "app", requestTimeout: .seconds(5))
        configuration.dpopKey = key
        return OAuthClient(configuration: configuration)
    }

    @Test func aProofCarriesThePublicKeyTheRequestAndTheAccessTokenHash() throws {
        let key = DPoPKey()
        let url = URL(string: "https://api.example:8443/v1/me?page=2#top")!
        let proof = key.proof(method: "get", url: url, accessToken: Secret("at-123"), nonce: "n-1").exposedValue
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        let header = try decodeJSON(parts[0]), claims = try decodeJSON(parts[1])
        #expect(header["typ"] as? String == "dpop+jwt")
        #expect(header["alg"] as? String == "ES256")
        let jwk = try #require(header["jwk"] as? [String: String])
        #expect(jwk["kty"] == "EC" && jwk["crv"] == "P-256" && jwk["d"] == nil)
        #expect(claims["htm"] as? String == "GET")
        #expect(claims["htu"] as? String == "https://api.example:8443/v1/me")
        #expect(claims["nonce"] as? String == "n-1")
        #expect(claims["ath"] as? String == base64URL(SHA256.hash(data: Data("at-123".utf8))))
        #expect(abs((claims["iat"] as? Double ?? 0) - Date().timeIntervalSince1970) < 60)
        #expect((claims["jti"] as? String)?.isEmpty == false)
        // Each proof is fresh, and the signature verifies with the key in the header.
        let again = key.proof(method: "GET", url: url).exposedValue
        #expect(try decodeJSON(again.split(separator: ".")[1])["jti"] as? String != claims["jti"] as? String)
        let x = try #require(
            Data(base64Encoded: jwk["x"]!.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "="))
        let y = try #require(
            Data(base64Encoded: jwk["y"]!.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "="))
        let publicKey = try P256.Signing.PublicKey(rawRepresentation: x + y)
        var signature = String(parts[2]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while signature.count % 4 != 0 { signature += "=" }
        let ecdsa = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Data(base64Encoded: signature)))
        #expect(publicKey.isValidSignature(ecdsa, for: Data("\(parts[0]).\(parts[1])".utf8)))
        // RFC 7638: SHA-256 of the required members in order, without whitespace.
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(jwk["x"]!)","y":"\#(jwk["y"]!)"}"#
        #expect(key.thumbprint == base64URL(SHA256.hash(data: Data(canonical.utf8))))
    }

    @Test func thePrivateKeyNeverPrints() async throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = DPoPKey(privateKey: privateKey)
        var configuration = OAuthClientConfiguration(
            server: AuthorizationServer(issuer: URL(string: "http://127.0.0.1:9")!), clientID: "app")
        configuration.dpopKey = key
        var dumped = ""
        dump(key, to: &dumped)
        dump(configuration, to: &dumped)
        let proof = key.proof(method: "POST", url: URL(string: "https://as.example/token")!).exposedValue
        var unreachable = OAuthClientConfiguration(
            server: AuthorizationServer(tokenEndpoint: URL(string: "http://127.0.0.1:9/token")!), clientID: "app",
            requestTimeout: .seconds(2))
        unreachable.dpopKey = key
        var error: (any Error)?
        do { _ = try await send(OAuthClient(configuration: unreachable), .refreshToken(Secret("rt"))) } catch let thrown { error = thrown }
        #expect(error != nil)
        let text = [
            String(describing: key), String(reflecting: key), "\(key)", dumped, proof, "\(configuration)", String(describing: error),
        ]
        .joined(separator: "\n")
        let raw = privateKey.rawRepresentation
        for rendering in [
            base64URL(raw), raw.base64EncodedString(), raw.map { String(format: "%02x", $0) }.joined(), privateKey.pemRepresentation,
        ] {
            #expect(!text.contains(rendering))
        }
        #expect(text.contains(key.thumbprint))
        #expect(String(describing: key).contains("redacted"))
    }

    @Test func tokensAreBoundToTheKeyAndTypedDPoP() async throws {
        try await withServer { server in
            let key = DPoPKey()
            let client = dpopClient(server, key: key)
            let answer = try await send(client, .password(username: "demo", password: Secret("demo")))
            #expect(answer.tokenType == "dpop")
            let refresh = try #require(answer.refreshToken)
            #expect(server.boundKeyThumbprint(ofRefreshToken: refresh.exposedValue) == key.thumbprint)
            #expect(server.verifyAccessToken(answer.accessToken.exposedValue)?.cnf?.jkt == key.thumbprint)
            let refreshed = try await send(client, .refreshToken(refresh))
            #expect(refreshed.tokenType == "dpop")
            #expect(server.stats().dpopProofs == 2)
        }
    }

    @Test func aNonceIsAskedForRememberedPerOriginAndSent() async throws {
        var configuration = ReferenceServerConfiguration()
        configuration.dpopNonces = true
        try await withServer(configuration) { server in
            let client = dpopClient(server, key: DPoPKey())
            let endpoint = try await client.tokenEndpoint()
            let first = try await client.tokenRequest(.password(username: "demo", password: Secret("demo")))
            let response = try await client.configuration.httpClient.execute(first, timeout: .seconds(5))
            let body = Data(try await response.body.collect(upTo: 1 << 16).readableBytesView)
            #expect(response.status.code == 400)
            let headers = response.headers.map { ($0.name, $0.value) }
            #expect(client.needsNonceRetry(status: 400, headers: headers, body: body, from: endpoint))
            #expect(client.dpopNonces.nonce(for: endpoint) == server.dpopNonce)
            #expect(client.dpopNonces.nonce(for: URL(string: "http://other.example/")!) == nil)
            let answer = try await send(client, .password(username: "demo", password: Secret("demo")))
            #expect(answer.tokenType == "dpop")
            #expect(server.stats().dpopNonceChallenges == 1)
        }
    }

    /// A compact JWS of `header` and `claims` signed with `key`, for proofs the library would never make.
    func sign(header: [String: Any], claims: [String: Any], with key: P256.Signing.PrivateKey) throws -> String {
        let input =
            base64URL(try JSONSerialization.data(withJSONObject: header)) + "."
            + base64URL(try JSONSerialization.data(withJSONObject: claims))
        return input + "." + base64URL(try key.signature(for: Data(input.utf8)).rawRepresentation)
    }

    /// Posts a password grant with `proof` in the `DPoP` header; returns the status and `error`.
    func passwordGrant(_ server: ReferenceServer, proof: String) async throws -> (Int, String?) {
        var request = HTTPClientRequest(url: server.url("/oauth/token").absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "DPoP", value: proof)
        request.body = .bytes(Array("grant_type=password&username=demo&password=demo".utf8))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 16)
        let json = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        return (Int(response.status.code), json?["error"] as? String)
    }

    @Test func theServerRefusesProofsThatDoNotProveThisRequest() async throws {
        try await withServer { server in
            let privateKey = P256.Signing.PrivateKey()
            let key = DPoPKey(privateKey: privateKey)
            let token = server.url("/oauth/token")
            let now = Int(Date().timeIntervalSince1970)
            func claims(_ changes: [String: Any] = [:]) -> [String: Any] {
                ["jti": UUID().uuidString, "htm": "POST", "htu": token.absoluteString, "iat": now].merging(changes) { $1 }
            }
            let header: [String: Any] = ["typ": "dpop+jwt", "alg": "ES256", "jwk": key.publicJWK]
            let refusals: [(String, String)] = [
                ("typ", try sign(header: header.merging(["typ": "JWT"]) { $1 }, claims: claims(), with: privateKey)),
                ("alg", try sign(header: header.merging(["alg": "HS256"]) { $1 }, claims: claims(), with: privateKey)),
                ("key", try sign(header: header.merging(["jwk": DPoPKey().publicJWK]) { $1 }, claims: claims(), with: privateKey)),
                ("htm", try sign(header: header, claims: claims(["htm": "GET"]), with: privateKey)),
                ("htu", try sign(header: header, claims: claims(["htu": server.url("/oauth/revoke").absoluteString]), with: privateKey)),
                ("iat", try sign(header: header, claims: claims(["iat": now - 600]), with: privateKey)),
                ("jti", try sign(header: header, claims: claims(["jti": ""]), with: privateKey)),
                ("garbage", "not.a.jwt"),
            ]
            for (what, proof) in refusals {
                let (status, error) = try await passwordGrant(server, proof: proof)
                #expect(status == 400 && error == "invalid_dpop_proof", "\(what)")
            }
            // A proof is good once: its replay is refused.
            let proof = key.proof(method: "POST", url: token).exposedValue
            #expect(try await passwordGrant(server, proof: proof) == (200, nil))
            #expect(try await passwordGrant(server, proof: proof) == (400, "invalid_dpop_proof"))
            #expect(server.stats().dpopRefusals == refusals.count + 1)
            #expect(server.stats().logins == 1)

            // At a resource, the proof's ath must be the hash of the token it comes with.
            let client = dpopClient(server, key: key)
            let answer = try await send(client, .password(username: "demo", password: Secret("demo")))
            let me = server.url("/api/me")
            for (proof, expected) in [
                (key.proof(method: "GET", url: me, accessToken: Secret("another token")), UInt(401)),
                (key.proof(method: "GET", url: me, accessToken: answer.accessToken), 200),
            ] {
                var request = HTTPClientRequest(url: me.absoluteString)
                request.headers.add(name: "Authorization", value: "DPoP \(answer.accessToken.exposedValue)")
                request.headers.add(name: "DPoP", value: proof.exposedValue)
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
                #expect(response.status.code == expected)
                if expected == 401 { #expect(response.headers.first(name: "www-authenticate")?.contains("invalid_dpop_proof") == true) }
            }
        }
    }

    @Test func theAuthorizationCodeIsBoundToTheKeyByDPoPJKT() async throws {
        try await withServer { server in
            let agent = FormFillingUserAgent(username: "demo", password: Secret("demo"))
            let key = DPoPKey()
            func client(_ key: DPoPKey) -> OAuthClient {
                var configuration = OAuthClientConfiguration(
                    server: AuthorizationServer(issuer: URL(string: server.issuer)!), clientID: "app", scope: "openid offline_access",
                    redirectURI: URL(string: "com.example.app:/callback")!, requestTimeout: .seconds(5))
                configuration.dpopKey = key
                return OAuthClient(configuration: configuration)
            }
            for (exchanger, bound) in [(client(DPoPKey()), false), (client(key), true)] {
                let request = try await client(key).makeAuthorizationRequest()
                let query = FormEncoding.decode(try #require(request.url.query))
                #expect(query["dpop_jkt"] == key.thumbprint)
                let code = try request.authorizationCode(from: try await agent.authorize(request.url, redirectURI: request.redirectURI))
                let grant = TokenGrant.authorizationCode(
                    code: Secret(code), codeVerifier: request.codeVerifier, redirectURI: request.redirectURI)
                if bound {
                    #expect(try await send(exchanger, grant).tokenType == "dpop")
                } else {
                    let error = await oauthError { _ = try await send(exchanger, grant) }
                    #expect(error?.code == .invalidDPoPProof)
                }
            }
        }
    }
}
