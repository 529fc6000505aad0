import ArgumentParser
import Foundation
import SessionBridge
import SessionBridgeHeadless
import SessionBridgeTesting

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Walk the example flows in Examples/ against the embedded reference server.")

    @Option(help: "The folder of example scripts.")
    var examples: String?

    @Flag(help: "One JSON object per event.")
    var json = false

    @OptionGroup var engineOption: EngineOption

    /// `Examples/` of the package this executable was built from.
    static var defaultExamples: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Examples").standardizedFileURL
    }

    func run() async throws {
        let folder = examples.map { URL(fileURLWithPath: $0) } ?? Self.defaultExamples
        if engineOption.engine == .webkit {
            return try await WebKitDemo(examples: folder, json: json, webProcessMemoryLimitMB: engineOption.webProcessMemoryLimitMB).run()
        }
        func example(_ name: String) throws -> String {
            guard let text = try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8) else {
                throw RunnerFailure(description: "missing example \(name) in \(folder.path) (pass --examples DIR)", exitCode: .missingInput)
            }
            return "(async () => {\n\(text)\n})().catch(error => console.error('example failed:', error.name, error.message));"
        }
        let transcript = Transcript(json: json)
        var configuration = ReferenceServerConfiguration()
        configuration.accessTokenLifetime = .seconds(3)
        let fixture = try await AppWiring.embedded(
            server: configuration, vault: InMemoryTokenVault(), nativeCookieStore: nil,
            allowedOrigins: [], configure: { [memoryLimit = engineOption.headlessMemoryLimitMB] in $0.memoryLimitMB = memoryLimit })
        fixture.observe { transcript.page($0) }
        fixture.messageLog.observe { transcript.bridge($0) }
        guard let server = fixture.server else { return }
        transcript.note(
            "embedded reference server on \(fixture.baseURL.absoluteString); access tokens live 3 s so that expiry happens during the demo")

        var failures = 0
        func runExample(_ file: String, path: String) async throws {
            server.serve(path: path + ".js", body: try example(file), contentType: "text/javascript")
            server.serve(path: path, body: "<title>\(file)</title><script src=\"\(path).js\"></script>", contentType: "text/html")
            try await fixture.page.load(fixture.url(path))
            if await !fixture.page.runUntilQuiescent(timeout: .seconds(15)) {
                transcript.failure("\(file) did not finish in 15 s")
                failures += 1
            }
        }

        transcript.section("1. native login")
        let status = try await fixture.session.login(username: configuration.username, password: configuration.password)
        transcript.note("native code signed in with the password grant; the refresh token went to the vault, the cookies to both stores")
        transcript.note("access token expires at \(status.accessTokenExpiresAt.map { "\($0)" } ?? "?")")
        try await runExample("01-session-status.js", path: "/demo/status")

        transcript.section("2. the page asks native code to refresh")
        try await runExample("02-page-refresh.js", path: "/demo/refresh")

        transcript.section("3. navigation with an expired access token, held until native code refreshed")
        try await Task.sleep(for: .milliseconds(3500))
        let refreshesBefore = server.stats().refreshes
        try await runExample("03-expired-navigation.js", path: "/demo/expired")
        let landed = await fixture.page.url?.path ?? "?"
        transcript.note("the page landed on \(landed) (not /login) after \(server.stats().refreshes - refreshesBefore) native refresh")
        if landed != "/app" { failures += 1 }

        transcript.section("4. a race: page and native refreshes at once")
        try await Task.sleep(for: .milliseconds(2500))
        let raceBefore = server.stats().refreshes
        async let native: Void = {
            for _ in 0..<5 { _ = try? await fixture.session.refresh() }
        }()
        try await runExample("05-refresh-race.js", path: "/demo/race")
        await native
        let raceStats = server.stats()
        transcript.note(
            "page and native refreshes together cost \(raceStats.refreshes - raceBefore) token-endpoint refresh(es); reuse events: \(raceStats.reuseEvents)"
        )
        if raceStats.reuseEvents != 0 { failures += 1 }

        transcript.section("5. a page trying to read the refresh token")
        try await runExample("06-steal-token.js", path: "/demo/steal")
        let leaks = await fixture.leakedRefreshTokens()
        transcript.note(
            "searched every string the page saw for the \(server.issuedRefreshTokens().count) refresh tokens ever issued: \(leaks.count) found"
        )
        if !leaks.isEmpty { failures += 1 }

        transcript.section("6. logout with cookie deletions")
        try await runExample("04-logout.js", path: "/demo/logout")
        transcript.stores(page: fixture.pageCookies(), native: fixture.nativeCookies())
        let stats = server.stats()
        transcript.note(
            "server: \(stats.logins) login, \(stats.refreshes) refreshes, \(stats.reuseEvents) reuse events, \(stats.activeSessions) active sessions"
        )
        failures += transcript.counts.scriptErrors + transcript.counts.unhandledRejections
        await fixture.stop()
        if failures > 0 {
            transcript.failure("the demo saw \(failures) problem(s)")
            throw ExitCode.failure
        }
        transcript.note("demo complete")
    }
}
