import Foundation
import SessionBridge
import SessionBridgeOAuth
import SessionBridgeTestSupport
import Testing

extension Interop {
    /// Confidential clients: the secret in HTTP Basic (form-urlencoded first) or in the form.
    @Suite(.timeLimit(.minutes(3)), .hangWatchdog) struct ConfidentialClient {
        @Test(arguments: ["client_secret_basic", "client_secret_post"])
        func signsInAndRefreshes(method: String) async throws {
            try await InteropServer.withRunning { server async throws in
                let vault = InMemoryTokenVault()
                let session =
                    method == "client_secret_basic"
                    ? server.session(clientID: InteropClient.basicClient, authentication: server.basicAuthentication, vault: vault)
                    : server.session(clientID: InteropClient.postClient, authentication: server.postAuthentication, vault: vault)
                try await session.login(username: server.configuration.username, password: server.configuration.password)
                let first = try #require(try vault.storedToken())
                try await session.refresh()
                #expect(try vault.storedToken() != first)
                #expect(await session.idToken?.audience.contains(session.configuration.clientID ?? "") == true)
            }
        }

        /// A secret with characters that form-urlencoding changes: the server must decode the
        /// Basic credentials as RFC 6749 §2.3.1 says.
        @Test func basicSecretIsFormEncodedBeforeBase64() async throws {
            var configuration = InteropServerConfiguration()
            configuration.basicClientSecret = "a+b:c/d%e f&g=" + InteropServerConfiguration.randomSecret()
            try await InteropServer.withRunning(configuration) { server async throws in
                let session = server.session(clientID: InteropClient.basicClient, authentication: server.basicAuthentication)
                let status = try await session.login(username: configuration.username, password: configuration.password)
                #expect(status.isSignedIn)
            }
        }
    }
}
