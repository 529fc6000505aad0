import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct FailureTests {
    @Test func invalidGrantEndsTheSessionOnBothSides() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            // The app page's own start-up (its fetch) ends before the revocation (see CookieRefreshTests).
            #expect(await page.runUntilQuiescent(timeout: .seconds(20)))
            _ = try await page.evaluateJavaScript(
                "window.__signedOut = []; window.addEventListener('sessionbridge:signedout', e => __signedOut.push(e.detail.reason))")
            #expect(server.revokeAllSessions() == 1)
            let code = try await page.callAsyncJavaScript(
                """
                try { await sessionBridge.refresh(); return "ok"; } catch (e) { return [e.code, e.retryable]; }
                """)
            #expect(code == ["invalid_grant", false])
            #expect(try await page.evaluateJavaScript("__signedOut") == ["invalid_grant"])
            #expect(session.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            #expect(page.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            #expect(try session.vault.load() == nil)
            #expect(try await !session.status().isSignedIn)
            let signedOut = try await page.callAsyncJavaScript(
                """
                try { await window.webkit.messageHandlers.session.postMessage({action: "refresh"}); return "ok"; } catch (e) { return e.code; }
                """)
            #expect(signedOut == "signed_out")
            #expect(server.stats().reuseEvents == 0)
            await page.close()
        }
    }

    /// A server that answers `invalid_grant` with `200` (as some do for a refresh token they no
    /// longer take) has ended the session as surely as with `400`: the session ends, where it
    /// had been kept as an unreadable answer that may have rotated the token.
    @Test func invalidGrantAnsweredWith200EndsTheSession() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            server.setOAuthFaults(OAuthFaults(tokenError: "invalid_grant", tokenErrorStatus: 200))
            await #expect {
                _ = try await session.refresh()
            } throws: { error in
                (error as? SessionError)?.code == .invalidGrant
            }
            #expect(try await !session.status().isSignedIn)
            #expect(try session.vault.load() == nil)
        }
    }

    @Test func serviceUnavailableIsRetriedAfterRetryAfter() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            server.setFaults(FaultConfiguration(serverErrors: .init(status: 503, retryAfterSeconds: 1, count: 1)))
            let clock = ContinuousClock()
            let started = clock.now
            let status = try await session.refresh()
            #expect(clock.now - started >= .milliseconds(900))
            #expect(status.isSignedIn)
            let stats = server.stats()
            #expect(stats.faults.serverErrors == 1)
            #expect(stats.refreshes == 1)
            #expect(stats.reuseEvents == 0)
        }
    }

    @Test func persistentServerErrorsEndRetryableWithNothingLost() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let cookie = session.cookieJar.value("__Host-session", for: server.url("/"))
            server.setFaults(FaultConfiguration(serverErrors: .init(status: 503, retryAfterSeconds: 0, count: nil)))
            await #expect { try await session.refresh() } throws: { ($0 as? SessionError)?.code == .serverError }
            #expect(server.stats().faults.serverErrors == 3)  // three attempts, bounded
            #expect(session.cookieJar.value("__Host-session", for: server.url("/")) == cookie)
            server.setFaults(.none)
            try await session.refresh()
            #expect(server.stats().refreshes == 1)
            #expect(server.stats().reuseEvents == 0)
        }
    }

    @Test func timeoutEndsAsNetworkErrorAndTheSessionSurvives() async throws {
        try await withServer { server in
            // The limit leaves a loaded machine time for the requests that must succeed (the login,
            // the page's load, the refresh after); the server's silence outlasts it.
            let session = SessionController(configuration: makeConfiguration(server, timeout: .milliseconds(1500)))
            try await session.login(username: "demo", password: "demo")
            let token = try #require(try session.vault.load()).refreshToken
            server.setFaults(FaultConfiguration(stopResponding: .seconds(4)))
            let (page, _) = await makePage(session, server)
            try await page.loadHTMLString("<p>x</p>", baseURL: server.url("/start"))
            let reply = try await page.callAsyncJavaScript(
                """
                try { await sessionBridge.refresh(); return "ok"; } catch (e) { return [e.code, e.retryable]; }
                """)
            #expect(reply == ["network", true])
            #expect(try session.vault.load()?.refreshToken == token)
            #expect(try await session.status().isSignedIn)
            #expect(server.stats().faults.stoppedResponding == 1)  // a timed-out request is never re-sent
            server.setFaults(.none)
            try await session.refresh()
            #expect(server.stats().refreshes == 1)
            #expect(server.stats().reuseEvents == 0)
            await page.close()
        }
    }

    @Test func latencyBeyondTheClientTimeoutIsNotRetried() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server, timeout: .milliseconds(1500)))
            try await session.login(username: "demo", password: "demo")
            server.setFaults(FaultConfiguration(latency: .milliseconds(2500)))
            await #expect { try await session.refresh() } throws: { ($0 as? SessionError)?.code == .network }
            #expect(try await session.status().isSignedIn)
            #expect(server.stats().tokenRequests == 2)  // the login and the one timed-out attempt
            #expect(server.stats().reuseEvents == 0)
        }
    }

    @Test func garbageSetCookieLinesAreRejectedAndTheRestApplied() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            let before = session.cookieJar.value("__Host-session", for: server.url("/"))
            server.setFaults(FaultConfiguration(garbageSetCookie: true))
            try await session.refresh()
            #expect(server.stats().faults.garbageSetCookies == 1)
            for jar in [session.cookieJar, page.cookieJar] {
                let names = Set(jar.cookies(for: server.url("/")).map(\.name))
                #expect(names.isSuperset(of: ["__Host-session", "session_expires", "csrf_token"]))
                #expect(
                    jar.cookies(for: server.url("/")).first { $0.name == "control" }.map {
                        !$0.value.unicodeScalars.contains { $0.value == 0x7F }
                    } ?? true, "\(jar.cookies(for: server.url("/")).first { $0.name == "control" }.map { Array($0.value.utf8) } ?? [])")
                #expect(!names.contains("oversized"))
                #expect(
                    !names.contains("bad_attributes")
                        || jar.cookies(for: server.url("/")).first { $0.name == "bad_attributes" }?.expiresAt == nil)
                #expect(jar.value("__Host-session", for: server.url("/")) != before)
            }
            await page.close()
        }
    }

    @Test func malformedJSONIsAServerErrorAndKeepsTheSession() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            server.setFaults(FaultConfiguration(malformedJSON: true))
            await #expect { try await session.refresh() } throws: { ($0 as? SessionError)?.code == .serverError }
            #expect(try await session.status().isSignedIn)
        }
    }
}
