import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// Hostile pages: every script of `Attacks/` runs as a real page against the reference server
/// with a signed-in session, and tries one avenue to learn or misuse the refresh token. Nothing
/// any script saw may contain a refresh token the server ever issued.
@Suite(.serialized, .timeLimit(.minutes(20)), .hangWatchdog) struct AttackTests {
    /// One attack script and what it declares in its `// @` header lines.
    struct Attack: CustomStringConvertible {
        enum Document: String { case served, foreign, app }
        let name: String
        let source: String
        var document = Document.served
        var expectsNoRefresh = false
        var endsSession = false
        var description: String { name }

        init(url: URL) throws {
            name = url.lastPathComponent
            source = try String(contentsOf: url, encoding: .utf8)
            for line in source.split(separator: "\n") where line.hasPrefix("// @") {
                let words = line.dropFirst(4).split(separator: " ").map(String.init)
                switch (words.first, words.dropFirst().first) {
                case ("document", let value?): document = Document(rawValue: value) ?? .served
                case ("expect", "no-refresh"): expectsNoRefresh = true
                case ("ends-session", _): endsSession = true
                default: break
                }
            }
        }
    }

    static func loadAttacks() throws -> [Attack] {
        let directory = try #require(Bundle.module.url(forResource: "Attacks", withExtension: nil))
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "js" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        return try files.map(Attack.init(url:))
    }

    /// Runs the attack body as an async function with a few helpers (captured before the
    /// attack can tamper with the built-ins), and reports what it collected with `console.log`
    /// and in `window.__report`.
    static func pageScript(for attack: Attack) -> String {
        #"""
        (function () {
          "use strict";
          const __stringify = JSON.stringify, __log = console.log.bind(console), __String = String, __setTimeout = setTimeout, __clearTimeout = clearTimeout;
          const __Promise = Promise, __ownKeys = Reflect.ownKeys, __gopd = Reflect.getOwnPropertyDescriptor, __getProto = Reflect.getPrototypeOf;
          const seen = [];
          const limit = 200000;
          function safe(f) { try { return f(); } catch (e) { return "threw: " + __String(e); } }
          function note(...xs) {
            for (const x of xs) {
              if (seen.length >= limit) return;
              try { seen[seen.length] = typeof x === "string" ? x : __stringify(x); }
              catch (e) { try { seen[seen.length] = __String(x); } catch (e2) { seen[seen.length] = "unprintable"; } }
            }
          }
          function walk(root, maxDepth) {
            const visited = new Set();
            (function visit(v, depth) {
              if (seen.length >= limit) return;
              if (v === null || (typeof v !== "object" && typeof v !== "function")) { note(safe(() => __String(v))); return; }
              if (visited.has(v) || depth > maxDepth) return;
              visited.add(v);
              if (typeof v === "function") note(safe(() => Function.prototype.toString.call(v)).slice(0, 2000));
              for (const k of safe(() => __ownKeys(v)) || []) {
                note(safe(() => __String(k)));
                const d = safe(() => __gopd(v, k));
                if (!d || typeof d !== "object") continue;
                if ("value" in d) visit(d.value, depth + 1);
                if (d.get) visit(safe(() => d.get.call(v)), depth + 1);
              }
              visit(safe(() => __getProto(v)), depth + 1);
            })(root, 0);
          }
          const sleep = ms => new __Promise(resolve => __setTimeout(resolve, ms));
          function withTimeout(promise, ms) {
            let timer;
            const timeout = new __Promise(resolve => { timer = __setTimeout(() => resolve("timed out"), ms); });
            return __Promise.race([promise, timeout]).finally(() => __clearTimeout(timer));
          }
          async function post(body) {
            try { const reply = await withTimeout(window.webkit.messageHandlers.session.postMessage(body), 15000); note(reply); return reply; }
            catch (e) { note(safe(() => __String(e)), e && e.code, e && e.message, e && e.stack); return {error: e && e.code}; }
          }
          async function fetchText(path) {
            try { const r = await fetch(path, {credentials: "include"}); return r.status + " " + (await r.text()); }
            catch (e) { return "failed " + e; }
          }
          window.__attack = (async () => {
        """# + "\n" + attack.source + "\n" + #"""
              })().then(r => { if (r !== undefined) note(r); }, e => note("attack threw", safe(() => __String(e)), e && e.stack))
                .then(() => { const s = __stringify(seen); window.__report = s; __log("REPORT " + s); });
            })();
            """#
    }

    struct Figures {
        var scripts = 0
        var strings = 0
        var characters = 0
        var hits: [String: [String]] = [:]
    }

    /// Runs the corpus in batches, each in a process of its own (this test binary, re-run with
    /// `RELIABILITY_ATTACK` naming the batch), so that what one batch's hostile pages leave
    /// behind cannot slow the next; every batch must pass, and their figures are added up.
    @Test func hostileScriptsNeverSeeARefreshToken() async throws {
        let attacks = try Self.loadAttacks()
        #expect(attacks.count >= 40)
        if let only = ProcessInfo.processInfo.environment["RELIABILITY_ATTACK"] {
            let prefixes = only.split(separator: ",").map(String.init)
            try await run(attacks.filter { attack in prefixes.contains { attack.name.hasPrefix($0) } })
            return
        }
        var totals = [0, 0, 0, 0]  // scripts, strings, tokens, hits
        for start in stride(from: 0, to: attacks.count, by: 8) {
            let batch = attacks[start..<min(start + 8, attacks.count)].map(\.name)
            let child = try await ChildProcess.run(
                URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
                ["--testing-library", "swift-testing", "--filter", "hostileScriptsNeverSeeARefreshToken"],
                environment: ["RELIABILITY_ATTACK": batch.joined(separator: ",")], timeout: .seconds(240))
            let text = child.stdout
            #expect(
                child.succeeded,
                "attack batch \(batch.first ?? "")…\(batch.last ?? "") failed:\n\(text.split(separator: "\n").filter { $0.contains("✘") }.prefix(20).joined(separator: "\n"))"
            )
            if let line = text.split(separator: "\n").first(where: { $0.contains("[attacks] scripts run:") }) {
                let numbers = Self.figures(in: String(line))
                for index in 0..<min(4, numbers.count) { totals[index] += numbers[index] }
            }
        }
        #expect(totals[0] == attacks.count, "only \(totals[0]) of \(attacks.count) attack scripts reported")
        #expect(totals[3] == 0)
        print(
            "[attacks] total: scripts run: \(totals[0]); strings searched: \(totals[1]); refresh tokens searched for: \(totals[2]); hits: \(totals[3])"
        )
    }

    /// scripts, strings, tokens and hits from a batch's figures line.
    static func figures(in line: String) -> [Int] {
        func number(after label: String) -> Int {
            guard let range = line.range(of: label) else { return 0 }
            return Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0
        }
        return [
            number(after: "scripts run: "), number(after: "strings searched: "),
            number(after: "refresh tokens searched for: "), number(after: "hits: "),
        ]
    }

    private func run(_ attacks: [Attack]) async throws {
        let marker = "app-world-only-\(UUID().uuidString)"
        var figures = Figures()
        let clock = ContinuousClock()
        let started = clock.now
        try await withReferenceServer { server in
            let foreignBase = try #require(URL(string: "http://localhost:\(server.port)/evil/"))
            var configuration = SessionConfiguration(server: server.baseURL)
            configuration.freshnessWindow = .milliseconds(50)
            configuration.requestTimeout = .seconds(5)
            configuration.retry = RetryPolicy(baseDelay: .milliseconds(20))
            for attack in attacks {
                let fixture = try await SessionFixture.connect(to: server.baseURL, sessionConfiguration: configuration)
                try await fixture.session.login(username: "demo", password: "demo")
                // The app's own isolated world: a global and a handler page scripts must never see.
                fixture.contentController.addUserScript(
                    UserScript(
                        source: "globalThis.appWorldMarker = \"\(marker)\";", injectionTime: .atDocumentStart, in: .world(name: "app")))
                fixture.contentController.addScriptMessageHandler(
                    ClosureMessageHandler { _ in ["marker": .string(marker)] }, contentWorld: .world(name: "app"), name: "nativeStatus",
                    options: HandlerOptions(allowedOrigins: [SecurityOrigin(url: server.baseURL)!]))
                let before = server.stats()
                let verbose = ProcessInfo.processInfo.environment["RELIABILITY_VERBOSE"] != nil
                if verbose { FileHandle.standardError.write(Data("[attacks] start \(attack.name)\n".utf8)) }
                let script = Self.pageScript(for: attack)
                switch attack.document {
                case .served:
                    let path = "/attacks/\(attack.name)"
                    server.serve(path: path, body: script, contentType: "text/javascript; charset=utf-8")
                    try await fixture.page.load(server.url(path))
                case .foreign:
                    try await fixture.page.loadScript(script, baseURL: foreignBase.appendingPathComponent(attack.name))
                case .app:
                    #expect(try await fixture.page.load(server.url("/app")).statusCode == 200)
                    _ = try await fixture.page.evaluateJavaScript(script)
                }
                let attackStarted = clock.now
                let quiet = await fixture.page.runUntilQuiescent(timeout: .seconds(25))
                if verbose {
                    FileHandle.standardError.write(
                        Data("[attacks] \(attack.name): quiet \(quiet) after \(clock.now - attackStarted)\n".utf8))
                }
                #expect(quiet, "\(attack.name) did not finish")

                // Everything that crossed into JavaScript or its observers.
                var seen = await fixture.stringsSeenByPage()
                if let report = try? await fixture.page.evaluateJavaScript("typeof window.__report === 'string' ? window.__report : null") {
                    seen += strings(of: report)
                }
                seen += fixture.pageEvents.map { String(describing: $0) }
                seen += fixture.bridgeCalls.map { String(describing: $0) }
                let consoleReports = fixture.pageEvents.contains {
                    if case .console(let message, _) = $0 {
                        return message.text.hasPrefix("REPORT") || message.text.hasPrefix("REPORT-EARLY") || message.text.hasPrefix("reply")
                            || message.text.hasPrefix("late")
                    }
                    return false
                }
                let said = fixture.pageEvents.compactMap { event -> String? in
                    switch event {
                    case .console(let message, _): return message.text
                    case .scriptError(let error, _, _): return error.name + ": " + error.message
                    default: return nil
                    }
                }
                #expect(consoleReports, "\(attack.name) reported nothing; its page said: \(said.prefix(10))")
                let tokens = server.issuedRefreshTokens()
                let found = hits(of: tokens, in: seen)
                #expect(found.isEmpty, "\(attack.name) saw \(found.count) refresh token(s)")
                if !found.isEmpty { figures.hits[attack.name] = found }
                #expect(!seen.contains { $0.contains(marker) }, "\(attack.name) reached the app's isolated world")
                figures.scripts += 1
                figures.strings += seen.count
                figures.characters += seen.reduce(0) { $0 + $1.utf8.count }

                // The process and the session stay healthy.
                let after = server.stats()
                #expect(after.reuseEvents == before.reuseEvents, "\(attack.name) caused a refresh-token reuse")
                if attack.expectsNoRefresh {
                    #expect(after.refreshes == before.refreshes, "\(attack.name) made a refresh from a disallowed origin")
                    #expect(
                        !fixture.bridgeCalls.contains { entry in
                            if case .replied = entry.outcome { return entry.origin.contains("localhost") } else { return false }
                        }, "a disallowed origin got a reply")
                }
                #expect(try await fixture.page.evaluateJavaScript("6 * 7") == 42)
                if attack.endsSession {
                    await #expect(throws: SessionError.self) { try await fixture.session.refresh() }
                    #expect(fixture.page.cookieJar.value("__Host-session", for: server.baseURL) == nil)
                    #expect(fixture.session.cookieJar.value("__Host-session", for: server.baseURL) == nil)
                } else {
                    let status = try await fixture.session.refresh()
                    #expect(status.isSignedIn, "\(attack.name) broke the session")
                    #expect(try await fixture.page.load(server.url("/app")).statusCode == 200)
                }
                await fixture.stop()
                server.removeDocument(path: "/attacks/\(attack.name)")
            }

            // A later page still works, and no refresh token was ever spent twice.
            let fixture = try await SessionFixture.connect(to: server.baseURL, sessionConfiguration: configuration)
            try await fixture.session.login(username: "demo", password: "demo")
            #expect(try await fixture.page.load(server.url("/app")).statusCode == 200)
            let reply = try await fixture.page.callAsyncJavaScript(
                "return await window.webkit.messageHandlers.session.postMessage({action: 'refresh'})")
            #expect(reply["ok"] == true)
            await fixture.stop()
            let stats = server.stats()
            #expect(stats.reuseEvents == 0)
            let tokens = server.issuedRefreshTokens().count
            print(
                """
                [attacks] scripts run: \(figures.scripts); strings searched: \(figures.strings) (\(figures.characters) bytes); \
                refresh tokens searched for: \(tokens); hits: \(figures.hits.values.reduce(0) { $0 + $1.count }); \
                server refreshes: \(stats.refreshes), reuse events: \(stats.reuseEvents); \
                time: \(clock.now - started)
                """)
        }
    }
}
