import Foundation
import SessionBridgeOAuth
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct TokenAnswerTests {
    func parse(_ json: String) throws -> TokenEndpointResponse {
        try TokenEndpointResponse(json: Data(json.utf8))
    }

    @Test func expiresInAsANumberOrANumericString() throws {
        #expect(try parse(#"{"access_token":"a","token_type":"Bearer","expires_in":3600}"#).expiresIn == .seconds(3600))
        #expect(try parse(#"{"access_token":"a","token_type":"Bearer","expires_in":"3600"}"#).expiresIn == .seconds(3600))
        #expect(try parse(#"{"access_token":"a","token_type":"Bearer","expires_in":" 90 "}"#).expiresIn == .seconds(90))
        #expect(try parse(#"{"access_token":"a","token_type":"Bearer","expires_in":"soon"}"#).expiresIn == nil)
        #expect(try parse(#"{"access_token":"a","token_type":"Bearer","expires_in":-5}"#).expiresIn == nil)
        #expect(try parse(#"{"access_token":"a","token_type":"Bearer"}"#).expiresIn == nil)
    }

    @Test func tokenTypeIsCaseInsensitiveAndUnknownMembersAreIgnored() throws {
        let answer = try parse(
            #"{"access_token":"a","token_type":"BeArEr","refresh_token":"r","x_vendor":{"deep":[1,2]},"id_token":"i","scope":"openid"}"#)
        #expect(answer.tokenType == "bearer")
        #expect(answer.refreshToken?.exposedValue == "r")
        #expect(answer.idToken?.exposedValue == "i")
        #expect(answer.scope == "openid")
    }

    @Test func anAnswerWithoutARefreshTokenHasNone() throws {
        let answer = try parse(#"{"access_token":"a","token_type":"bearer","expires_in":60}"#)
        #expect(answer.refreshToken == nil)
        #expect(try parse(#"{"access_token":"a","token_type":"bearer","refresh_token":""}"#).refreshToken == nil)
    }

    @Test func unreadableAnswersAreInvalidResponse() {
        for body in ["", "[]", "{", #"{"token_type":"bearer"}"#, #"{"access_token":"a"}"#] {
            #expect(throws: OAuthError.self) { try parse(body) }
        }
    }

    @Test(arguments: [
        "invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope",
        "temporarily_unavailable",
    ])
    func everySection52ErrorIsTypedFromTheServer(code: String) async throws {
        try await withServer { server in
            let client = makeClient(server)
            server.setOAuthFaults(OAuthFaults(tokenError: code))
            let error = await oauthError { _ = try await send(client, .password(username: "demo", password: Secret("demo"))) }
            #expect(error?.code.rawValue == code)
            #expect(error?.status == (code == "invalid_client" ? 401 : 400))
            let configuration: Set = [
                "invalid_request", "invalid_client", "unauthorized_client", "unsupported_grant_type", "invalid_scope",
            ]
            #expect(error?.isConfigurationError == configuration.contains(code))
            #expect(error?.isTransient == (code == "temporarily_unavailable"))
        }
    }

    /// Some servers answer an error with `200` (a refresh token they no longer take): an
    /// answer that names an error and issues no access token is that error, not an unreadable
    /// one; a `200` with neither stays unreadable.
    @Test func anErrorAnsweredWith200IsThatError() async throws {
        try await withServer { server in
            let client = makeClient(server)
            server.setOAuthFaults(OAuthFaults(tokenError: "invalid_grant", tokenErrorStatus: 200))
            let error = await oauthError { _ = try await send(client, .password(username: "demo", password: Secret("demo"))) }
            #expect(error?.code == .invalidGrant)
            #expect(error?.status == 200)
            #expect {
                try client.tokenResponse(status: 200, body: Data(#"{"token_type":"bearer"}"#.utf8))
            } throws: { error in
                (error as? OAuthError)?.code == .invalidResponse
            }
            // An answer that issued an access token is read as one, whatever else it carries.
            let answer = try client.tokenResponse(
                status: 200, body: Data(#"{"access_token":"a","token_type":"bearer","error":"x"}"#.utf8))
            #expect(answer.accessToken.exposedValue == "a")
        }
    }

    @Test func aNonRotatingServerAnswersWithoutARefreshToken() async throws {
        var configuration = ReferenceServerConfiguration()
        configuration.rotatesRefreshTokens = false
        try await withServer(configuration) { server in
            let client = makeClient(server)
            let first = try await send(client, .password(username: "demo", password: Secret("demo")))
            let refresh = try #require(first.refreshToken)
            for _ in 0..<2 {
                let again = try await send(client, .refreshToken(refresh))
                #expect(again.refreshToken == nil)
            }
            #expect(server.stats().reuseEvents == 0)
        }
    }

    @Test func requestParametersReachTheForm() {
        let client = OAuthClient(
            configuration: OAuthClientConfiguration(
                server: AuthorizationServer(tokenEndpoint: URL(string: "https://as.example/token")!), clientID: "app",
                scope: "openid offline_access", resources: [URL(string: "https://api.example")!],
                additionalParameters: ["audience": "https://api"]))
        let password = Dictionary(client.parameters(for: .password(username: "u", password: Secret("p"))), uniquingKeysWith: { a, _ in a })
        #expect(password["scope"] == "openid offline_access")
        #expect(password["resource"] == "https://api.example")
        #expect(password["audience"] == "https://api")
        let refresh = Dictionary(client.parameters(for: .refreshToken(Secret("r"))), uniquingKeysWith: { a, _ in a })
        #expect(refresh["scope"] == nil)
        #expect(refresh["resource"] == "https://api.example")
        #expect(refresh["audience"] == nil)
    }
}
