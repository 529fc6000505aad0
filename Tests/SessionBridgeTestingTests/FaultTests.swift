import AsyncHTTPClient
import Foundation
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

extension ReferenceServerTests {
    @Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct Faults {
        @Test func latency() async throws {
            try await withServer(.init(faults: .init(latency: .milliseconds(300)))) { server, client async throws in
                let start = ContinuousClock.now
                #expect(try await client.login().status == 200)
                #expect(ContinuousClock.now - start >= .milliseconds(300))
                #expect(server.stats().faults.latency == 1)
                // Other routes are not delayed.
                _ = try await client.get("/api/me")
                #expect(server.stats().faults.latency == 1)
            }
        }

        @Test func serverErrorsForTheNextRequests() async throws {
            try await withServer { server, client async throws in
                server.setFaults(.init(serverErrors: .init(status: 503, retryAfterSeconds: 2, count: 2)))
                for _ in 0..<2 {
                    let answer = try await client.login()
                    #expect(answer.status == 503)
                    #expect(answer.header("Retry-After") == "2")
                }
                #expect(try await client.login().status == 200)
                let stats = server.stats()
                #expect(stats.faults.serverErrors == 2)
                #expect(stats.tokenRequests == 3)
                #expect(stats.logins == 1)
            }
        }

        @Test func serverErrorsAlways() async throws {
            try await withServer(.init(faults: .init(serverErrors: .init(status: 500, retryAfterSeconds: nil)))) {
                server, client async throws in
                for _ in 0..<3 {
                    let answer = try await client.login()
                    #expect(answer.status == 500)
                    #expect(answer.header("Retry-After") == nil)
                }
                #expect(server.stats().faults.serverErrors == 3)
                server.setFaults(.none)
                #expect(try await client.login().status == 200)
            }
        }

        @Test func closedConnection() async throws {
            try await withServer(.init(faults: .init(closeConnection: true))) { server, client async throws in
                await #expect(throws: (any Error).self) { try await client.login() }
                #expect(server.stats().faults.closedConnections == 1)
                // The request was not processed.
                #expect(server.stats().logins == 0)
            }
        }

        @Test func closedMidBody() async throws {
            try await withServer(.init(faults: .init(closeMidBody: true))) { server, client async throws in
                await #expect(throws: (any Error).self) { try await client.login() }
                #expect(server.stats().faults.closedMidBody == 1)
                // The request was processed: the answer, with its tokens, was lost.
                #expect(server.stats().logins == 1)
                #expect(server.issuedRefreshTokens().count == 1)
            }
        }

        @Test func malformedJSON() async throws {
            try await withServer(.init(faults: .init(malformedJSON: true))) { server, client async throws in
                let answer = try await client.login()
                #expect(answer.status == 200)
                #expect(throws: (any Error).self) { try answer.json() }
                #expect(server.stats().faults.malformedJSON == 1)
                #expect(server.stats().logins == 1)
            }
        }

        @Test func garbageSetCookie() async throws {
            try await withServer(.init(faults: .init(garbageSetCookie: true))) { server, client async throws in
                let answer = try await client.login()
                #expect(answer.status == 200)
                let lines = answer.setCookies
                #expect(lines.count == 4 + 5)
                #expect(lines.contains("this-is-not-a-cookie"))
                #expect(lines.contains { $0.hasPrefix("=") })
                #expect(lines.contains { $0.count > 8000 })
                // The real cookies are still there and the body is intact.
                #expect(answer.setCookie(named: "__Host-session") != nil)
                #expect(try answer.json()["access_token"] is String)
                #expect(server.stats().faults.garbageSetCookies == 1)
            }
        }

        @Test func slowBody() async throws {
            try await withServer(.init(faults: .init(routes: .pages, slowBody: .milliseconds(100)))) { server, client async throws in
                server.serve(path: "/tiny", body: "12345", contentType: "text/plain")
                let tinyStart = ContinuousClock.now
                #expect(try await client.get("/tiny").body == "12345")
                #expect(ContinuousClock.now - tinyStart >= .milliseconds(500))
                #expect(server.stats().faults.slowBodies == 1)
            }
        }

        @Test func stopRespondingIsBoundedAndEndsAtShutdown() async throws {
            let server = try await ReferenceServer.start(.init(faults: .init(stopResponding: .seconds(60))))
            let http = makeHTTPClient()
            do {
                let client = TestClient(http: http, baseURL: server.baseURL.absoluteString)
                // The client gives up first.
                await #expect(throws: (any Error).self) {
                    try await client.request("POST", "/oauth/token", body: "", timeout: 1)
                }
                #expect(server.stats().faults.stoppedResponding == 1)
                // A held request does not keep the server from stopping.
                let pending = Task { try? await client.request("POST", "/oauth/token", body: "", timeout: 30) }
                try await Task.sleep(for: .milliseconds(200))
                let start = ContinuousClock.now
                try await server.stop()
                #expect(ContinuousClock.now - start < .seconds(5))
                _ = await pending.value
                try await http.shutdown()
            } catch {
                // A client left running would stop the whole run (AsyncHTTPClient's debug check).
                try? await http.shutdown()
                try? await server.stop()
                throw error
            }

            // A short bound closes the connection without an answer.
            try await withServer(.init(faults: .init(stopResponding: .milliseconds(300)))) { server, client async throws in
                await #expect(throws: (any Error).self) { try await client.login() }
                #expect(server.stats().faults.stoppedResponding == 1)
            }
        }

        @Test func faultsApplyOnlyToTheirRoutes() async throws {
            try await withServer(.init(faults: .init(serverErrors: .init()))) { server, client async throws in
                #expect(try await client.login().status == 503)
                #expect(try await client.get("/app").status == 302)
                #expect(try await client.get("/api/me").status == 401)
                #expect(try await client.get("/debug/stats").status == 200)
                server.setFaults(.init(routes: .all, serverErrors: .init()))
                #expect(try await client.get("/app").status == 503)
                #expect(try await client.get("/api/me").status == 503)
                #expect(try await client.request("POST", "/session/refresh").status == 503)
                // The stats stay reachable for tests.
                #expect(try await client.get("/debug/stats").status == 200)
                server.setFaults(.init(routes: .api, serverErrors: .init()))
                #expect(try await client.get("/app").status == 302)
                #expect(server.faults.routes == .api)
            }
        }
    }
}
