import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import SessionBridgeOAuth

/// Calls a ``SessionExchange`` endpoint and returns its `Set-Cookie` fields. The access token
/// goes in the configured header only; it is never logged and never part of an error.
struct SessionExchangeClient: Sendable {
    var exchange: SessionExchange
    var client: HTTPClient
    var timeout: Duration

    /// Sends the access token and returns every `Set-Cookie` field of a `2xx` answer.
    ///
    /// - Parameters:
    ///   - authorization: makes the `Authorization` (and `DPoP`) fields for the access token,
    ///     from ``SessionController``; called again for the one repeat a DPoP nonce asks for.
    ///   - needsNonceRetry: whether an answer (status, headers) asks for the request once more
    ///     with the server's DPoP nonce (a `401` `use_dpop_nonce`).
    ///
    /// - Throws: ``SessionError``: ``SessionError/Code/network`` (no answer in time, connection
    ///   failed) and ``SessionError/Code/serverError`` for `429` and `5xx` are retryable;
    ///   ``SessionError/Code/invalidResponse`` when the endpoint refused the token (another `4xx`)
    ///   or redirected.
    func setCookies(
        for accessToken: Secret, authorization: @Sendable () -> [(String, String)],
        needsNonceRetry: @Sendable (Int, [(String, String)]) -> Bool = { _, _ in false }
    ) async throws(SessionError) -> [String] {
        let first = try await send(accessToken, authorization: authorization())
        if needsNonceRetry(Int(first.status.code), first.headers.map { ($0.name, $0.value) }) {
            return try Self.setCookies(of: try await send(accessToken, authorization: authorization()))
        }
        return try Self.setCookies(of: first)
    }

    private func send(_ accessToken: Secret, authorization: [(String, String)]) async throws(SessionError) -> HTTPClientResponse {
        guard exchange.url.hasPortInRange else {
            throw SessionError(.invalidConfiguration, "the session exchange URL's port is out of range (0-65535)")
        }
        var request = HTTPClientRequest(url: exchange.url.absoluteString)
        request.method = .init(rawValue: exchange.method.uppercased())
        switch exchange.accessTokenPresentation {
        case .authorizationBearer: for (name, value) in authorization { request.headers.add(name: name, value: value) }
        case .header(let name): request.headers.add(name: name, value: accessToken.exposedValue)
        }
        request.headers.add(name: "Accept", value: "application/json")
        if request.method == .POST { request.headers.add(name: "Content-Length", value: "0") }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .init(timeout))
            _ = try await response.body.collect(upTo: 1 << 20)
        } catch {
            throw SessionError(.network, "the session exchange endpoint did not answer")
        }
        return response
    }

    private static func setCookies(of response: HTTPClientResponse) throws(SessionError) -> [String] {
        let status = Int(response.status.code)
        switch status {
        case 200..<300:
            return response.headers["set-cookie"]
        case 429, 500..<600:
            throw SessionError(.serverError, "the session exchange endpoint is unavailable (HTTP \(status))")
        case 300..<400:
            throw SessionError(.invalidResponse, "the session exchange endpoint redirected (HTTP \(status)); not followed")
        default:
            throw SessionError(.invalidResponse, "the session exchange endpoint refused the access token (HTTP \(status))")
        }
    }
}
