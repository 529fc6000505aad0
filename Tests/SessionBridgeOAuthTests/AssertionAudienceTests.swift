import Foundation
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridgeOAuth

/// A `private_key_jwt` assertion's `aud`: providers disagree (Keycloak, Hydra and Entra ID
/// take the token endpoint, Okta each endpoint's own URL, Auth0 the issuer), so it is the
/// configuration's choice, the token endpoint by default.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct AssertionAudienceTests {
    @Test func theAssertionsAudienceIsTheOneConfiguredForEachEndpoint() async throws {
        let key = try makeECKey()
        try await withServer(confidentialServerConfiguration(ecKey: key)) { server in
            let token = server.issuer + "/oauth/token"
            let revoke = try #require(URL(string: server.issuer + "/oauth/revoke"))
            for (audience, forToken, forRevocation) in [
                (ClientAssertionAudience.tokenEndpoint, token, token), (.endpoint, token, revoke.absoluteString),
                (.issuer, server.issuer, server.issuer),
            ] {
                var configuration = makeClient(server, clientID: "jwt-es", authentication: .privateKeyJWT(key)).configuration
                configuration.assertionAudience = audience
                let client = OAuthClient(configuration: configuration)
                let tokenEndpoint = try #require(URL(string: token))
                #expect(try await client.assertionAudience(for: tokenEndpoint).absoluteString == forToken, "\(audience)")
                #expect(try await client.assertionAudience(for: revoke).absoluteString == forRevocation, "\(audience)")
                // The server takes an assertion addressed to its token endpoint or its issuer.
                _ = try await send(client, .password(username: "demo", password: Secret("demo")))
            }
        }
    }
}
