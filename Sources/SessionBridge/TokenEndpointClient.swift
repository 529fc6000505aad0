import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import SessionBridgeHTTP
import SessionBridgeOAuth

/// What the token endpoint answered: the tokens (RFC 6749 §5.1) and every `Set-Cookie` field,
/// each a separate value.
struct TokenResponse: Sendable {
    /// The access token: kept in memory for the session exchange and the native client.
    var accessToken: Secret?
    /// `token_type`, lowercased: `bearer`, or `dpop` for a token bound to the DPoP key.
    var tokenType = "bearer"
    var accessTokenExpiresAt: Date?
    /// `nil` when the server did not rotate the refresh token (RFC 6749 §6): the old one stays.
    var refreshToken: RefreshToken?
    /// The ID token, not yet validated.
    var idToken: Secret?
    var setCookies: [String]
}

/// Posts grants to the token endpoint with bounded timeouts and retries. The request (form,
/// client authentication, endpoint from discovery) is built and the answer read by the
/// ``OAuthClient``. The HTTP client must follow no redirect (as `WebPage.defaultHTTPClient`):
/// a `307`/`308` to the same origin is followed once here, any other redirect is an error.
struct TokenEndpointClient: Sendable {
    var client: HTTPClient
    /// Builds requests and reads answers.
    var oauth: OAuthClient
    var timeout: Duration
    var retry: RetryPolicy
    /// How long the server accepts a rotated refresh token again
    /// (``SessionConfiguration/refreshTokenReuseGrace``).
    var reuseGrace: Duration = .zero
    var logger: Logger
    /// The wall clock access-token expiries are computed from.
    var now: @Sendable () -> Date = { Date() }

