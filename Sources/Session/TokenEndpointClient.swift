import AsyncHTTPClient
import Foundation
import Logging

/// What the token endpoint answered: the tokens (RFC 6749 §5.1) and every `Set-Cookie` field,
/// each a separate value.
struct TokenResponse: Sendable {
    var accessTokenExpiresAt: Date?
    var refreshToken: RefreshToken?
    var setCookies: [String]
}

/// Posts grants to the token endpoint with bounded timeouts and retries. Redirects are never
/// followed (the client must be configured so, as ``WebPage/defaultHTTPClient`` is).
struct TokenEndpointClient: Sendable {
    var client: HTTPClient
    var endpoint: URL
    var clientID: String?
    var timeout: Duration
    var retry: RetryPolicy
    /// How long the server accepts a rotated refresh token again
    /// (``SessionConfiguration/refreshTokenReuseGrace``).
    var reuseGrace: Duration = .zero
    var logger: Logger

    /// Posts `form` and returns the tokens, retrying what is safe to retry.
    ///
    /// A failure that proves the request was not processed (no connection, `429`/`502`/`503`/
    /// `504`) is retried under ``retry``. A failure after the request was sent (timeout,
    /// connection lost, unreadable answer) may have rotated the token on the server: it is
    /// retried only when `repeatableWithinGrace` (a refresh-token grant) and the server's
    /// ``reuseGrace`` has not passed since the first such attempt, so the server answers the
    /// repeat with the same rotation.
    func requestTokens(_ form: [(String, String)], repeatableWithinGrace: Bool = false) async throws(SessionError) -> TokenResponse {
        let clock = ContinuousClock()
        var firstAmbiguous: ContinuousClock.Instant?
        var attempt = 1
        while true {
            let sent = clock.now
            let outcome = await attemptOnce(form)
            switch outcome {
            case .success(let response):
                if firstAmbiguous != nil {
                    logger.notice("a refresh whose answer was lost was asked again within the server's reuse grace, and answered")
                }
                return response
            case .failure(let failure):
                var retryable = failure.retryable
                if failure.ambiguous {
                    let since = firstAmbiguous ?? sent
                    firstAmbiguous = since
                    // Ask again only while the server still accepts the token (a margin of one
                    // timeout for the repeat to arrive).
                    retryable = repeatableWithinGrace && reuseGrace > .zero && clock.now + timeout - since < reuseGrace
                }
                guard retryable, let pause = retry.delay(after: attempt, retryAfter: failure.retryAfter) else {
                    throw failure.error
                }
                logger.debug("token endpoint attempt failed; retrying", metadata: [
                    "attempt": "\(attempt)", "code": "\(failure.error.code.rawValue)", "pause": "\(pause)",
                    "ambiguous": "\(failure.ambiguous)",
                ])
                do { try await Task.sleep(for: pause) } catch { throw failure.error }
                attempt += 1
            }
        }
    }

    struct Failure: Error {
        var error: SessionError
        /// The request was certainly not processed: sending it again is safe.
        var retryable: Bool
        var retryAfter: Duration?
        /// The request was sent and may have been processed (a rotation may have happened).
        var ambiguous = false
    }

    /// Posts a revocation (RFC 7009); failures are logged, never thrown.
    func revoke(_ token: RefreshToken, at url: URL) async {
        var form = [("token", token.value), ("token_type_hint", "refresh_token")]
        if let clientID { form.append(("client_id", clientID)) }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(Array(Self.encode(form).utf8))
        do {
            let (response, _) = try await execute(request, upTo: 64 << 10)
            logger.debug("revoked the refresh token", metadata: ["status": "\(response.status.code)"])
        } catch {
            logger.warning("revocation failed", metadata: ["error": "\(type(of: error))"])
        }
    }

