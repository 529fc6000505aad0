import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import SessionBridgeOAuth
import SessionBridgeTestSupport
import SessionBridgeTesting
import Synchronization
import Testing

@testable import SessionBridge

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct DPoPSessionTests {
    func dpopConfiguration(_ server: ReferenceServer, key: DPoPKey = DPoPKey()) -> SessionConfiguration {
        var configuration = makeConfiguration(server)
        configuration.dpopKey = key
        configuration.freshnessWindow = .zero
        return configuration
    }

    /// Posts a refresh grant as an attacker who stole the token would: with `proof`, or none.
    func replay(_ token: String, at server: ReferenceServer, proof: Secret?) async throws -> (status: Int, error: String?) {
        var request = HTTPClientRequest(url: server.url("/oauth/token").absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        if let proof { request.headers.add(name: "DPoP", value: proof.exposedValue) }
        request.body = .bytes(Array(FormEncoding.encode([("grant_type", "refresh_token"), ("refresh_token", token)]).utf8))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 16)
        let json = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        return (Int(response.status.code), json?["error"] as? String)
    }

    @Test func refreshWithDPoPWorksAndAStolenRefreshTokenIsUselessWithoutTheKey() async throws {
        try await withServer { server in
            let key = DPoPKey()
            let vault = InMemoryTokenVault()
            let session = SessionController(configuration: dpopConfiguration(server, key: key), vault: vault)
            try await session.login(username: "demo", password: "demo")
            try await session.refresh()
            #expect(await session.accessTokenIsDPoP)
            let stolen = try #require(try vault.load()).refreshToken.withRevealedValue { $0 }
            #expect(server.boundKeyThumbprint(ofRefreshToken: stolen) == key.thumbprint)

            let bare = try await replay(stolen, at: server, proof: nil)
            #expect(bare.status == 400 && bare.error == "invalid_grant")
            let tokenURL = server.url("/oauth/token")
            let otherKey = try await replay(stolen, at: server, proof: DPoPKey().proof(method: "POST", url: tokenURL))
            #expect(otherKey.status == 400 && otherKey.error == "invalid_dpop_proof")

            // The refusals neither rotated nor revoked anything: the key holder refreshes on.
            #expect(server.refreshTokenState(stolen) == .current)
            #expect(server.stats().reuseEvents == 0)
            try await session.refresh()
            #expect(server.refreshTokenState(stolen) == .rotated)
            #expect(try await session.status().isSignedIn)
        }
    }

    @Test func theServersNonceIsFetchedOnceRememberedAndRenewed() async throws {
        var configuration = ReferenceServerConfiguration()
        configuration.dpopNonces = true
        try await withServer(configuration) { server in
            let session = SessionController(configuration: dpopConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            #expect(server.stats().dpopNonceChallenges == 1)
            try await session.refresh()
            #expect(server.stats().dpopNonceChallenges == 1)  // the remembered nonce was sent
            server.rotateDPoPNonce()
            server.rotateDPoPNonce()
            try await session.refresh()
            #expect(server.stats().dpopNonceChallenges == 2)
            #expect(server.stats().refreshes == 2)
            #expect(server.stats().reuseEvents == 0)
        }
    }

    @Test func nativeResourceRequestsCarryAProofWithTheAccessTokenHash() async throws {
        var configuration = ReferenceServerConfiguration()
        configuration.dpopNonces = true
        try await withServer(configuration) { server in
            let session = SessionController(configuration: dpopConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let client = SessionHTTPClient(session: session, configuration: .init(sendsAccessToken: true))
            let proofs = server.stats().dpopProofs
            let me = try await client.send(SessionHTTPRequest(url: server.url("/api/me?x=1")))
            #expect(me.status == 200)
            #expect(!me.retriedAfterRefresh)
            #expect(server.stats().dpopProofs == proofs + 1)

            // A stale nonce: the resource asks for its nonce (401 use_dpop_nonce), the request is sent once more.
            server.rotateDPoPNonce()
            server.rotateDPoPNonce()
            let challenges = server.stats().dpopNonceChallenges
            let again = try await client.send(SessionHTTPRequest(url: server.url("/api/me")))
            #expect(again.status == 200)
            #expect(server.stats().dpopNonceChallenges == challenges + 1)
            #expect(server.stats().refreshes == 0)

            // The bound access token is refused as a bearer token.
            let token = try #require(await session.accessToken)
            var bearer = HTTPClientRequest(url: server.url("/api/me").absoluteString)
            bearer.headers.add(name: "Authorization", value: "Bearer \(token.exposedValue)")
            let refused = try await HTTPClient.shared.execute(bearer, timeout: .seconds(5))
            #expect(refused.status.code == 401)
            try await client.shutdown()
        }
    }

    @Test func theKeyNeverAppearsInTheConfigurationLogsOrErrors() async throws {
        try await withServer { server in
            let privateKey = P256.Signing.PrivateKey()
            let logs = LogCollector()
            var configuration = dpopConfiguration(server, key: DPoPKey(privateKey: privateKey))
            configuration.logger = logs.logger
            let session = SessionController(configuration: configuration)
            try await session.login(username: "demo", password: "demo")
            server.revokeAllSessions()
            var failure = ""
            do { try await session.refresh() } catch { failure = "\(error) \(String(reflecting: error))" }
            #expect(failure.contains("invalid_grant"))
            var dumped = ""
            dump(configuration, to: &dumped)
            let text = [dumped, failure, "\(configuration)", logs.lines.withLock { $0.joined(separator: "\n") }].joined(separator: "\n")
            let raw = privateKey.rawRepresentation
            let base64url = raw.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            for rendering in [
                base64url, raw.base64EncodedString(), raw.map { String(format: "%02x", $0) }.joined(), privateKey.pemRepresentation,
            ] {
                #expect(!text.contains(rendering))
            }
            #expect(!logs.lines.withLock { $0.joined(separator: "\n") }.isEmpty)
        }
    }
}