    /// Posts `form` and returns the tokens, retrying what is safe to retry.
    ///
    /// A failure that proves the request was not processed (no connection, `429`/`502`/`503`/
    /// `504`) is retried under ``retry``. A failure after the request was sent (timeout,
    /// connection lost, unreadable answer) may have rotated the token on the server: it is
    /// retried only when `repeatableWithinGrace` (a refresh-token grant) and the server's
    /// ``reuseGrace`` has not passed since the first such attempt, so the server answers the
    /// repeat with the same rotation.
    nonisolated(nonsending) func requestTokens(
        _ grant: TokenGrant, repeatableWithinGrace: Bool = false
    ) async throws(SessionError) -> TokenResponse {
        let clock = ContinuousClock()
        var firstAmbiguous: ContinuousClock.Instant?
        var attempt = 1
        while true {
            let sent = clock.now
            let outcome = await attemptOnce(grant)
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
                logger.debug(
                    "token endpoint attempt failed; retrying",
                    metadata: [
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

    /// Revokes `token` (RFC 7009) with the client's authentication, at the configured or
    /// discovered revocation endpoint; skipped when there is none. An answer saying the server
    /// could not take it now (`503`, `429`, `502`, `504`, `temporarily_unavailable`) or none at
    /// all is asked again under the retry policy, after the answer's `Retry-After` when it has
    /// one (a longer one than the policy honours ends the attempts): RFC 7009 §2.2.1 has the
    /// client assume the token still valid after such an answer. Failures are logged and returned, never thrown.
    @discardableResult
    func revoke(_ token: RefreshToken) async -> Revocation {
        var attempt = 1
        while true {
            do {
                guard try await oauth.metadata().revocationEndpoint != nil else { return .notSupported }
                try await oauth.revoke(Secret(token.value))
                logger.debug("revoked the refresh token")
                return .revoked
            } catch {
                let unavailable =
                    error.code == .network || error.code == .temporarilyUnavailable || [429, 502, 503, 504].contains(error.status ?? 0)
                let asked = RetryPolicy.parseRetryAfter(error.retryAfter)
                if unavailable, let pause = retry.delay(after: attempt, retryAfter: asked) {
                    attempt += 1
                    do { try await Task.sleep(for: pause) } catch {}
                    if !Task.isCancelled { continue }
                }
                logger.warning("revocation failed", metadata: ["code": "\(error.code.rawValue)"])
                return .failed(SessionError(error))
            }
        }
    }

    /// What became of a revocation.
    enum Revocation {
        case revoked
        /// The server has no revocation endpoint.
        case notSupported
        case failed(SessionError)
    }

    nonisolated(nonsending) private func attemptOnce(_ grant: TokenGrant) async -> Result<TokenResponse, Failure> {
        var request: HTTPClientRequest
        do {
            request = try await oauth.tokenRequest(grant)
        } catch {
            // Discovery already waited out its own timeout: not repeated within this request.
            return .failure(Failure(error: SessionError(error), retryable: false))
        }
        var response: HTTPClientResponse
        var body: [UInt8]
        var redirected = false
        var nonceRetried = false
        while true {
            do {
                (response, body) = try await execute(request, upTo: 1 << 20)
            } catch {
                return .failure(Self.classify(error))
            }
            let status = Int(response.status.code)
            // Only a client with a DPoP key has nonces to keep or retry for (the check read the
            // headers, copied the body and parsed the URL of every answer: 10 µs a refresh).
            if oauth.configuration.dpopKey != nil, let url = URL(string: request.url),
                oauth.needsNonceRetry(status: status, headers: response.headers.map { ($0.name, $0.value) }, body: Data(body), from: url),
                !nonceRetried
            {
                // The server wants its DPoP nonce: the request was refused unprocessed, sent once more.
                nonceRetried = true
                do {
                    request = try await oauth.tokenRequest(grant, to: url)
                } catch {
                    return .failure(Failure(error: SessionError(error), retryable: false))
                }
                continue
            }
            guard status == 307 || status == 308, !redirected else { break }
            // Followed once, to the same origin only: the form and credentials go nowhere else.
            guard let location = response.headers.first(name: "location"),
                let target = URL(string: location, relativeTo: URL(string: request.url))?.absoluteURL,
                let from = URL(string: request.url), Self.sameOrigin(from, target)
            else {
                return .failure(
                    Failure(
                        error: SessionError(.serverError, "the token endpoint redirected (HTTP \(status)) to another origin; not followed"),
                        retryable: false))
            }
            do {
                request = try await oauth.tokenRequest(grant, to: target)
            } catch {
                return .failure(Failure(error: SessionError(error), retryable: false))
            }
            redirected = true
            logger.notice("the token endpoint moved (HTTP \(status)); followed once, same origin")
        }
        let status = Int(response.status.code)
        if (300..<400).contains(status) {
            return .failure(
                Failure(
                    error: SessionError(
                        .serverError, "the token endpoint redirected (HTTP \(status)); only one 307/308 to the same origin is followed"),
                    retryable: false))
        }
        let answer: TokenEndpointResponse
        do {
            answer = try oauth.tokenResponse(status: status, body: Data(body))
        } catch {
            return .failure(Self.classify(error, status: status, retryAfter: response.headers.first(name: "retry-after")))
        }
        return .success(
            TokenResponse(
                accessToken: answer.accessToken,
                tokenType: answer.tokenType,
                accessTokenExpiresAt: answer.expiresIn.map { now().addingTimeInterval($0.timeInterval) },
                refreshToken: answer.refreshToken.map { RefreshToken($0.exposedValue) },
                idToken: answer.idToken,
                setCookies: response.headers["set-cookie"]))
    }

    /// How an error answer is retried: `429`, `502`–`504` and a `4xx` `temporarily_unavailable`
    /// were not processed (retried with backoff and `Retry-After`); another `5xx` may have been,
    /// and is final; an unreadable `200` may have rotated the token (ambiguous: asked again only
    /// within the reuse grace), where a `200` naming an error issued nothing and is that error;
    /// every other error is final.
    static func classify(_ error: OAuthError, status: Int, retryAfter: String?) -> Failure {
        if status == 200, error.code == .invalidResponse {
            return Failure(
                error: SessionError(.serverError, "the token endpoint answered without a readable token"), retryable: false, ambiguous: true
            )
        }
        if [429, 502, 503, 504].contains(status) || (error.code == .temporarilyUnavailable && status < 500) {
            return Failure(
                error: SessionError(.serverError, "the token endpoint is unavailable (HTTP \(status))"),
                retryable: true, retryAfter: RetryPolicy.parseRetryAfter(retryAfter))
        }
        if status >= 500 {
            // A 500 may come after the grant was processed: not sent again.
            return Failure(error: SessionError(.serverError, "the token endpoint failed (HTTP \(status))"), retryable: false)
        }
        switch error.code {
        case .invalidGrant:
            return Failure(error: SessionError(.invalidGrant, "the server ended the session"), retryable: false)
        case .invalidDPoPProof, .useDPoPNonce:
            return Failure(
                error: SessionError(.serverError, "the token endpoint refused the DPoP proof (\(error.code.rawValue))"), retryable: false)
        case _ where error.isConfigurationError:
            return Failure(
                error: SessionError(
                    SessionError(error).code,
                    "the token endpoint refused the client's request: \(error.code.rawValue) (HTTP \(status)); check the client's registration and settings"
                ),
                retryable: false)
        default:
            // What the page is told follows the server's code (`access_denied`,
            // `interaction_required`, one it does not know: `refused`), never a retryable
            // `server_error`: asking again cannot change a refusal.
            var code = SessionError(error).code
            if code == .serverError { code = .refused }
            return Failure(
                error: SessionError(code, "the token endpoint refused the request: \(error.code.rawValue) (HTTP \(status))"),
                retryable: false)
        }
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && (a.port ?? (a.scheme == "https" ? 443 : 80)) == (b.port ?? (b.scheme == "https" ? 443 : 80))
    }

    /// Sends `request` and reads its whole answer, all within ``timeout``: the head under the
    /// client's deadline, the body under a timer that cancels the read (a body trickled byte by
    /// byte must not hold the refresh, and every page waiting on it, past the timeout).
    nonisolated(nonsending) private func execute(
        _ request: HTTPClientRequest, upTo limit: Int
    ) async throws -> (HTTPClientResponse, [UInt8]) {
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        let client = self.client
        // One task for the request, started on this thread (it hands the request to the event
        // loop before it first suspends); the event loop's timer bounds the whole answer (the
        // client's own deadline covers the head only, and a body can trickle in slowly).
        let work = Task.immediate {
            let response = try await client.execute(request, deadline: deadline)
            var buffer = try await response.body.collect(upTo: limit)
            return (response, buffer.readBytes(length: buffer.readableBytes) ?? [])
        }
        let timer = client.eventLoopGroup.any().scheduleTask(deadline: deadline) { work.cancel() }
        defer { timer.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await work.value
            } onCancel: {
                work.cancel()
            }
        } catch {
            // The timer fires at the deadline: a failure from then on is the timeout's.
            if NIODeadline.now() >= deadline { throw AttemptTimedOut() }
            throw error
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
                return Failure(
                    error: SessionError(.network, "the token endpoint did not answer in time"), retryable: false, ambiguous: true)
            default:
                break
            }
        }
        // A refusal comes before anything is sent (the client does not retry it itself).
        if let error = error as? IOError, error.errnoCode == ECONNREFUSED {
            return Failure(error: SessionError(.network, "the token endpoint refused the connection"), retryable: true)
        }
        // No connection was made (every address failed, or the connection timed out): nothing was sent.
        if error is NIOConnectionError {
            return Failure(error: SessionError(.network, "could not connect to the token endpoint"), retryable: true)
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return Failure(error: SessionError(.network, "could not connect to the token endpoint"), retryable: true)
        }
        // An answer past the 1 MiB a token answer may have: sent and answered, so ambiguous.
        if error is NIOTooManyBytesError {
            return Failure(
                error: SessionError(.serverError, "the token endpoint's answer is larger than the 1 MiB a token answer may have"),
                retryable: false, ambiguous: true)
        }
        // An answer HTTP does not have came after the request was sent: ambiguous as well.
        if let error = error as? MalformedResponseStatus {
            return Failure(
                error: SessionError(.network, "the token endpoint answered with status code \(error.code), which HTTP does not have"),
                retryable: false, ambiguous: true)
        }
        return Failure(error: SessionError(.network, "the token endpoint connection failed"), retryable: false, ambiguous: true)
    }
}
