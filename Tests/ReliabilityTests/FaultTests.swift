import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// Server faults from the reference server's switches, each run against a signed-in session with
/// an attached page, once against a strict server (any second use of a refresh token revokes
/// the session) and once against a server with a reuse grace that the client is told of: the
/// refresh ends in the documented state (error code, vault, cookies) within a bounded time, and
/// the session still works once the fault is cleared, unless the server ended it.
@Suite(.timeLimit(.minutes(3)), .hangWatchdog) struct FaultTests {
    /// A generous bound for a slow, shared machine.
    static let bound: Duration = .seconds(15)
    /// The client's timeout for one token-endpoint request.
    static let requestTimeout: Duration = .milliseconds(700)

    struct Case: Sendable, CustomTestStringConvertible {
        enum Outcome: Sendable, Equatable {
            /// The refresh succeeds.
            case succeeds
            /// The refresh fails with this code; the vault and the cookies are kept.
            case fails(SessionError.Code)
        }

        let name: String
        let faults: FaultConfiguration
        /// The outcome and the token-endpoint requests it takes (retries included), per server.
        let strict: (Outcome, ClosedRange<Int>)
        let grace: (Outcome, ClosedRange<Int>)
        /// Whether the server's route ran (and rotated the token) although the client saw a failure.
        let routeRuns: Bool
        var testDescription: String { name }

        init(
            _ name: String, _ faults: FaultConfiguration, _ strict: (Outcome, ClosedRange<Int>),
            grace: (Outcome, ClosedRange<Int>)? = nil, routeRuns: Bool
        ) {
            self.name = name
            self.faults = faults
            self.strict = strict
            self.grace = grace ?? strict
            self.routeRuns = routeRuns
        }

        func expected(_ server: TokenServer) -> (Outcome, ClosedRange<Int>) { server == .strict ? strict : grace }
    }

    /// Failures after the request was sent are asked again on a grace server, up to the retry
    /// policy's three attempts.
    static let cases: [Case] = [
        Case(
            "latency beyond the client timeout", FaultConfiguration(latency: .milliseconds(1500)),
            (.fails(.network), 1...1), grace: (.fails(.network), 3...3), routeRuns: true),
        Case(
            "latency beyond the client timeout, once", FaultConfiguration(limit: 1, latency: .milliseconds(1500)),
            (.fails(.network), 1...1), grace: (.succeeds, 2...2), routeRuns: true),
        Case(
            "503 storm with Retry-After 0", FaultConfiguration(serverErrors: .init(status: 503, retryAfterSeconds: 0)),
            (.fails(.serverError), 3...3), routeRuns: false),
        Case(
            "502 storm without Retry-After", FaultConfiguration(serverErrors: .init(status: 502, retryAfterSeconds: nil)),
            (.fails(.serverError), 3...3), routeRuns: false),
        Case(
            "500 storm (not retried)", FaultConfiguration(serverErrors: .init(status: 500, retryAfterSeconds: nil)),
            (.fails(.serverError), 1...1), routeRuns: false),
        Case(
            "503 with Retry-After beyond the ceiling", FaultConfiguration(serverErrors: .init(status: 503, retryAfterSeconds: 60)),
            (.fails(.serverError), 1...1), routeRuns: false),
        Case(
            "503 burst of two, then recovery", FaultConfiguration(serverErrors: .init(status: 503, retryAfterSeconds: 0, count: 2)),
            (.succeeds, 3...3), routeRuns: true),
        Case(
            "connection closed before the answer", FaultConfiguration(closeConnection: true),
            (.fails(.network), 1...1), grace: (.fails(.network), 3...3), routeRuns: false),
        Case(
            "connection reset mid-body", FaultConfiguration(closeMidBody: true),
            (.fails(.network), 1...1), grace: (.fails(.network), 3...3), routeRuns: true),
        Case(
            "connection reset mid-body, once", FaultConfiguration(limit: 1, closeMidBody: true),
            (.fails(.network), 1...1), grace: (.succeeds, 2...2), routeRuns: true),
        Case(
            "malformed JSON", FaultConfiguration(malformedJSON: true),
            (.fails(.serverError), 1...1), grace: (.fails(.serverError), 3...3), routeRuns: true),
        Case(
            "garbage and oversized Set-Cookie", FaultConfiguration(garbageSetCookie: true),
            (.succeeds, 1...1), routeRuns: true),
        Case(
            "server stops answering", FaultConfiguration(stopResponding: .seconds(3)),
            (.fails(.network), 1...1), grace: (.fails(.network), 3...3), routeRuns: false),
        // `requestTimeout` bounds the whole answer, body included.
        Case(
            "body trickled beyond the client timeout", FaultConfiguration(slowBody: .milliseconds(30)),
            (.fails(.network), 1...1), grace: (.fails(.network), 3...3), routeRuns: true),
    ]

    /// Signs in under the cases' short request timeout, which a sign-in on a loaded machine
    /// can take longer than (three cases failed so in a run beside other heavy suites): it is
    /// the set-up, not what the cases test, so a timed-out attempt is made again.
    static func signIn(_ session: SessionController) async throws {
        var attempts = 1
        while true {
            do {
                try await session.login(username: "demo", password: "demo")
                return
            } catch {
                guard error.code == .network, attempts < 3 else { throw error }
                attempts += 1
            }
        }
    }

    static func configuration(_ server: ReferenceServer, _ kind: TokenServer) -> SessionConfiguration {
        var configuration = SessionConfiguration(server: server.baseURL)
        configuration.requestTimeout = requestTimeout
        configuration.retry = RetryPolicy(baseDelay: .milliseconds(30))
        configuration.refreshMargin = .milliseconds(200)
        configuration.freshnessWindow = .zero
        configuration.refreshTokenReuseGrace = kind.reuseGrace
        return configuration
    }

    @Test(arguments: cases, TokenServer.allCases) func faultEndsInTheDocumentedState(_ fault: Case, _ kind: TokenServer) async throws {
        try await withReferenceServer(ReferenceServerConfiguration(refreshTokenReuseGrace: kind.reuseGrace)) { server in
            let fixture = try await SessionFixture.connect(to: server.baseURL, sessionConfiguration: Self.configuration(server, kind))
            defer { Task { await fixture.stop() } }
            try await Self.signIn(fixture.session)
            #expect(try await fixture.page.load(server.url("/app")).statusCode == 200)
            let root = server.baseURL
            let tokenBefore = try #require(try fixture.session.vault.load()).refreshToken
            let cookieBefore = try #require(fixture.session.cookieJar.value("__Host-session", for: root))
            #expect(fixture.page.cookieJar.value("__Host-session", for: root) == cookieBefore)
            let issuedBefore = server.issuedRefreshTokens().count
            let before = server.stats()
            let (outcome, attempts) = fault.expected(kind)

            server.setFaults(fault.faults)
            let clock = ContinuousClock()
            let started = clock.now
            // The page asks, as page scripts do; the reply is the page's view of the outcome.
            let reply = try await fixture.page.callAsyncJavaScript(
                """
                try { const r = await window.webkit.messageHandlers.session.postMessage({action: "refresh"}); return ["ok", r.signedIn]; }
                catch (e) { return [e.code, e.retryable]; }
                """)
            let elapsed = clock.now - started
            #expect(elapsed < Self.bound, "\(fault.name) took \(elapsed)")
            if fault.faults.slowBody != nil {
                // Each attempt ends at the timeout, body included: a trickled body took ~13 s
                // per attempt before the timeout covered it. Expected here: 0.7 s per attempt;
                // the bound stays under one trickled body and leaves a loaded machine room (a
                // tighter one, attempts × timeout + 2 s, failed at 4.2 s under a loaded CI run).
                #expect(elapsed < .seconds(10), "took \(elapsed)")
            }
            let after = server.stats()
            let made = after.tokenRequests - before.tokenRequests
            #expect(attempts.contains(made), "\(fault.name): \(made) attempts")
            #expect(after.reuseEvents == 0)

            switch outcome {
            case .succeeds:
                #expect(reply == ["ok", true])
                let rotated = try #require(try fixture.session.vault.load()).refreshToken
                #expect(rotated != tokenBefore)
                #expect(rotated == server.issuedRefreshTokens().last.map { RefreshToken($0) })
                let cookie = try #require(fixture.session.cookieJar.value("__Host-session", for: root))
                #expect(cookie != cookieBefore)
                #expect(fixture.page.cookieJar.value("__Host-session", for: root) == cookie)
                if fault.faults.garbageSetCookie {
                    for jar in [fixture.session.cookieJar, fixture.page.cookieJar] {
                        let names = Set(jar.cookies(for: root).map(\.name))
                        #expect(names.isSuperset(of: ["__Host-session", "session_expires", "csrf_token"]))
                        #expect(!names.contains("oversized"))
                        #expect(!names.contains("this-is-not-a-cookie"))
                    }
                }
            case .fails(let code):
                #expect(reply == [.string(code.rawValue), true], "\(fault.name): \(reply)")
                // Documented: a retryable failure changes nothing on the client.
                #expect(try fixture.session.vault.load()?.refreshToken == tokenBefore)
                #expect(try await fixture.session.status().isSignedIn)
                #expect(fixture.session.cookieJar.value("__Host-session", for: root) == cookieBefore)
                #expect(fixture.page.cookieJar.value("__Host-session", for: root) == cookieBefore)
            }

            // Clear the fault. A fault held before the route (latency) finishes on the server in
            // its own time: wait for the route to have run when it will, signalled by a rotation.
            server.setFaults(.none)
            if fault.routeRuns, case .fails = outcome {
                let deadline = clock.now + .seconds(5)
                while server.issuedRefreshTokens().count == issuedBefore, clock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            let spentOnServer = server.issuedRefreshTokens().count > issuedBefore && outcome != .succeeds
            #expect(spentOnServer == (fault.routeRuns && outcome != .succeeds))
            let recoveryStarted = clock.now
            let recovery: Result<SessionStatus, SessionError>
            do throws(SessionError) { recovery = .success(try await fixture.session.refresh()) } catch { recovery = .failure(error) }
            #expect(clock.now - recoveryStarted < Self.bound)
            let stats = server.stats()
            print(
                "[faults] \(kind) server, \(fault.name): page saw \(reply); \(made) attempt(s) in \(elapsed); "
                    + "token spent on the server without the client knowing: \(spentOnServer); "
                    + "after clearing: \((try? recovery.get()) != nil ? "refresh ok" : "refresh failed (\(String(describing: recovery)))"), "
                    + "reuse events \(stats.reuseEvents), grace replays \(stats.graceReplays)")
            if spentOnServer && kind == .strict {
                // Documented for a server without a grace: the server rotated the token but the
                // answer never reached the client, so the vault holds a spent token. The next
                // refresh is refused as reuse and the session ends everywhere.
                #expect(stats.reuseEvents == 1)
                #expect(recovery.failure?.code == .invalidGrant)
                #expect(try fixture.session.vault.load() == nil, "invalid_grant must end the session")
                for jar in [fixture.session.cookieJar, fixture.page.cookieJar] {
                    #expect(jar.value("__Host-session", for: root) == nil)
                }
                #expect(try await !fixture.session.status().isSignedIn)
            } else {
                // Nothing lost: with a grace the repeat of a lost answer gets the same rotation.
                #expect(stats.reuseEvents == 0)
                if spentOnServer { #expect(stats.graceReplays >= 1) }
                let status = try recovery.get()
                #expect(status.isSignedIn)
                #expect(try fixture.session.vault.load()?.refreshToken == server.issuedRefreshTokens().last.map { RefreshToken($0) })
                #expect(
                    fixture.page.cookieJar.value("__Host-session", for: root)
                        == fixture.session.cookieJar.value("__Host-session", for: root))
                #expect(try await fixture.page.load(server.url("/app")).statusCode == 200)
            }
        }
    }

    @Test func invalidGrantEndsTheSessionAndStaysEnded() async throws {
        try await withReferenceServer { server in
            let fixture = try await SessionFixture.connect(to: server.baseURL, sessionConfiguration: Self.configuration(server, .strict))
            defer { Task { await fixture.stop() } }
            try await Self.signIn(fixture.session)
            #expect(try await fixture.page.load(server.url("/app")).statusCode == 200)
            // The app page's own start-up (its fetch) ends first: a loaded machine ran it after the
            // revocation, and its refresh, not the one asked below, met the revoked grant.
            #expect(await fixture.page.runUntilQuiescent(timeout: .seconds(20)))
            #expect(server.revokeAllSessions() == 1)
            let clock = ContinuousClock()
            let started = clock.now
            let reply = try await fixture.page.callAsyncJavaScript(
                """
                try { await window.webkit.messageHandlers.session.postMessage({action: "refresh"}); return "ok"; } catch (e) { return [e.code, e.retryable]; }
                """)
            #expect(clock.now - started < Self.bound)
            #expect(reply == ["invalid_grant", false])
            #expect(try fixture.session.vault.load() == nil)
            for jar in [fixture.session.cookieJar, fixture.page.cookieJar] {
                #expect(jar.value("__Host-session", for: server.baseURL) == nil)
                #expect(jar.value("csrf_token", for: server.baseURL) == nil)
            }
            // Clearing nothing brings it back: every later attempt is `signed_out`, no request is made.
            let requests = server.stats().tokenRequests
            await #expect { try await fixture.session.refresh() } throws: { ($0 as? SessionError)?.code == .signedOut }
            #expect(server.stats().tokenRequests == requests)
            _ = try await fixture.page.load(server.url("/app"))
            #expect(fixture.page.cookieJar.value("__Host-session", for: server.baseURL) == nil)
            #expect(server.stats().reuseEvents == 0)
        }
    }
}
