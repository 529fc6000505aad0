import Foundation
import SessionBridgeOAuth
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// A multi-tenant issuer met through its `common` endpoint, as Entra ID's: its discovery
/// document names the issuer `…/{tenantid}`, and each sign-in and ID token names the issuer of
/// the tenant it happened in (the token's `tid`). Discovery had refused the document, so such
/// an app could not sign in at all.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct MultiTenantIssuerTests {
    func commonClient(_ server: ReferenceServer) -> OAuthClient {
        OAuthClient(
            configuration: OAuthClientConfiguration(
                server: AuthorizationServer(issuer: URL(string: server.issuer + "/common")!), clientID: "app",
                scope: "openid offline_access", redirectURI: URL(string: "com.example.app:/callback")!, requestTimeout: .seconds(5)))
    }

    /// Signs in through the `common` endpoint, returning the client, the request and its answer.
    func signIn(_ server: ReferenceServer) async throws -> (OAuthClient, AuthorizationRequest, TokenEndpointResponse) {
        let client = commonClient(server)
        let (request, answer) = try await signInWithCode(client)
        return (client, request, answer)
    }

    @Test func aSignInThroughTheCommonEndpointNamesItsTenantAndItsIDTokenIsAccepted() async throws {
        try await withServer { server in
            server.setOAuthFaults(OAuthFaults(multiTenant: true))
            let (client, request, answer) = try await signIn(server)
            #expect(try await client.metadata().issuer == server.issuer + "/{tenantid}")
            let token = try await client.validateIDToken(try #require(answer.idToken), nonce: request.nonce)
            #expect(token.issuer == server.issuer + "/" + OAuthFaults.tenantID)
            #expect(token.claims["tid"] == OAuthFaults.tenantID)
        }
    }

    @Test func anIDTokenNamingAnotherTenantThanItsTidIsRefused() async throws {
        try await withServer { server in
            server.setOAuthFaults(OAuthFaults(idToken: .otherTenant, multiTenant: true))
            let (client, request, answer) = try await signIn(server)
            let error = await oauthError { _ = try await client.validateIDToken(try #require(answer.idToken), nonce: request.nonce) }
            #expect(error?.code == .issuerMismatch)
            #expect(error?.message.contains(OAuthFaults.tenantID) == true, "\(String(describing: error))")
        }
    }

    /// The template admits one tenant segment where it names one: a sign-in answer naming
    /// another server, or more than a segment there, is still refused.
    @Test func aSignInAnswerFromAnotherIssuerIsStillRefused() async throws {
        try await withServer { server in
            for other in ["http://other.example/" + OAuthFaults.tenantID, server.issuer + "/a/b", server.issuer + "/"] {
                server.setOAuthFaults(OAuthFaults(callbackIssuer: other, multiTenant: true))
                let client = commonClient(server)
                let request = try await client.makeAuthorizationRequest()
                let callback = try await FormFillingUserAgent(username: "demo", password: Secret("demo")).authorize(
                    request.url, redirectURI: request.redirectURI)
                let error = await oauthError { _ = try request.authorizationCode(from: callback) }
                #expect(error?.code == .issuerMismatch, "\(other)")
            }
        }
    }
}
