import Foundation
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridge

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct SessionHTTPClientTests {
    @Test func unauthorizedNativeRequestJoinsOneRefreshWithThePages() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            // The app page's own start-up (its fetch) ends before the tokens expire: after it, its
            // 401 would start a refresh of the page's own.
            #expect(await page.runUntilQuiescent(timeout: .seconds(20)))
            let client = SessionHTTPClient(session: session, configuration: .init(sendsAccessToken: true))
            server.expireAccessTokens()
            let refreshesBefore = server.stats().refreshes

            // The token endpoint answers slowly, so the pages ask while the native refresh is in flight.
            server.setFaults(FaultConfiguration(latency: .milliseconds(400)))
            let tokenRequests = server.stats().tokenRequests
            let native = Task { try await client.send(SessionHTTPRequest(url: server.url("/api/me"))) }
            let deadline = ContinuousClock.now + .seconds(10)
            while server.stats().tokenRequests == tokenRequests, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(server.stats().tokenRequests == tokenRequests + 1)
            let pages = try await page.callAsyncJavaScript(
                """
                const replies = await Promise.all([1, 2, 3].map(() =>
                    window.webkit.messageHandlers.session.postMessage({action: "refresh"})));
                return replies.every(r => r.ok);
                """)
            let answer = try await native.value
            #expect(pages == true)
            #expect(answer.status == 200)
            #expect(answer.retriedAfterRefresh)
            let me = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
            #expect(me?["sub"] as? String == "demo")
            #expect(server.stats().refreshes - refreshesBefore == 1)
            #expect(server.stats().reuseEvents == 0)
            try await client.shutdown()
            await page.close()
        }
    }

    @Test func cookiesComeFromTheNativeStoreAndSetCookieGoesBack() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            let client = SessionHTTPClient(session: session)

            let me = try await client.send(SessionHTTPRequest(url: server.url("/api/me")))
            #expect(me.status == 200)
            #expect(me.cookiesSent.contains("__Host-session"))
            #expect(!me.retriedAfterRefresh)

            // The web product's logout deletes the session cookies: natively and in the page.
            let logout = try await client.send(SessionHTTPRequest(url: server.url("/session/logout"), method: "POST"))
            #expect(logout.status == 200)
            #expect(logout.cookiesDeleted.contains("__Host-session"))
            #expect(session.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            #expect(page.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            try await client.shutdown()
            await page.close()
        }
    }

    /// A native request's `Set-Cookie` reaches the native store before `send` returns, and its
    /// persistent profile behind the request: `send` does not wait for the disk.
    @Test func aNativeRequestDoesNotWaitForTheProfilesWrite() async throws {
        try await withServer { server in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let (session, _, profile) = try await signedInSession(server, keepingFilesIn: directory)
            let attachment = try #require(await session.attachment)
            await attachment.flush()
            #expect(try profile.load().cookies.contains { $0.name == "__Host-session" })
            let gate = DispatchSemaphore(value: 0)
            attachment.setHeldSavesGate { gate.wait() }
            let client = SessionHTTPClient(session: session)
            let logout = try await client.send(SessionHTTPRequest(url: server.url("/session/logout"), method: "POST"))
            #expect(logout.cookiesDeleted.contains("__Host-session"))
            #expect(session.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            #expect(try profile.load().cookies.contains { $0.name == "__Host-session" })
            gate.signal()
            await attachment.flush()
            #expect(try !profile.load().cookies.contains { $0.name == "__Host-session" })
            try await client.shutdown()
        }
    }

    /// A request to a port no TCP connection can have is an `invalid_request`, not a stopped
    /// process (the HTTP client traps on one at an IP address); the client goes on.
    @Test func aRequestToAPortOutOfRangeIsRefused() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            let client = SessionHTTPClient(session: session)
            do {
                _ = try await client.send(SessionHTTPRequest(url: URL(string: "http://127.0.0.1:70000/api/me")!))
                Issue.record("a request to port 70000 was sent")
            } catch {
                #expect((error as? SessionError)?.code == .invalidRequest)
            }
            let after = try? await client.send(SessionHTTPRequest(url: server.url("/login")))
            #expect(after?.status == 200)
            try await client.shutdown()
        }
    }

    /// A kept-alive connection the server closed as the next request arrived is not its answer:
    /// an idempotent request is sent once more, a `POST` is not (the server may have acted on
    /// it) and fails as a network error.
    @Test func anIdempotentRequestWhoseConnectionClosedUnansweredIsSentOnceMore() async throws {
        let listener = try RawHTTPListener { path, count in
            path != "/first" && count == 1 ? nil : RawHTTPListener.ok  // the first ask after `/first` goes unanswered
        }
        defer { listener.stop() }
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            let client = SessionHTTPClient(session: session)
            for (path, method) in [("/first", "GET"), ("/again", "GET"), ("/delete", "DELETE")] {
                let response = try await client.send(SessionHTTPRequest(url: listener.url.appending(path: path), method: method))
                #expect(response.status == 200 && response.body == Data("ok".utf8), "\(path)")
            }
            do {
                _ = try await client.send(
                    SessionHTTPRequest(url: listener.url.appending(path: "post"), method: "POST", body: Data("x".utf8)))
                Issue.record("a POST whose connection closed unanswered succeeded")
            } catch {
                #expect((error as? SessionError)?.code == .network)
            }
            try await client.shutdown()
        }
        let lines = listener.requestLines
        #expect(lines.filter { $0 == "GET /again HTTP/1.1" }.count == 2, "\(lines)")
        #expect(lines.filter { $0 == "DELETE /delete HTTP/1.1" }.count == 2, "\(lines)")
        #expect(lines.filter { $0 == "POST /post HTTP/1.1" }.count == 1, "\(lines)")
    }

    /// An answer with a status code below 100 fails the request as a network error; it does
    /// not end the process (AsyncHTTPClient stopped it on the body of such an answer).
    @Test func aStatusCodeBelow100FailsTheRequestNotTheProcess() async throws {
        let listener = try RawHTTPListener { line in
            line.contains("/000") ? "HTTP/1.1 000 X\r\nContent-Length: 2\r\n\r\nhi" : RawHTTPListener.ok
        }
        defer { listener.stop() }
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            let client = SessionHTTPClient(session: session)
            do {
                _ = try await client.send(SessionHTTPRequest(url: listener.url.appending(path: "000")))
                Issue.record("an answer of status 000 was read")
            } catch {
                #expect((error as? SessionError)?.code == .network)
            }
            #expect(try await client.send(SessionHTTPRequest(url: listener.url.appending(path: "after"))).status == 200)
            try await client.shutdown()
        }
    }

    /// The timeout bounds the answer's body too (one that trickles in, or never ends, was read
    /// for as long as the server sent it), and a failure names its cause.
    @Test func aBodyThatNeverEndsEndsAtTheTimeoutAndTheErrorSaysWhy() async throws {
        let listener = try RawHTTPListener { line in
            line.contains("/endless")
                ? "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\nthe start of a body that never ends"
                : "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nlonger than it said"
        }
        defer { listener.stop() }
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            let client = SessionHTTPClient(session: session, configuration: .init(timeout: .seconds(2)))
            let started = ContinuousClock.now
            do {
                _ = try await client.send(SessionHTTPRequest(url: listener.url.appending(path: "endless")))
                Issue.record("an endless body was read to its end")
            } catch {
                #expect((error as? SessionError)?.message.contains("did not arrive within 2.0 seconds") == true, "\(error)")
            }
            #expect(ContinuousClock.now - started < .seconds(8))
            do {
                _ = try await client.send(
                    SessionHTTPRequest(url: listener.url.appending(path: "too-small"), method: "POST", body: Data("x".utf8)))
            } catch {
                #expect((error as? SessionError)?.message.contains("failed: ") == true, "\(error)")
            }
            try await client.shutdown()
        }
    }

    /// A client dropped without `shutdown()`, as when an error is thrown before the call, closes
    /// its connections as it goes, and the process goes on: AsyncHTTPClient stops a debug build
    /// whose client was never shut down.
    @Test func aClientDroppedWithoutShutdownClosesItsConnections() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            let listening = socketsOnPort(server.port)
            weak var dropped: SessionHTTPClient?
            do {
                let client = SessionHTTPClient(session: session)
                dropped = client
                #expect(try await client.send(SessionHTTPRequest(url: server.url("/login"))).status == 200)
            }
            #expect(dropped == nil)
            let deadline = ContinuousClock.now + .seconds(10)
            while socketsOnPort(server.port) > listening, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(socketsOnPort(server.port) == listening)
        }
    }

    @Test func ephemeralClientKeepsItsCookiesToItself() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let native = session.cookieJar.allCookies.count
            let client = SessionHTTPClient(session: session, configuration: .ephemeral)
            let answer = try await client.send(SessionHTTPRequest(url: server.url("/redirect-chain/3")))
            #expect(answer.cookiesSet == ["hop3"])
            #expect(client.cookieJar.value("hop3", for: server.url("/")) == "3")
            #expect(session.cookieJar.value("hop3", for: server.url("/")) == nil)
            #expect(session.cookieJar.allCookies.count == native)
            #expect(answer.cookiesSent.isEmpty)
            try await client.shutdown()
        }
    }
}
