import AsyncHTTPClient
import Foundation
import SessionBridge
import SessionBridgeHeadless
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// A token answer reaches only the native request that asked for it, whatever a page sends.
@Suite(.timeLimit(.minutes(3)), .hangWatchdog) struct TokenIsolationTests {
    @Test func tokenRequestsHaveTheirOwnConnectionPool() {
        let configuration = SessionConfiguration(server: URL(string: "http://127.0.0.1:1/")!)
        #expect(configuration.httpClient !== WebPage.defaultHTTPClient)
        #expect(SessionConfiguration.defaultHTTPClient !== WebPage.defaultHTTPClient)
    }

    /// Pages try every method and header trick that could put a second request on a shared
    /// connection while native code refreshes against a slow token endpoint, round after round:
    /// from the page itself, and from a dedicated worker it starts (its requests go through
    /// the same loader).
    @Test(arguments: ["page", "worker"])
    func pageCannotReadATokenAnswerThroughFetch(from scope: String) async throws {
        let server = try await ReferenceServer.start()
        defer { Task { try? await server.stop() } }
        var configuration = makeConfiguration(server)
        configuration.freshnessWindow = .zero
        let session = SessionController(configuration: configuration)
        try await session.login(username: "demo", password: "demo")
        let (page, _) = await makePage(session, server)
        #expect(try await page.load(server.url("/app")).statusCode == 200)
        server.setFaults(FaultConfiguration(routes: .tokenEndpoint, latency: .milliseconds(300)))

        let rounds = 12
        let attack = """
            const seen = [], base = self.origin;
            const smuggled = "GET /api/me HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\nGET /api/me HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\nGET";
            const methods = [smuggled, "GET\\r\\n", "GET /oauth/token", "GET\\0", "POST\\n\\nGET", "get", "post", "patch", "OPTIONS"];
            const headers = [["X-A", "1\\r\\n\\r\\nGET / HTTP/1.1"], ["X-A\\r\\nX-B", "1"], ["Transfer-Encoding", "chunked"],
                             ["Content-Length", "0"], ["Connection", "keep-alive"], ["X-A", "1"]];
            const read = async (promise) => {
              try { const r = await promise; const text = await r.text(); seen.push(text, ...[...r.headers].flat()); }
              catch (error) { seen.push(String(error)); }
            };
            for (let round = 0; round < \(rounds * 4); round++) {
              const pending = [];
              for (const method of methods) pending.push(read(fetch(base + "/api/me", { method, body: method === "post" ? "x" : undefined })));
              for (const header of headers) pending.push(read(fetch(base + "/", { method: "POST", body: "x", headers: [header] })));
              for (let i = 0; i < 4; i++) pending.push(read(fetch(base + (i % 2 ? "/app" : "/api/me"))));
              await Promise.all(pending);
              await new Promise(r => setTimeout(r, 75));
            }
            """
        let script =
            scope == "page"
            ? attack + "\nreturn seen;"
            : """
            const source = \(String(decoding: try JSONEncoder().encode("(async () => {\n" + attack + "\npostMessage(seen);\n})();"), as: UTF8.self));
            const worker = new Worker(URL.createObjectURL(new Blob([source])));
            return await new Promise(resolve => { worker.onmessage = event => resolve(event.data); });
            """
        async let pageSaw = page.callAsyncJavaScript(script, timeout: .seconds(120))
        var refreshed = 0
        for _ in 0..<rounds {
            _ = try await session.refresh()
            refreshed += 1
        }
        let found = try await pageSaw
        var strings: [String] = []
        found.forEachString { strings.append($0) }

        #expect(refreshed == rounds)
        #expect(server.stats().refreshes >= rounds)
        #expect(strings.count > 1000)
        let tokens = server.issuedRefreshTokens()
        #expect(tokens.count > rounds)
        #expect(tokens.filter { token in strings.contains { $0.contains(token) } }.isEmpty)
        #expect(!strings.contains { $0.contains("refresh_token") || $0.contains("access_token") })
        await page.close()
    }
}