    private func attemptOnce(_ form: [(String, String)]) async -> Result<TokenResponse, Failure> {
        var fields = form
        if let clientID { fields.append(("client_id", clientID)) }
        var request = HTTPClientRequest(url: endpoint.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(Array(Self.encode(fields).utf8))
        let response: HTTPClientResponse
        let body: [UInt8]
        do {
            (response, body) = try await execute(request, upTo: 1 << 20)
        } catch {
            return .failure(Self.classify(error))
        }
        let status = Int(response.status.code)
        let json = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        if status == 200 {
            guard let json, let refresh = json["refresh_token"] as? String, !refresh.isEmpty else {
                return .failure(Failure(error: SessionError(.serverError, "the token endpoint answered without a readable token"),
                                        retryable: false, ambiguous: true))
            }
            let expiresIn = (json["expires_in"] as? NSNumber)?.doubleValue
            return .success(TokenResponse(
                accessTokenExpiresAt: expiresIn.map { Date().addingTimeInterval($0) },
                refreshToken: RefreshToken(refresh),
                setCookies: response.headers["set-cookie"]))
        }
        let oauthError = json?["error"] as? String
        if oauthError == "invalid_grant" {
            return .failure(Failure(error: SessionError(.invalidGrant, "the server ended the session"), retryable: false))
        }
        if [429, 502, 503, 504].contains(status) {
            let retryAfter = RetryPolicy.parseRetryAfter(response.headers.first(name: "retry-after"))
            return .failure(Failure(error: SessionError(.serverError, "the token endpoint is unavailable (HTTP \(status))"),
                                    retryable: true, retryAfter: retryAfter))
        }
        if (300..<400).contains(status) {
            return .failure(Failure(error: SessionError(.serverError, "the token endpoint redirected (HTTP \(status)); redirects are not followed"), retryable: false))
        }
        let code = oauthError.map { " (\($0.filter { $0.isLetter || $0 == "_" }.prefix(40)))" } ?? ""
        return .failure(Failure(error: SessionError(.serverError, "the token endpoint refused the request: HTTP \(status)\(code)"), retryable: false))
    }

    /// Sends `request` and reads its whole answer, all within ``timeout``: the head under the
    /// client's deadline, the body under a timer that cancels the read (a body trickled byte by
    /// byte must not hold the refresh, and every page waiting on it, past the timeout).
    private func execute(_ request: HTTPClientRequest, upTo limit: Int) async throws -> (HTTPClientResponse, [UInt8]) {
        let deadline = ContinuousClock.now + timeout
        let client = self.client
        return try await withThrowingTaskGroup(of: (HTTPClientResponse, [UInt8])?.self) { group in
            group.addTask {
                let response = try await client.execute(request, timeout: .init(deadline - .now))
                var buffer = try await response.body.collect(upTo: limit)
                return (response, buffer.readBytes(length: buffer.readableBytes) ?? [])
            }
            group.addTask {
                try await Task.sleep(until: deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let answer = first else { throw AttemptTimedOut() }
            return answer
        }
    }

    /// The whole attempt (head and body) took longer than ``timeout``.
    struct AttemptTimedOut: Error {}

    /// Connection failures happened before anything was sent: safe to retry. A timeout or a
    /// dropped connection after sending may have rotated the token: ambiguous, retried only
    /// within the server's reuse grace.
    static func classify(_ error: any Error) -> Failure {
        if error is AttemptTimedOut {
            return Failure(error: SessionError(.network, "the token endpoint did not answer in time"), retryable: false, ambiguous: true)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout:
                return Failure(error: SessionError(.network, "could not connect to the token endpoint"), retryable: true)
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return Failure(error: SessionError(.network, "the token endpoint did not answer in time"), retryable: false, ambiguous: true)
            default:
                break
            }
        }
        let typeName = String(reflecting: type(of: error))
        if typeName.contains("NIOConnectionError") || typeName.contains("ConnectTimeout") {
            return Failure(error: SessionError(.network, "could not connect to the token endpoint"), retryable: true)
        }
        return Failure(error: SessionError(.network, "the token endpoint connection failed"), retryable: false, ambiguous: true)
    }

    static func encode(_ form: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return form.map { key, value in
            (key.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "="
                + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
    }
}
