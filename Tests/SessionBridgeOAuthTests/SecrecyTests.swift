import Foundation
import SessionBridgeOAuth
import SessionBridgeTestSupport
import Testing

@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct SecrecyTests {
    func everyRendering(of value: Any) -> String {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), "\(value)", dumped].joined(separator: "\n")
    }

    @Test func secretsKeysAndAuthenticationsNeverPrint() throws {
        let secret = Secret("super-secret-value")
        let pem = try makeECKey()
        let text = [
            everyRendering(of: secret), everyRendering(of: ClientAuthentication.clientSecretBasic(secret)),
            everyRendering(of: ClientAuthentication.clientSecretPost(secret)), everyRendering(of: pem),
            everyRendering(of: ClientAuthentication.privateKeyJWT(pem)),
            everyRendering(of: TokenEndpointResponse(accessToken: secret, tokenType: "Bearer", refreshToken: secret, idToken: secret)),
            everyRendering(
                of: AuthorizationRequest(
                    authorizationEndpoint: URL(string: "https://as.example/a")!, clientID: "app",
                    redirectURI: URL(string: "app:/cb")!)),
        ].joined(separator: "\n")
        #expect(!text.contains("super-secret-value"))
        #expect(!text.contains("PRIVATE KEY"))
        #expect(text.contains("<redacted>"))
    }

    @Test func theVerifierNeverPrintsInAnAuthorizationRequest() {
        let request = AuthorizationRequest(
            authorizationEndpoint: URL(string: "https://as.example/a")!, clientID: "app",
            redirectURI: URL(string: "app:/cb")!)
        var dumped = ""
        dump(request, to: &dumped)
        #expect(!dumped.contains(request.codeVerifier.exposedValue))
        #expect(!request.url.absoluteString.contains(request.codeVerifier.exposedValue))
    }
}
