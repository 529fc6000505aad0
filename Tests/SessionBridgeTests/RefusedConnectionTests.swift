import AsyncHTTPClient
import Foundation
import NIOCore
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridge
@testable import SessionBridgeOAuth

/// A server that refuses the connection is an answer: the attempt fails at once and the
/// session's retry policy decides what follows, as a browser reports a refusal at once.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct RefusedConnectionTests {
    /// The refresh fails as a retryable network error that names the refusal (it is retried by
    /// the session's policy: nothing was sent), and the session is kept. Each attempt's limit (5 s here) is shorter than the client's connect timeout
    /// (10 s): a client that retried the refusal itself would end every attempt at that limit,
    /// as a timeout.
    @Test func aRefreshAgainstARefusingPortFailsAsARefusedConnection() async throws {
        // A port held by a socket that does not listen: a stopped server's port is free again,
        // and another test's server may take it and answer, or hang.
        let refusing = try RefusingPort()
        let (session, vault, record) = Self.signedInSession(server: URL(string: "http://127.0.0.1:\(refusing.port)")!)
        do {
            try await session.refresh()
            Issue.record("a refresh against a refused connection succeeded")
        } catch {
            #expect(error.code == .network)
            #expect(error.isRetryable)
            #expect(error.message.localizedCaseInsensitiveContains("refused"), "\(error.message)")
            #expect(!error.message.localizedCaseInsensitiveContains("timed out"), "\(error.message)")
        }
        #expect(try vault.load() == record)
        withExtendedLifetime(refusing) {}
    }

    /// A token endpoint answering with a status code below 100 fails the refresh as an
    /// ambiguous network error that names it (the request was sent), keeps the session, and
    /// does not end the process (AsyncHTTPClient stopped it on the body of such an answer).
    @Test func aTokenAnswerWithAStatusCodeBelow100FailsTheRefreshNotTheProcess() async throws {
        let listener = try RawHTTPListener { _ in "HTTP/1.1 000 X\r\nContent-Length: 2\r\n\r\n{}" }
        defer { listener.stop() }
        let (session, vault, record) = Self.signedInSession(server: listener.url)
        do {
            try await session.refresh()
            Issue.record("a refresh read a token answer of status 000")
        } catch {
            #expect(error.code == .network)
            #expect(error.message.contains("status code 0, which HTTP does not have"), "\(error.message)")
            #expect(!error.message.contains("kept-refresh-token"))
        }
        #expect(try vault.load() == record)
    }

    /// A session of `server` whose vault holds a refresh token, its attempts limited to 5 s.
    static func signedInSession(server: URL) -> (SessionController, InMemoryTokenVault, VaultRecord) {
        var configuration = SessionConfiguration(server: server)
        configuration.requestTimeout = .seconds(5)
        configuration.retry = RetryPolicy(baseDelay: .milliseconds(50))
        let record = VaultRecord(refreshToken: RefreshToken("kept-refresh-token"), accessTokenExpiresAt: nil)
        let vault = InMemoryTokenVault(record)
        return (SessionController(configuration: configuration, vault: vault), vault, record)
    }

    /// A refusal is retried (nothing was sent); a connection reset after sending may have
    /// rotated the token and is not.
    @Test func aRefusalIsRetryableAndAResetIsAmbiguous() {
        let refused = TokenEndpointClient.classify(IOError(errnoCode: ECONNREFUSED, reason: "connect"))
        #expect(refused.retryable && !refused.ambiguous)
        #expect(refused.error.code == .network)
        let reset = TokenEndpointClient.classify(IOError(errnoCode: ECONNRESET, reason: "read"))
        #expect(!reset.retryable && reset.ambiguous)
        // A connection that was never made in time sent nothing either.
        let notMade = TokenEndpointClient.classify(ChannelError.connectTimeout(.seconds(10)))
        #expect(notMade.retryable && !notMade.ambiguous)
        #expect(notMade.error.message == "could not connect to the token endpoint")
    }

    @Test func noDefaultClientRetriesARefusedConnectionItself() {
        #expect(SessionConfiguration.defaultHTTPClientConfiguration.connectionPool.retryConnectionEstablishment == false)
        #expect(SessionHTTPClient.httpClientConfiguration.connectionPool.retryConnectionEstablishment == false)
        #expect(OAuthClientConfiguration.defaultHTTPClientConfiguration.connectionPool.retryConnectionEstablishment == false)
    }
}
