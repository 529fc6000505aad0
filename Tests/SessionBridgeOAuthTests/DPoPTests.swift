import AsyncHTTPClient
import Crypto
import Foundation
import SessionBridgeOAuth
import SessionBridgeTesting
import Testing

@Suite(.timeLimit(.minutes(1))) struct DPoPTests {
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
        let x = try #require(Data(base64Encoded: jwk["x"]!.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "="))
        let y = try #require(Data(base64Encoded: jwk["y"]!.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "="))
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
        var configuration = OAuthClientConfiguration(server: AuthorizationServer(issuer: URL(string: "http://127.0.0.1:9")!), clientID: "app")
        configuration.dpopKey = key
        var dumped = ""
        dump(key, to: &dumped)
        dump(configuration, to: &dumped)
        let proof = key.proof(method: "POST", url: URL(string: "https://as.example/token")!).exposedValue
        var unreachable = OAuthClientConfiguration(
            server: AuthorizationServer(tokenEndpoint: URL(string: "http://127.0.0.1:9/token")!), clientID: "app", requestTimeout: .seconds(2))
        unreachable.dpopKey = key
        var error: (any Error)?
        do { _ = try await send(OAuthClient(configuration: unreachable), .refreshToken(Secret("rt"))) } catch let thrown { error = thrown }
        #expect(error != nil)
        let text = [String(describing: key), String(reflecting: key), "\(key)", dumped, proof, "\(configuration)", String(describing: error)]
            .joined(separator: "\n")
        let raw = privateKey.rawRepresentation
        for rendering in [base64URL(raw), raw.base64EncodedString(), raw.map { String(format: "%02x", $0) }.joined(), privateKey.pemRepresentation] {
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
}
