import Foundation
import SessionBridgeOAuth
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct AuthorizationCodeTests {
    let agent = FormFillingUserAgent(username: "demo", password: Secret("demo"))

    @Test func theRequestCarriesPKCEStateNonceScopeResourceAndExtras() throws {
        let request = AuthorizationRequest(
            authorizationEndpoint: URL(string: "https://as.example/authorize?tenant=t1")!, clientID: "app",
            redirectURI: URL(string: "com.example.app:/callback")!, scope: "openid offline_access",
            resources: [URL(string: "https://api.example")!], additionalParameters: ["audience": "https://api"])
        let query = FormEncoding.decode(try #require(URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery))
        #expect(query["tenant"] == "t1")
        #expect(query["response_type"] == "code")
        #expect(query["client_id"] == "app")
        #expect(query["redirect_uri"] == "com.example.app:/callback")
        #expect(query["scope"] == "openid offline_access")
        #expect(query["state"] == request.state)
        #expect(query["nonce"] == request.nonce)
        #expect(query["code_challenge_method"] == "S256")
        #expect(query["code_challenge"] == AuthorizationRequest.codeChallenge(for: request.codeVerifier))
        #expect(query["resource"] == "https://api.example")
        #expect(query["audience"] == "https://api")
        #expect(query.values.allSatisfy { $0 != request.codeVerifier.exposedValue })
        #expect((43...128).contains(request.codeVerifier.exposedValue.count))
        // RFC 7636 Appendix B.
        #expect(
            AuthorizationRequest.codeChallenge(for: Secret("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        let other = AuthorizationRequest(
            authorizationEndpoint: request.authorizationEndpoint, clientID: "app", redirectURI: request.redirectURI)
        #expect(other.state != request.state && other.nonce != request.nonce && other.codeVerifier != request.codeVerifier)
    }

    @Test func codeFlowWithPKCEAndAValidatedIDToken() async throws {
        try await withServer(confidentialServerConfiguration()) { server in
            let client = makeClient(server)
            let request = try await client.makeAuthorizationRequest()
            #expect(request.requiresIssuerParameter)
            let callback = try await agent.authorize(request.url, redirectURI: request.redirectURI)
            #expect(callback.scheme == "com.example.app")
            let code = try request.authorizationCode(from: callback)
            let answer = try await send(
                client, .authorizationCode(code: Secret(code), codeVerifier: request.codeVerifier, redirectURI: request.redirectURI))
            #expect(answer.refreshToken != nil)
            let idToken = try await client.validateIDToken(try #require(answer.idToken), nonce: request.nonce)
            #expect(idToken.subject == "demo")
            #expect(idToken.issuer == server.issuer)
            #expect(idToken.audience == ["app"])
            #expect(idToken.nonce == request.nonce)
            #expect(idToken.claims["name"] == "Demo User")
            // The code is single-use.
            let again = await oauthError {
                _ = try await send(
                    client, .authorizationCode(code: Secret(code), codeVerifier: request.codeVerifier, redirectURI: request.redirectURI))
            }
            #expect(again?.code == .invalidGrant)
        }
    }

    @Test func aWrongVerifierIsRefused() async throws {
        try await withServer(confidentialServerConfiguration()) { server in
            let client = makeClient(server)
            let request = try await client.makeAuthorizationRequest()
            let code = try request.authorizationCode(from: try await agent.authorize(request.url, redirectURI: request.redirectURI))
            let error = await oauthError {
                _ = try await send(
                    client,
                    .authorizationCode(
                        code: Secret(code), codeVerifier: Secret(String(repeating: "x", count: 43)),
                        redirectURI: request.redirectURI))
            }
            #expect(error?.code == .invalidGrant)
        }
    }

    @Test func aBadStateABadIssAndAMissingIssAreRefused() async throws {
        try await withServer(confidentialServerConfiguration()) { server in
            let client = makeClient(server)
            for (faults, expected) in [
                (OAuthFaults(wrongState: true), OAuthError.Code.stateMismatch),
                (OAuthFaults(callbackIssuer: "https://evil.example"), .issuerMismatch),
                (OAuthFaults(omitCallbackIssuer: true), .issuerMismatch),
                (OAuthFaults(authorizationError: "access_denied"), .accessDenied),
            ] {
                server.setOAuthFaults(faults)
                let request = try await client.makeAuthorizationRequest()
                let callback = try await agent.authorize(request.url, redirectURI: request.redirectURI)
                #expect(throws: OAuthError.self) { try request.authorizationCode(from: callback) }
                do {
                    _ = try request.authorizationCode(from: callback)
                } catch {
                    #expect((error as? OAuthError)?.code == expected)
                }
            }
        }
    }

    @Test func aCallbackToAnotherURIIsRefused() throws {
        let request = AuthorizationRequest(
            authorizationEndpoint: URL(string: "https://as.example/a")!, clientID: "app",
            redirectURI: URL(string: "https://app.example/callback")!)
        #expect(!request.isCallback(URL(string: "https://app.example/other?code=x&state=\(request.state)")!))
        #expect(request.isCallback(URL(string: "https://app.example/callback?code=x&state=\(request.state)")!))
        #expect(throws: OAuthError.self) {
            try request.authorizationCode(from: URL(string: "https://evil.example/callback?code=x&state=\(request.state)")!)
        }
        #expect(try request.authorizationCode(from: URL(string: "https://app.example/callback?code=c1&state=\(request.state)")!) == "c1")
    }

    /// A client given endpoints one by one has no issuer to check a callback's `iss` against
    /// (Keycloak sends one on every callback): refused, with what to configure.
    @Test func anIssWithNoIssuerConfiguredSaysToConfigureOne() throws {
        let request = AuthorizationRequest(
            authorizationEndpoint: URL(string: "https://as.example/a")!, clientID: "app",
            redirectURI: URL(string: "https://app.example/callback")!)
        let callback = URL(string: "https://app.example/callback?code=c1&state=\(request.state)&iss=https%3A%2F%2Fas.example")!
        #expect {
            try request.authorizationCode(from: callback)
        } throws: { error in
            guard let error = error as? OAuthError else { return false }
            return error.code == .issuerMismatch && error.message.contains("no issuer is configured")
                && error.message.contains("https://as.example")
        }
    }

    @Test func theFormAgentReportsRefusedCredentialsWithoutThePassword() async throws {
        try await withServer(confidentialServerConfiguration()) { server in
            let request = try await makeClient(server).makeAuthorizationRequest()
            let wrong = FormFillingUserAgent(username: "demo", password: Secret("wrong-password-42"))
            do {
                _ = try await wrong.authorize(request.url, redirectURI: request.redirectURI)
                Issue.record("a wrong password signed in")
            } catch {
                #expect("\(error)".contains("refused"))
                #expect(!"\(error)".contains("wrong-password-42"))
            }
        }
    }

    @Test func anUnregisteredRedirectURIGetsAnErrorPageNotARedirect() async throws {
        try await withServer(confidentialServerConfiguration()) { server in
            let request = try await makeClient(server, redirectURI: "https://evil.example/cb").makeAuthorizationRequest()
            await #expect(throws: (any Error).self) { _ = try await agent.authorize(request.url, redirectURI: request.redirectURI) }
        }
    }
}
