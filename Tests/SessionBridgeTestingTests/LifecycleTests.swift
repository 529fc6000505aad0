import AsyncHTTPClient
import Foundation
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// Entries of `/proc/self/fd`.
func openFileDescriptorCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

extension ReferenceServerTests {
    @Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct Lifecycle {
        /// Counts the whole process's file descriptors, so it runs in a process of its own, where
        /// no test running beside it opens or closes any.
        @Test func startsAndStopsCleanlyManyTimes() async throws {
            let child = try await ChildProcess.run(
                URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
                ["--testing-library", "swift-testing", "--filter", "startStopChild"],
                environment: ["SESSIONBRIDGE_LIFECYCLE_CHILD": "1"], timeout: .seconds(240))
            #expect(child.stdout.contains("reference server start/stop x25: open file descriptors before"), "\(child.output.suffix(3000))")
            #expect(child.succeeded, "\(child.output.suffix(3000))")
        }

        /// The measurement; it does nothing unless started by the test above.
        @Test func startStopChild() async throws {
            guard ProcessInfo.processInfo.environment["SESSIONBRIDGE_LIFECYCLE_CHILD"] != nil else { return }
            // Warm up the shared event loop threads and the client before counting.
            let http = makeHTTPClient()
            let warm = try await ReferenceServer.start()
            _ = try await TestClient(http: http, baseURL: warm.baseURL.absoluteString).get("/debug/stats")
            try await warm.stop()
            try await Task.sleep(for: .milliseconds(200))
            let before = openFileDescriptorCount()

            var ports = Set<Int>()
            for _ in 0..<25 {
                let server = try await ReferenceServer.start()
                #expect(server.port > 0)
                #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
                ports.insert(server.port)
                let client = TestClient(http: http, baseURL: server.baseURL.absoluteString)
                #expect(try await client.login().status == 200)
                #expect(try await client.get("/api/me").status == 401)
                try await server.stop()
                try await server.stop()  // a second stop does nothing
                // No socket on the server's port remains, on either side, once the client has
                // seen the server close its pooled connection.
                var sockets = socketsOnPort(server.port)
                let deadline = ContinuousClock.now + .seconds(10)
                while sockets > 0, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                    sockets = socketsOnPort(server.port)
                }
                #expect(sockets == 0)
            }
            #expect(ports.count > 1)

            // The client closes its pooled connections when it sees the server's close;
            // give it a moment to do so.
            var after = openFileDescriptorCount()
            let deadline = ContinuousClock.now + .seconds(10)
            while after > before, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                after = openFileDescriptorCount()
            }
            print("reference server start/stop x25: open file descriptors before \(before), after \(after)")
            #expect(after <= before, "file descriptors before: \(before), after: \(after)")
            try await http.shutdown()
        }

        @Test func bindingATakenPortFails() async throws {
            let server = try await ReferenceServer.start()
            await #expect(throws: (any Error).self) {
                let second = try await ReferenceServer.start(.init(port: server.port))
                try await second.stop()
            }
            try await server.stop()
        }

        @Test func tokensNeverAppearInLogs() async throws {
            // Debug-level logs of a full flow hold no token values.
            let recorder = LogRecorder()
            var configuration = ReferenceServerConfiguration()
            configuration.logger = recorder.logger()
            try await withServer(configuration) { server, client async throws in
                let json = try await client.login().json()
                let refresh = try #require(json["refresh_token"] as? String)
                _ = try await client.refresh(refresh)
                _ = try await client.refresh(refresh)
                let tokens = server.issuedRefreshTokens() + [json["access_token"] as! String]
                let logged = recorder.text()
                #expect(!logged.isEmpty)
                for token in tokens { #expect(!logged.contains(token)) }
            }
        }
    }
}
