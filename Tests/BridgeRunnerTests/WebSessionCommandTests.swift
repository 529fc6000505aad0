import Foundation
import SessionBridgeTestSupport
import Testing

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct WebSessionCommandTests {
    func runRunner(_ arguments: [String]) async throws -> RunnerProcess {
        try await RunnerProcess.run(arguments)
    }

    @Test func sessionExchangeSignsThePageInAgainstATokenEndpointWithoutCookies() async throws {
        let script = try RunnerProcess.temporaryFile(
            "exchange.js",
            """
            const me = await fetch("/api/me");
            console.log("me before refresh", me.status);
            await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
            console.log("me after refresh", (await fetch("/api/me")).status);
            """)
        let result = try await runRunner(["run", script.path, "--session-exchange", "/session/exchange"])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("me before refresh 200"))
        #expect(result.stdout.contains("me after refresh 200"))
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.contains { $0.contains("/api/me → 200") && $0.contains("sent ") && $0.contains("web_session") })
        #expect(result.stdout.contains("2 session exchanges"))
        #expect(!result.stdout.contains("sbrt_"), "a refresh token reached the transcript")
    }

    @Test func refreshCookieStaysNative() async throws {
        let script = try RunnerProcess.temporaryFile(
            "cookie-refresh.js",
            """
            await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
            console.log("me", (await fetch("/api/me")).status, document.cookie.includes("web_refresh"));
            """)
        let result = try await runRunner([
            "run", script.path, "--refresh-cookie", "__Host-web_refresh", "--refresh-url", "/session/refresh",
        ])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("console.log me 200 false"))
        #expect(result.stdout.contains("1 cookie refreshes"))
        // In the stores table the page column is empty for the refresh cookie.
        let row = try #require(result.stdout.split(separator: "\n").first { $0.contains("__Host-web_refresh") })
        #expect(row.contains("—"))
        #expect(!result.stdout.contains("sbrt_"), "a refresh token reached the transcript")
    }

    @Test func fetchShowsTheCookiesSentAndSet() async throws {
        let result = try await runRunner(["fetch", "/session/logout", "--method", "POST"])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("fetch POST http://127.0.0.1:"))
        #expect(result.stdout.contains("→ 200"))
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("fetch POST") })
        #expect(line.contains("sent ") && line.contains("__Host-session"))
        #expect(line.contains("deleted ") && line.contains("csrf_token"))
        let me = try await runRunner(["fetch", "/api/me", "--bearer", "--ephemeral"])
        #expect(me.exitCode == 0, "\(me.stdout)\(me.stderr)")
        #expect(me.stdout.contains("→ 200"))
        #expect(me.stdout.contains("sent —"))
        let bad = try await runRunner(["fetch", "/api/me", "--refresh-cookie", "x"])
        #expect(bad.exitCode == 64)
    }

    @Test func dpopAndAnIsolatedSessionSignThePageInWithASessionOfItsOwn() async throws {
        let script = try RunnerProcess.temporaryFile(
            "isolated.js",
            """
            console.log("me before refresh", (await fetch("/api/me")).status);
            const reply = await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
            console.log("refreshed", reply.ok, "me after refresh", (await fetch("/api/me")).status);
            """)
        let result = try await runRunner(["run", script.path, "--dpop", "--isolated-session"])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("me before refresh 200"))
        #expect(result.stdout.contains("refreshed true me after refresh 200"))
        #expect(result.stdout.contains("1 token exchanges"))
        #expect(result.stdout.contains("1 nonce challenges"))
        #expect(!result.stdout.contains("sbrt_"), "a refresh token reached the transcript")
        let native = try await runRunner(["fetch", "/api/me", "--bearer", "--dpop"])
        #expect(native.exitCode == 0, "\(native.stdout)\(native.stderr)")
        #expect(native.stdout.contains("→ 200"))
        let bad = try await runRunner(["run", script.path, "--dpop", "--refresh-cookie", "x", "--refresh-url", "/session/refresh"])
        #expect(bad.exitCode == 64)
    }
}
