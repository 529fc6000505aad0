import AsyncHTTPClient
import CryptoExtras
import Foundation
import JWTKit
import NIOCore
import NIOHTTP1
import SessionBridgeOAuth
import SessionBridgeTesting

/// A reference server for one test.
func withServer<T>(_ configuration: ReferenceServerConfiguration = .init(), _ body: (ReferenceServer) async throws -> T) async throws -> T {
    try await ReferenceServer.withRunning(configuration, body)
}

/// A client of `server` found by discovery from its issuer.
func makeClient(
    _ server: ReferenceServer, clientID: String = "app", authentication: ClientAuthentication = .none,
    scope: String? = "openid offline_access",
    redirectURI: String = "com.example.app:/callback"
) -> OAuthClient {
    OAuthClient(
        configuration: OAuthClientConfiguration(
            server: AuthorizationServer(issuer: URL(string: server.issuer)!), clientID: clientID, authentication: authentication,
            scope: scope, redirectURI: URL(string: redirectURI)!, requestTimeout: .seconds(5)))
}

/// A server with the clients the tests use: a public one and one per authentication method.
func confidentialServerConfiguration(ecKey: ClientPrivateKey? = nil, rsaKey: ClientPrivateKey? = nil) -> ReferenceServerConfiguration {
    var configuration = ReferenceServerConfiguration()
    let redirect = ["com.example.app:/callback"]
    configuration.clients = [
        RegisteredClient(id: "app", redirectURIs: redirect),
        RegisteredClient(id: "basic", authentication: .clientSecretBasic(secret: basicSecret), redirectURIs: redirect),
        RegisteredClient(id: "post", authentication: .clientSecretPost(secret: postSecret), redirectURIs: redirect),
        RegisteredClient(id: "password-only", redirectURIs: redirect, grantTypes: ["password"]),
    ]
    if let ecKey {
        configuration.clients.append(RegisteredClient(id: "jwt-es", authentication: .privateKeyJWT(publicKeyPEM: ecKey.publicKeyPEM)))
    }
    if let rsaKey {
        configuration.clients.append(RegisteredClient(id: "jwt-rs", authentication: .privateKeyJWT(publicKeyPEM: rsaKey.publicKeyPEM)))
    }
    return configuration
}

/// A secret with characters form-urlencoding must escape before base64 (RFC 6749 §2.3.1).
let basicSecret = "b:s ecr+et/é%"
let postSecret = "post-secret-value-7f3a"

func makeECKey() throws -> ClientPrivateKey {
    try ClientPrivateKey(pem: ES256PrivateKey().pemRepresentation, keyID: "ec1")
}

func makeRSAKey() throws -> ClientPrivateKey {
    try ClientPrivateKey(pem: _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation, keyID: "rsa1")
}

/// Posts `grant` with `client` and reads the answer, as a caller of the library does.
func send(_ client: OAuthClient, _ grant: TokenGrant) async throws -> TokenEndpointResponse {
    let request = try await client.tokenRequest(grant)
    let response = try await client.configuration.httpClient.execute(request, timeout: .seconds(5))
    let body = try await response.body.collect(upTo: 1 << 20)
    return try client.tokenResponse(status: Int(response.status.code), body: Data(body.readableBytesView))
}

/// Signs in with `client` by the authorization code flow through the reference server's form
/// (user `demo`), returning the request and the token endpoint's answer.
func signInWithCode(_ client: OAuthClient) async throws -> (AuthorizationRequest, TokenEndpointResponse) {
    let request = try await client.makeAuthorizationRequest()
    let callback = try await FormFillingUserAgent(username: "demo", password: Secret("demo")).authorize(
        request.url, redirectURI: request.redirectURI)
    let answer = try await send(
        client,
        .authorizationCode(
            code: Secret(try request.authorizationCode(from: callback)), codeVerifier: request.codeVerifier,
            redirectURI: request.redirectURI))
    return (request, answer)
}

/// Runs `body` and returns the ``OAuthError`` it threw.
func oauthError(_ body: () async throws -> Void) async -> OAuthError? {
    do {
        try await body()
        return nil
    } catch {
        return error as? OAuthError
    }
}
