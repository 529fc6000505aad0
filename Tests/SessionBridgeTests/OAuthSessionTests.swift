import Foundation
import JWTKit
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeOAuth
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// The session as a standards OAuth client of the reference server: discovery, client
/// authentication, the code flow, the §5.2 error classes, non-rotating servers, revocation.
@Suite(.timeLimit(.minutes(3)), .hangWatchdog) struct OAuthSessionTests {
    static let redirectURI = URL(string: "com.example.app:/callback")!
    let agent = FormFillingUserAgent(username: "demo", password: Secret("demo"))

    func serverConfiguration() -> ReferenceServerConfiguration {
        var configuration = ReferenceServerConfiguration()
        configuration.clients = [
            RegisteredClient(id: "app", redirectURIs: [Self.redirectURI.absoluteString]),
            RegisteredClient(
                id: "basic", authentication: .clientSecretBasic(secret: "basic secret:1"), redirectURIs: [Self.redirectURI.absoluteString]),
            RegisteredClient(
                id: "post", authentication: .clientSecretPost(secret: "post-secret-2"), redirectURIs: [Self.redirectURI.absoluteString]),
        ]
        return configuration
    }

    func discoveryConfiguration(
        _ server: ReferenceServer, clientID: String = "app", authentication: ClientAuthentication = .none
    ) -> SessionConfiguration {
        var configuration = SessionConfiguration(
            issuer: URL(string: server.issuer)!, clientID: clientID, clientAuthentication: authentication, scope: "openid offline_access",
            redirectURI: Self.redirectURI)
        configuration.requestTimeout = .seconds(5)
        configuration.retry = RetryPolicy(baseDelay: .milliseconds(20))
        configuration.freshnessWindow = .milliseconds(100)
        return configuration
    }

    /// What must survive a failed operation: the vault's token and the native cookies.
    func snapshot(_ session: SessionController, _ server: ReferenceServer) throws -> (RefreshToken?, [String]) {
        (try session.vault.load()?.refreshToken, session.cookieJar.cookies(for: server.url("/")).map { "\($0.name)=\($0.value)" }.sorted())
    }

    @Test func signInWithTheCodeFlowThenRefreshAndLogout() async throws {
        try await withServer(serverConfiguration()) { server in
            let session = SessionController(configuration: discoveryConfiguration(server))
            let status = try await session.signIn(with: agent)
            #expect(status.isSignedIn)
            #expect(await session.idToken?.subject == "demo")
            #expect(session.cookieJar.value("__Host-session", for: server.url("/")) != nil)
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            try await session.refresh()
            #expect(server.stats().refreshes == 1)
            await session.logout()
            #expect(server.stats().activeSessions == 0)  // revoked at the discovered endpoint
            #expect(await session.idToken == nil)
            await page.close()
        }
    }

    @Test(arguments: [
        ("state", SessionError.Code.invalidResponse), ("iss", .invalidResponse), ("nonce", .invalidResponse),
        ("signature", .invalidResponse), ("issuer", .invalidResponse), ("denied", .accessDenied),
    ])
    func aFailedCheckLosesNothing(check: String, code: SessionError.Code) async throws {
        try await withServer(serverConfiguration()) { server in
            let session = SessionController(configuration: discoveryConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let before = try snapshot(session, server)
            let sessionsBefore = server.stats().activeSessions
            let faults: OAuthFaults =
                switch check {
                case "state": OAuthFaults(wrongState: true)
                case "iss": OAuthFaults(callbackIssuer: "https://evil.example")
                case "nonce": OAuthFaults(idToken: .wrongNonce)
                case "signature": OAuthFaults(idToken: .badSignature)
                case "issuer": OAuthFaults(idToken: .wrongIssuer)
                default: OAuthFaults(authorizationError: "access_denied")
                }
            server.setOAuthFaults(faults)
            await #expect { try await session.signIn(with: agent) } throws: { error in
                guard let error = error as? SessionError else { return false }
                // A refusal the authorization server explained is shown with its reason.
                return error.code == code && !error.isRetryable
                    && (check != "denied" || error.message.contains("The server was told to refuse."))
            }
            let after = try snapshot(session, server)
            #expect(after.0 == before.0)
            #expect(after.1 == before.1)
            // A session the server issued before the check refused its ID token is revoked there.
            #expect(server.stats().activeSessions == sessionsBefore)
            server.setOAuthFaults(.none)
            #expect(try await session.refresh().isSignedIn)
        }
    }

    /// A refresh whose answer carries an ID token is answered and stored without waiting long
    /// for the issuer's key set, which its check may have to fetch (a session adopted in a new
    /// process has none): a slow key set had held the refresh, every page waiting on it, and
    /// the rotated token's storage for the key set's whole timeout. The claims follow.
    @Test func aSlowKeySetHoldsNeitherTheRefreshNorItsStorage() async throws {
        try await withServer(serverConfiguration()) { server in
            let first = SessionController(configuration: discoveryConfiguration(server))
            try await first.signIn(with: agent)
            let token = try #require(try first.vault.load()?.refreshToken)
            var slowKeys = OAuthFaults()
            slowKeys.keySetDelaySeconds = 3
            slowKeys.refreshIssuesIDToken = true
            server.setOAuthFaults(slowKeys)
            let session = SessionController(configuration: discoveryConfiguration(server))
            try await session.adopt(refreshToken: token)
            #expect(try await session.refresh().isSignedIn)
            // Answered and stored while the key set (3 s away) is still to come.
            #expect(await session.idToken == nil)
            #expect(try session.vault.load()?.refreshToken != token)
            for _ in 0..<100 where await session.idToken == nil { try await Task.sleep(for: .milliseconds(100)) }
            #expect(await session.idToken?.subject == "demo")
        }
    }

    /// The vault keeps the user the session was signed in as, so that another process that
    /// takes the session over (the runner's `run` after its `login`) refuses a refreshed ID
    /// token naming another user, as the signing-in process does (OpenID Connect Core §12.2).
    @Test func aRefreshedIDTokenForAnotherUserIsRefusedInAnotherProcessToo() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let vaultURL = directory.appendingPathComponent("session.vault")
        try await withServer(serverConfiguration()) { server in
            let first = SessionController(configuration: discoveryConfiguration(server), vault: FileTokenVault(url: vaultURL))
            try await first.signIn(with: agent)
            #expect(try FileTokenVault(url: vaultURL).load()?.subject == "demo")
            var faults = OAuthFaults(idToken: .otherSubject)
            faults.refreshIssuesIDToken = true
            server.setOAuthFaults(faults)
            let next = SessionController(configuration: discoveryConfiguration(server), vault: FileTokenVault(url: vaultURL))
            #expect(try await next.refresh().isSignedIn)
            try await Task.sleep(for: .milliseconds(200))
            #expect(await next.idToken == nil)
            #expect(try FileTokenVault(url: vaultURL).load()?.subject == "demo")
            // The same user's refreshed token is taken.
            faults.idToken = nil
            server.setOAuthFaults(faults)
            #expect(try await next.refresh().isSignedIn)
            for _ in 0..<50 where await next.idToken == nil { try await Task.sleep(for: .milliseconds(100)) }
            #expect(await next.idToken?.subject == "demo")
        }
    }

    @Test func aDiscoveryDocumentForAnotherIssuerStopsSignIn() async throws {
        try await withServer(serverConfiguration()) { server in
            server.setOAuthFaults(OAuthFaults(discoveryIssuer: "https://evil.example"))
            let session = SessionController(configuration: discoveryConfiguration(server))
            await #expect { try await session.login(username: "demo", password: "demo") } throws: {
                ($0 as? SessionError)?.code == .invalidResponse
            }
            let stored = try session.vault.load()
            #expect(stored == nil)
            #expect(server.stats().logins == 0)
        }
    }

    /// RFC 6749's configuration errors keep their code; a refusal of another kind reaches the
    /// page with its own (`access_denied`, as Auth0 answers a wrong client secret; OpenID
    /// Connect's `interaction_required` family, as Entra ID answers a refresh that needs a second
    /// factor), and one this client does not know as `refused`: never a retryable
    /// `server_error`, which would have a page ask again forever.
    @Test(arguments: [
        ("invalid_client", "invalid_client"), ("unauthorized_client", "unauthorized_client"),
        ("unsupported_grant_type", "unsupported_grant_type"), ("invalid_scope", "invalid_scope"),
        ("invalid_request", "invalid_request"), ("access_denied", "access_denied"),
        ("interaction_required", "interaction_required"), ("consent_required", "interaction_required"),
        ("provider_specific", "refused"),
    ])
    func refusalsAreNotRetriedAndKeepTheSession(code: String, pageCode: String) async throws {
        try await withServer(serverConfiguration()) { server in
            let session = SessionController(configuration: discoveryConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            let before = try snapshot(session, server)
            server.setOAuthFaults(OAuthFaults(tokenError: code))
            let requests = server.stats().tokenRequests
            let reply = try await page.callAsyncJavaScript(
                """
                try { await window.webkit.messageHandlers.session.postMessage({action: "refresh"}); return "ok"; }
                catch (e) { return [e.code, e.retryable]; }
                """)
            #expect(reply == [.string(pageCode), false])
            #expect(server.stats().tokenRequests - requests == 1)  // not retried
            let after = try snapshot(session, server)
            #expect(after.0 == before.0)
            #expect(after.1 == before.1)
            #expect(page.cookieJar.value("__Host-session", for: server.url("/")) != nil)
            server.setOAuthFaults(.none)
            #expect(try await session.refresh().isSignedIn)
            await page.close()
        }
    }

    /// A logout ends the session here whatever the revocation endpoint answers. One it could
    /// not take now (`503`) is asked again (RFC 7009 §2.2.1: the token is still valid after
    /// it); one that keeps failing is told to the page, which knows then that the server may
    /// still honour the token until it expires.
    @Test func aLogoutsRevocationIsAskedAgainAndItsFailureToldToThePage() async throws {
        try await withServer(serverConfiguration()) { server in
            for failures in [1, nil] as [Int?] {
                let session = SessionController(configuration: discoveryConfiguration(server))
                try await session.login(username: "demo", password: "demo")
                let (page, _) = await makePage(session, server)
                #expect(try await page.load(server.url("/app")).statusCode == 200)
                let sessionsBefore = server.stats().activeSessions
                server.setFaults(
                    FaultConfiguration(routes: .tokenEndpoint, serverErrors: .init(status: 503, retryAfterSeconds: 0, count: failures)))
                let reply = try await page.callAsyncJavaScript(
                    "const r = await window.webkit.messageHandlers.session.postMessage({action: \"logout\"}); return [r.signedIn, r.revoked, r.revocationError ?? null];"
                )
                server.setFaults(.none)
                #expect(try session.vault.load() == nil)
                if failures == nil {
                    #expect(reply == [false, false, "server_error"])
                    #expect(server.stats().activeSessions == sessionsBefore)
                } else {
                    #expect(reply == [false, true, nil])
                    #expect(server.stats().activeSessions == sessionsBefore - 1)
                }
                await page.close()
            }
        }
    }

    /// A revocation answered `503` with `Retry-After` is asked again after the time the
    /// server asked for, not after the policy's own backoff (20 ms here); one asking longer than
    /// the policy honours is not asked again, and the page is told.
    @Test func aRevocationsRetryAfterIsHonoured() async throws {
        try await withServer(serverConfiguration()) { server in
            for (seconds, asked) in [(1, true), (60, false)] {
                let session = SessionController(configuration: discoveryConfiguration(server))
                try await session.login(username: "demo", password: "demo")
                let sessions = server.stats().activeSessions
                server.setFaults(
                    FaultConfiguration(routes: .tokenEndpoint, serverErrors: .init(status: 503, retryAfterSeconds: seconds, count: 1)))
                let started = ContinuousClock.now
                let result = await session.logout()
                let waited = ContinuousClock.now - started
                server.setFaults(.none)
                // Revoked by the second ask, or left open at the server when not asked again.
                #expect(server.stats().activeSessions == sessions - (asked ? 1 : 0))
                if asked {
                    #expect(waited >= .milliseconds(950))
                    #expect((try? result?.get()) != nil)
                } else {
                    #expect(waited < .seconds(30))
                    #expect((try? result?.get()) == nil)
                }
            }
        }
    }

    /// RFC 7009 §2.2: a token the server no longer knows has nothing left to revoke. Google's
    /// endpoint answers such a token `400 invalid_token`, which had failed every logout after
    /// a session the server had already ended.
    @Test func aRevocationAnsweredInvalidTokenHasRevoked() async throws {
        try await withServer(serverConfiguration()) { server in
            let session = SessionController(configuration: discoveryConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            #expect(server.revokeAllSessions() == 1)
            var faults = OAuthFaults()
            faults.revocationRefusesUnknownTokens = true
            server.setOAuthFaults(faults)
            let errors = server.stats().tokenErrors
            let result = await session.logout()
            #expect(server.stats().tokenErrors == errors + 1, "the server did not answer invalid_token")
            #expect((try? result?.get()) != nil)
            #expect(try await session.status().isSignedIn == false)
        }
    }

    @Test func temporarilyUnavailableIsRetriedWithBackoff() async throws {
        try await withServer(serverConfiguration()) { server in
            let session = SessionController(configuration: discoveryConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let before = try snapshot(session, server)
            server.setOAuthFaults(OAuthFaults(tokenError: "temporarily_unavailable"))
            let requests = server.stats().tokenRequests
            await #expect { try await session.refresh() } throws: { ($0 as? SessionError)?.isRetryable == true }
            #expect(server.stats().tokenRequests - requests == 3)
            #expect(try snapshot(session, server).0 == before.0)
        }
    }

    @Test func aWrongPasswordIsInvalidGrantNotANetworkError() async throws {
        try await withServer(serverConfiguration()) { server in
            let session = SessionController(configuration: discoveryConfiguration(server))
            await #expect { try await session.login(username: "demo", password: "nope") } throws: {
                ($0 as? SessionError)?.code == .invalidGrant
            }
        }
    }

    @Test(arguments: ["basic", "post"])
    func confidentialClientsSignInRefreshAndRevoke(clientID: String) async throws {
        try await withServer(serverConfiguration()) { server in
            let authentication: ClientAuthentication =
                clientID == "basic" ? .clientSecretBasic(Secret("basic secret:1")) : .clientSecretPost(Secret("post-secret-2"))
            let session = SessionController(
                configuration: discoveryConfiguration(server, clientID: clientID, authentication: authentication))
            try await session.signIn(with: agent)
            try await session.refresh()
            #expect(server.stats().refreshes == 1)
            await session.logout()
            #expect(server.stats().activeSessions == 0)
        }
    }

    @Test func privateKeyJWTSignsInAndAnUnregisteredKeyKeepsTheSession() async throws {
        let key = try ClientPrivateKey(pem: ES256PrivateKey().pemRepresentation, keyID: "k1")
        var configuration = serverConfiguration()
        configuration.clients.append(
            RegisteredClient(
                id: "jwt", authentication: .privateKeyJWT(publicKeyPEM: key.publicKeyPEM),
                redirectURIs: [Self.redirectURI.absoluteString]))
        try await withServer(configuration) { server in
            let session = SessionController(
                configuration: discoveryConfiguration(server, clientID: "jwt", authentication: .privateKeyJWT(key)))
            try await session.signIn(with: agent)
            try await session.refresh()
            #expect(server.stats().refreshes == 1)
            let before = try snapshot(session, server)
            // The same vault, another key: the server refuses the client, the session stays.
            let otherKey = try ClientPrivateKey(pem: ES256PrivateKey().pemRepresentation, keyID: "k1")
            let impostor = SessionController(
                configuration: discoveryConfiguration(server, clientID: "jwt", authentication: .privateKeyJWT(otherKey)),
                vault: session.vault,
                cookieJar: session.cookieJar)
            await #expect { try await impostor.refresh() } throws: { ($0 as? SessionError)?.code == .invalidClient }
            let after = try snapshot(session, server)
            #expect(after.0 == before.0)
            #expect(after.1 == before.1)
            #expect(try await session.refresh().isSignedIn)
        }
    }

    @Test func aNonRotatingServerKeepsTheRefreshToken() async throws {
        var configuration = serverConfiguration()
        configuration.rotatesRefreshTokens = false
        try await withServer(configuration) { server in
            let session = SessionController(configuration: discoveryConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let token = try session.vault.load()?.refreshToken
            for _ in 0..<3 {
                try await Task.sleep(for: .milliseconds(200))  // past the freshness window
                #expect(try await session.refresh().isSignedIn)
            }
            #expect(try session.vault.load()?.refreshToken == token)
            #expect(server.stats().refreshes == 3)
        }
    }

    @Test func aSameOriginTemporaryRedirectIsFollowedOnce() async throws {
        try await withServer(serverConfiguration()) { server in
            let session = SessionController(configuration: discoveryConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            server.setOAuthFaults(OAuthFaults(tokenRedirectStatus: 307))
            #expect(try await session.refresh().isSignedIn)
            #expect(server.stats().refreshes == 1)
        }
    }

    @Test(arguments: [(302, "/oauth/token-moved"), (308, "http://localhost:1/oauth/token")])
    func otherRedirectsAreClearNonRetryableErrors(status: Int, location: String) async throws {
        try await withServer(serverConfiguration()) { server in
            let session = SessionController(configuration: discoveryConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let before = try snapshot(session, server)
            server.setOAuthFaults(OAuthFaults(tokenRedirectStatus: status, tokenRedirectLocation: location))
            await #expect { try await session.refresh() } throws: { error in
                guard let error = error as? SessionError else { return false }
                return error.message.contains("redirect") && error.code == .serverError
            }
            #expect(try snapshot(session, server).0 == before.0)
        }
    }

    @Test func existingInitialisersStillWork() async throws {
        try await withServer { server in
            let session = SessionController(configuration: SessionConfiguration(server: server.baseURL))
            try await session.login(username: "demo", password: "demo")
            #expect(session.configuration.tokenEndpoint == server.url("/oauth/token"))
            #expect(await session.idToken == nil)
            try await session.refresh()
        }
    }
}
