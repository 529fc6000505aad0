import Bridge
import Cookies
import Foundation
import Session
import SessionBridgeTesting
import Testing
import WebPage

/// Server faults from the reference server's switches, each run against a signed-in session with
/// an attached page: the refresh ends in the documented state (error code, vault, cookies)
/// within a bounded time, and the session still works once the fault is cleared, unless the
/// server ended it.
@Suite(.timeLimit(.minutes(2))) struct FaultTests {
    /// A generous bound for a slow, shared machine.
    static let bound: Duration = .seconds(15)

    struct Case: Sendable, CustomTestStringConvertible {
        enum Outcome: Sendable, Equatable {
            /// The refresh succeeds.
            case succeeds
            /// The refresh fails with this code; the vault and the cookies are kept.
            case fails(SessionError.Code)
        }

        let name: String
        let faults: FaultConfiguration
        let outcome: Outcome
        /// Token-endpoint requests the refresh may make (attempts, retries included).
        let attempts: ClosedRange<Int>
        /// Whether the server's route ran (and rotated the token) although the client saw a failure.
        let routeRuns: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "latency beyond the client timeout", faults: FaultConfiguration(latency: .milliseconds(1500)),
             outcome: .fails(.network), attempts: 1...1, routeRuns: true),
        Case(name: "503 storm with Retry-After 0", faults: FaultConfiguration(serverErrors: .init(status: 503, retryAfterSeconds: 0)),
             outcome: .fails(.serverError), attempts: 3...3, routeRuns: false),
        Case(name: "502 storm without Retry-After", faults: FaultConfiguration(serverErrors: .init(status: 502, retryAfterSeconds: nil)),
             outcome: .fails(.serverError), attempts: 3...3, routeRuns: false),
        Case(name: "500 storm (not retried)", faults: FaultConfiguration(serverErrors: .init(status: 500, retryAfterSeconds: nil)),
             outcome: .fails(.serverError), attempts: 1...1, routeRuns: false),
        Case(name: "503 with Retry-After beyond the ceiling", faults: FaultConfiguration(serverErrors: .init(status: 503, retryAfterSeconds: 60)),
             outcome: .fails(.serverError), attempts: 1...1, routeRuns: false),
        Case(name: "503 burst of two, then recovery", faults: FaultConfiguration(serverErrors: .init(status: 503, retryAfterSeconds: 0, count: 2)),
             outcome: .succeeds, attempts: 3...3, routeRuns: true),
        Case(name: "connection closed before the answer", faults: FaultConfiguration(closeConnection: true),
             outcome: .fails(.network), attempts: 1...1, routeRuns: false),
        Case(name: "connection reset mid-body", faults: FaultConfiguration(closeMidBody: true),
             outcome: .fails(.network), attempts: 1...1, routeRuns: true),
        Case(name: "malformed JSON", faults: FaultConfiguration(malformedJSON: true),
             outcome: .fails(.serverError), attempts: 1...1, routeRuns: true),
        Case(name: "garbage and oversized Set-Cookie", faults: FaultConfiguration(garbageSetCookie: true),
             outcome: .succeeds, attempts: 1...1, routeRuns: true),
        Case(name: "server stops answering", faults: FaultConfiguration(stopResponding: .seconds(3)),
             outcome: .fails(.network), attempts: 1...1, routeRuns: false),
        // Documented: `requestTimeout` is "how long one token-endpoint request may take"; a
        // trickled body is not bounded by it (see the known issue below).
        Case(name: "body trickled beyond the client timeout", faults: FaultConfiguration(slowBody: .milliseconds(5)),
             outcome: .succeeds, attempts: 1...1, routeRuns: true),
    ]

    static func configuration(_ server: ReferenceServer) -> SessionConfiguration {
        var configuration = SessionConfiguration(server: server.baseURL)
        configuration.requestTimeout = .milliseconds(700)
        configuration.retry = RetryPolicy(baseDelay: .milliseconds(30))
        configuration.refreshMargin = .milliseconds(200)
        configuration.freshnessWindow = .zero
        return configuration
    }

    @Test(arguments: cases) func faultEndsInTheDocumentedState(_ fault: Case) async throws {
        try await withReferenceServer { server in
            let fixture = try await SessionFixture.connect(to: server.baseURL, sessionConfiguration: Self.configuration(server))
            defer { Task { await fixture.stop() } }
            try await fixture.session.login(username: "demo", password: "demo")
            #expect(try await fixture.page.load(server.url("/app")).statusCode == 200)
            let root = server.baseURL
            let tokenBefore = try #require(try fixture.session.vault.load()).refreshToken
            let cookieBefore = try #require(fixture.session.cookieJar.value("__Host-session", for: root))
            #expect(fixture.page.cookieJar.value("__Host-session", for: root) == cookieBefore)
            let issuedBefore = server.issuedRefreshTokens().count
            let before = server.stats()

            server.setFaults(fault.faults)
            let clock = ContinuousClock()
            let started = clock.now
            // The page asks, as page scripts do; the reply is the page's view of the outcome.
            let reply = try await fixture.page.callAsyncJavaScript("""
                try { const r = await window.webkit.messageHandlers.session.postMessage({action: "refresh"}); return ["ok", r.signedIn]; }
                catch (e) { return [e.code, e.retryable]; }
                """)
            let elapsed = clock.now - started
            #expect(elapsed < Self.bound, "\(fault.name) took \(elapsed)")
            if fault.faults.slowBody != nil {
                withKnownIssue("TokenEndpointClient: requestTimeout bounds the response head only; a body trickled byte by byte keeps the refresh (and every page waiting on it) going far past the timeout") {
                    #expect(elapsed < Self.configuration(server).requestTimeout * 2, "took \(elapsed)")
                }
            }
            let after = server.stats()
            #expect((after.tokenRequests - before.tokenRequests) >= fault.attempts.lowerBound)
            #expect(fault.attempts.contains(after.tokenRequests - before.tokenRequests), "\(fault.name): \(after.tokenRequests - before.tokenRequests) attempts")
            #expect(after.reuseEvents == 0)

            switch fault.outcome {
            case .succeeds:
                #expect(reply == ["ok", true])
                let rotated = try #require(try fixture.session.vault.load()).refreshToken
                #expect(rotated != tokenBefore)
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
            if fault.routeRuns, case .fails = fault.outcome {
                let deadline = clock.now + .seconds(5)
                while server.issuedRefreshTokens().count == issuedBefore, clock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            let spentOnServer = server.issuedRefreshTokens().count > issuedBefore && fault.outcome != .succeeds
            let recoveryStarted = clock.now
            let recovery: Result<SessionStatus, SessionError>
            do throws(SessionError) { recovery = .success(try await fixture.session.refresh()) } catch { recovery = .failure(error) }
            #expect(clock.now - recoveryStarted < Self.bound)
            let reuse = server.stats().reuseEvents
            print("[faults] \(fault.name): page saw \(reply); \(after.tokenRequests - before.tokenRequests) attempt(s) in \(elapsed); "
                + "token spent on the server without the client knowing: \(spentOnServer); "
                + "after clearing: \((try? recovery.get()) != nil ? "refresh ok" : "refresh failed (\(String(describing: recovery)))"), reuse events \(reuse)")
            if spentOnServer {
                // The server rotated the token but the answer never reached the client: the vault
                // still holds the spent token, and the next refresh is counted as reuse.
                withKnownIssue("the vault keeps a token the server already rotated after an ambiguous failure (answer lost, cut or unreadable); the next refresh is a reuse that revokes the session") {
                    #expect(reuse == 0)
                    #expect(throws: Never.self) { try recovery.get() }
                }
                #expect(throws: SessionError.self) { try recovery.get() }
                #expect(try fixture.session.vault.load() == nil, "invalid_grant must end the session")
                #expect(fixture.page.cookieJar.value("__Host-session", for: root) == nil)
            } else {
                #expect(reuse == 0)
                let status = try recovery.get()
                #expect(status.isSignedIn)
                #expect(fixture.page.cookieJar.value("__Host-session", for: root) == fixture.session.cookieJar.value("__Host-session", for: root))
                #expect(try await fixture.page.load(server.url("/app")).statusCode == 200)
            }
        }
    }

    @Test func invalidGrantEndsTheSessionAndStaysEnded() async throws {
        try await withReferenceServer { server in
            let fixture = try await SessionFixture.connect(to: server.baseURL, sessionConfiguration: Self.configuration(server))
            defer { Task { await fixture.stop() } }
            try await fixture.session.login(username: "demo", password: "demo")
            #expect(try await fixture.page.load(server.url("/app")).statusCode == 200)
            #expect(server.revokeAllSessions() == 1)
            let clock = ContinuousClock()
            let started = clock.now
            let reply = try await fixture.page.callAsyncJavaScript("""
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
