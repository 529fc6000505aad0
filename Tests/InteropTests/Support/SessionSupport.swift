import Foundation
import SessionBridge
import SessionBridgeOAuth
import Testing

extension InteropServer {
    /// A session against this server, found by discovery from its issuer.
    func session(
        clientID: String = InteropClient.publicClient,
        authentication: ClientAuthentication = .none,
        scope: String? = "openid read",
        redirectURI: URL? = nil,
        revocationEndpoint: URL? = nil,
        vault: any TokenVault = InMemoryTokenVault()
    ) -> SessionController {
        var configuration = SessionConfiguration(
            issuer: self.issuer, clientID: clientID, clientAuthentication: authentication, scope: scope,
            redirectURI: redirectURI, revocationEndpoint: revocationEndpoint)
        // Every refresh() of a test reaches the server.
        configuration.freshnessWindow = .zero
        return SessionController(configuration: configuration, vault: vault)
    }

    /// The client authentications of the confidential clients, with their secrets.
    var basicAuthentication: ClientAuthentication { .clientSecretBasic(Secret(self.configuration.basicClientSecret)) }
    var postAuthentication: ClientAuthentication { .clientSecretPost(Secret(self.configuration.postClientSecret)) }
}

extension TokenVault {
    /// The stored refresh token, if any.
    func storedToken() throws -> RefreshToken? { try self.load()?.refreshToken }
}

/// The ``SessionError`` a session operation threw, or `nil` when it succeeded (any other
/// error is recorded as a test failure).
func sessionError(_ operation: () async throws -> Void) async -> SessionError? {
    do {
        try await operation()
        return nil
    } catch let error as SessionError {
        return error
    } catch {
        Issue.record("expected a SessionError, got \(type(of: error)): \(error)")
        return nil
    }
}

extension InteropServer {
    /// How many token requests the server has answered so far (from its request log).
    var tokenRequestCount: Int {
        self.log.split(separator: "\n").count { $0.hasPrefix("POST /o/token/ ") }
    }
}
