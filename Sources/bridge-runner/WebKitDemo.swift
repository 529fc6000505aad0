import ArgumentParser
import AsyncHTTPClient
import Foundation
import SessionBridge
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTesting
import SessionBridgeWebKit

/// `demo --engine webkit`: the example flows on a WebKit view, against the embedded reference
/// server over HTTPS (WebKit keeps `Secure` cookies only over HTTPS).
@WebKitActor
struct WebKitDemo {
    let examples: URL
    let json: Bool
    /// `--web-process-memory-limit`, if given.
    var webProcessMemoryLimitMB: Int? = nil

    func run() async throws {
        func example(_ name: String) throws -> String {
            guard let text = try? String(contentsOf: examples.appendingPathComponent(name), encoding: .utf8) else {
                throw RunnerFailure(
                    description: "missing example \(name) in \(examples.path) (pass --examples DIR)", exitCode: .missingInput)
            }
            return "(async () => {\n\(text)\n})().catch(error => console.error('example failed:', error.name, error.message));"
        }
        let transcript = Transcript(json: json)
        let certificate = try LoopbackCertificate.make()
        var configuration = ReferenceServerConfiguration()
        configuration.accessTokenLifetime = .seconds(3)
        configuration.tlsConfiguration = certificate.serverTLS
        let server = try await ReferenceServer.start(configuration)
        let client = WebKitRun.loopbackClient(trusting: certificate)
        var sessionConfiguration = SessionConfiguration(server: server.baseURL)
        sessionConfiguration.httpClient = client.client
        let session = SessionController(configuration: sessionConfiguration)
        let log = MessageLog(capacity: 10_000, redaction: RedactionPolicy(secretPrefixes: ["sbrt_"]))
        // A store as empty as a non-persistent one, whose views report WebKit's own console lines.
        let scratch = try ScratchDirectory.make(prefix: "bridge-runner-webkit")
        defer { scratch.remove() }
        let view = try WebKitRun.makeView(
            session: session, log: log, origins: [SecurityOrigin(url: server.baseURL)!],
            store: try WebKitWebsiteDataStore(directory: scratch.url, webProcessMemoryLimitMB: webProcessMemoryLimitMB),
            certificate: certificate, transcript: transcript)
        await session.attach(view)
        transcript.note("embedded reference server on \(server.baseURL.absoluteString) (HTTPS); a WebKit view; access tokens live 3 s")

        var failures = 0
        func runExample(_ file: String, path: String) async throws {
            server.serve(path: path + ".js", body: try example(file), contentType: "text/javascript")
            server.serve(path: path, body: "<title>\(file)</title><script src=\"\(path).js\"></script>", contentType: "text/html")
            try await view.load(server.url(path))
            if await !WebKitRun.waitUntilQuiet(view, transcript: transcript, timeout: .seconds(15)) {
                transcript.failure("\(file) did not finish in 15 s")
                failures += 1
            }
        }

        transcript.section("1. native login")
        try await session.login(username: configuration.username, password: configuration.password)
        transcript.note("native code signed in with the password grant; the refresh token went to the vault, the cookies to both stores")
        try await runExample("01-session-status.js", path: "/demo/status")

        transcript.section("2. the page asks native code to refresh")
        try await runExample("02-page-refresh.js", path: "/demo/refresh")

        transcript.section("3. navigation with an expired access token, held until native code refreshed")
        try await Task.sleep(for: .milliseconds(3500))
        let refreshesBefore = server.stats().refreshes
        try await runExample("03-expired-navigation.js", path: "/demo/expired")
        let landed = view.url?.path ?? "?"
        transcript.note("the page landed on \(landed) (not /login) after \(server.stats().refreshes - refreshesBefore) native refresh")
        if landed != "/app" { failures += 1 }

        transcript.section("4. a race: page and native refreshes at once")
        try await Task.sleep(for: .milliseconds(2500))
        let raceBefore = server.stats().refreshes
        async let native: Void = {
            for _ in 0..<5 { _ = try? await session.refresh() }
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
        var seen = transcript.counts.tail
        for entry in log.entries { seen.append(String(describing: entry)) }
        if let cookie = try? await view.evaluateJavaScript("document.cookie").stringValue { seen.append(cookie) }
        let leaks = server.issuedRefreshTokens().filter { token in seen.contains { $0.contains(token) } }
        transcript.note(
            "searched every string the page showed for the \(server.issuedRefreshTokens().count) refresh tokens ever issued: \(leaks.count) found"
        )
        if !leaks.isEmpty { failures += 1 }

        transcript.section("6. logout with cookie deletions")
        try await runExample("04-logout.js", path: "/demo/logout")
        transcript.printWaitingWebKitLines()
        transcript.stores(page: await view.httpCookieStore.allCookies(), native: session.cookieJar.allCookies)
        let stats = server.stats()
        transcript.note(
            "server: \(stats.logins) login, \(stats.refreshes) refreshes, \(stats.reuseEvents) reuse events, \(stats.activeSessions) active sessions"
        )
        failures += transcript.counts.scriptErrors + transcript.counts.unhandledRejections
        await view.close()
        try? await server.stop()
        try? await client.shutdown()
        if failures > 0 {
            transcript.failure("the demo saw \(failures) problem(s)")
            throw ExitCode.failure
        }
        transcript.note("demo complete")
    }
}
