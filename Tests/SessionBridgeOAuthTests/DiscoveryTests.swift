import Foundation
import SessionBridgeOAuth
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct DiscoveryTests {
    @Test func bothWellKnownDocumentsNameTheServersEndpoints() async throws {
        try await withServer { server in
            let issuer = URL(string: server.issuer)!
            let urls = AuthorizationServerMetadata.discoveryURLs(for: issuer)
            #expect(urls.map(\.path) == ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"])
            let metadata = try await AuthorizationServerMetadata.discover(
                issuer: issuer, httpClient: OAuthClientConfiguration.defaultHTTPClient)
            #expect(metadata.issuer == server.issuer)
            #expect(metadata.tokenEndpoint == server.url("/oauth/token"))
            #expect(metadata.authorizationEndpoint == server.url("/oauth/authorize"))
            #expect(metadata.revocationEndpoint == server.url("/oauth/revoke"))
            #expect(metadata.jwksURI == server.url("/oauth/jwks"))
            #expect(metadata.codeChallengeMethodsSupported == ["S256"])
            #expect(metadata.authorizationResponseIssParameterSupported)
        }
    }

    /// A server that refuses the connection fails discovery as a network error naming the
    /// refusal. The request's limit (5 s) is shorter than the client's connect timeout: a client
    /// that retried the refusal itself would run into that limit and report no answer.
    @Test func aStoppedServerFailsDiscoveryAsARefusedConnection() async throws {
        let refusing = try RefusingPort()
        let issuer = URL(string: "http://127.0.0.1:\(refusing.port)")!
        do {
            _ = try await AuthorizationServerMetadata.discover(
                issuer: issuer, httpClient: OAuthClientConfiguration.defaultHTTPClient, timeout: .seconds(5))
            Issue.record("discovery against a stopped server succeeded")
        } catch {
            #expect(error.code == .network)
            #expect(error.message.contains("refused the connection"), "\(error.message)")
        }
    }

    /// A status code HTTP does not have (below 100) fails discovery; it does not end the
    /// process (AsyncHTTPClient stopped it on the body of such an answer).
    @Test func aStatusCodeBelow100FailsDiscoveryNotTheProcess() async throws {
        let listener = try RawHTTPListener { _ in "HTTP/1.1 000 X\r\nContent-Length: 2\r\n\r\n{}" }
        defer { listener.stop() }
        do {
            _ = try await AuthorizationServerMetadata.discover(
                issuer: listener.url, httpClient: OAuthClientConfiguration.defaultHTTPClient, timeout: .seconds(5))
            Issue.record("discovery read an answer of status 000")
        } catch {
            #expect(error.message.contains("status code 0, which HTTP does not have"), "\(error.message)")
        }
    }

    /// A discovery `GET` whose kept-alive connection the server closed before answering (its
    /// idle timeout) is sent once more, as the pages' loader sends it.
    @Test func aDiscoveryAskWhoseConnectionClosedUnansweredIsSentOnceMore() async throws {
        let listener = try RawHTTPListener { path, count in
            // The first ask of OpenID Connect's place goes unanswered; both places have no document.
            path.hasSuffix("/openid-configuration") && count == 1 ? nil : "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
        }
        defer { listener.stop() }
        do {
            _ = try await AuthorizationServerMetadata.discover(
                issuer: listener.url, httpClient: OAuthClientConfiguration.defaultHTTPClient, timeout: .seconds(5))
            Issue.record("discovery found a document where none is")
        } catch {
            #expect(error.message.contains("answered HTTP 404"), "\(error.message)")
        }
        #expect(listener.requestLines.filter { $0.contains("/openid-configuration") }.count == 2, "\(listener.requestLines)")
    }

    @Test func rfc8414PathInsertionForAnIssuerWithAPath() {
        let urls = AuthorizationServerMetadata.discoveryURLs(for: URL(string: "https://sso.example/realms/app")!)
        #expect(
            urls.map(\.absoluteString) == [
                "https://sso.example/realms/app/.well-known/openid-configuration",
                "https://sso.example/.well-known/oauth-authorization-server/realms/app",
            ])
    }

    @Test func theDocumentIsFetchedOnceAndCached() async throws {
        try await withServer { server in
            let client = makeClient(server)
            let before = server.stats().requests
            let first = try await client.metadata()
            async let a = client.metadata()
            async let b = client.tokenEndpoint()
            _ = try await (a, b)
            #expect(first.tokenEndpoint == server.url("/oauth/token"))
            #expect(server.stats().requests - before == 1)
        }
    }

    @Test func aDocumentNamingAnotherIssuerIsRefused() async throws {
        try await withServer { server in
            server.setOAuthFaults(OAuthFaults(discoveryIssuer: "https://evil.example"))
            let error = await oauthError { _ = try await makeClient(server).metadata() }
            #expect(error?.code == .issuerMismatch)
            #expect(error?.message.contains("https://evil.example") == true)
            // Nothing was cached: once the server is right, discovery succeeds.
            server.setOAuthFaults(.none)
            let metadata = try await makeClient(server).metadata()
            #expect(metadata.issuer == server.issuer)
        }
    }

    @Test func explicitEndpointsOverrideTheDocument() async throws {
        try await withServer { server in
            let moved = server.url("/oauth/token-moved")
            let client = OAuthClient(
                configuration: OAuthClientConfiguration(
                    server: AuthorizationServer(issuer: URL(string: server.issuer)!, tokenEndpoint: moved), clientID: "app"))
            let endpoint = try await client.tokenEndpoint()
            let metadata = try await client.metadata()
            #expect(endpoint == moved)
            #expect(metadata.authorizationEndpoint == server.url("/oauth/authorize"))
        }
    }

    @Test func explicitEndpointsAloneNeedNoDiscovery() async throws {
        let client = OAuthClient(
            configuration: OAuthClientConfiguration(
                server: AuthorizationServer(tokenEndpoint: URL(string: "http://127.0.0.1:9/token")!), clientID: "app"))
        #expect(try await client.tokenEndpoint().absoluteString == "http://127.0.0.1:9/token")
    }

    @Test func anUnreachableIssuerIsANetworkError() async throws {
        let client = OAuthClient(
            configuration: OAuthClientConfiguration(
                server: AuthorizationServer(issuer: URL(string: "http://127.0.0.1:9")!), clientID: "app", requestTimeout: .seconds(3)))
        let error = await oauthError { _ = try await client.metadata() }
        #expect(error?.code == .network)
    }

    /// A port no TCP connection can have, named by a discovery document (a lying server) or
    /// configured, is refused before anything is sent: the HTTP client stopped the process
    /// when asked to connect to one at an IP address.
    @Test func aPortOutOfRangeIsRefusedBeforeAnythingIsSent() async throws {
        let document = Data(#"{"issuer": "http://127.0.0.1:9", "token_endpoint": "http://127.0.0.1:70000/token"}"#.utf8)
        do {
            _ = try AuthorizationServerMetadata(json: document)
            Issue.record("a token endpoint at port 70000 was accepted")
        } catch {
            #expect(error.code == .discoveryFailed)
            #expect(error.message.contains("token_endpoint"))
        }
        let configured = OAuthClient(
            configuration: OAuthClientConfiguration(
                server: AuthorizationServer(tokenEndpoint: URL(string: "http://[::1]:65536/token")!), clientID: "app"))
        let refused = await oauthError { _ = try await configured.tokenRequest(.refreshToken(Secret("rt"))) }
        #expect(refused?.code == .invalidConfiguration)
        let issuer = OAuthClient(
            configuration: OAuthClientConfiguration(
                server: AuthorizationServer(issuer: URL(string: "http://127.0.0.1:99999")!), clientID: "app"))
        let discovery = await oauthError { _ = try await issuer.metadata() }
        #expect(discovery?.code == .discoveryFailed)
        #expect(discovery?.message.contains("out of range") == true, "\(discovery?.message ?? "")")
    }
}
