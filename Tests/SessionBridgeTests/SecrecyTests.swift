import Foundation
import Logging
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTestSupport
import SessionBridgeTesting
import Synchronization
import Testing

/// Collects every log line and its metadata.
final class LogCollector: Sendable {
    let lines = Mutex<[String]>([])

    struct Handler: LogHandler {
        let collector: LogCollector
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            collector.lines.withLock {
                $0.append("\(event.message) \(event.metadata ?? [:]) \(self.metadata) \(event.error.map { "\($0)" } ?? "")")
            }
        }
    }

    var logger: Logger { Logger(label: "test") { _ in Handler(collector: self) } }
}

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct SecrecyTests {
    @Test func hostilePageNeverObservesTheRefreshToken() async throws {
        try await withServer { server in
            let logs = LogCollector()
            var configuration = makeConfiguration(server)
            configuration.logger = logs.logger
            let session = SessionController(configuration: configuration)
            try await session.login(username: "demo", password: "demo")
            let recorder = PageEventRecorder()
            let (page, contents) = await makePage(session, server, recorder: recorder)
            #expect(try await page.load(server.url("/app")).statusCode == 200)

            let found = try await page.callAsyncJavaScript(
                """
                const seen = [];
                const grab = (v, depth = 0) => {
                  try {
                    if (depth > 4 || v === null || v === undefined) { seen.push(String(v)); return; }
                    if (typeof v !== "object" && typeof v !== "function") { seen.push(String(v)); return; }
                    for (const k of Object.getOwnPropertyNames(v)) { seen.push(k); try { grab(v[k], depth + 1); } catch (e) { seen.push(String(e)); } }
                  } catch (e) { seen.push(String(e)); }
                };
                // Tamper with everything a reply passes through.
                const realStringify = JSON.stringify, realParse = JSON.parse;
                JSON.parse = function (s) { seen.push(String(s)); return realParse.apply(this, arguments); };
                JSON.stringify = function (v) { const s = realStringify.apply(this, arguments); seen.push(String(s)); return s; };
                const RealPromise = Promise;
                const realThen = Promise.prototype.then;
                Promise.prototype.then = function (a, b) {
                  return realThen.call(this, v => { grab(v); return a ? a(v) : v; }, e => { grab(e); if (b) return b(e); throw e; });
                };
                Object.defineProperty(Object.prototype, "refresh_token", { set(v) { seen.push("setter:" + v); }, get() { return undefined; }, configurable: true });
                Object.defineProperty(Object.prototype, "token", { set(v) { seen.push("setter:" + v); }, get() { return undefined; }, configurable: true });
                seen.push(document.cookie);
                for (const name of Object.getOwnPropertyNames(globalThis)) { seen.push(name); try { grab(globalThis[name], 3); } catch (e) {} }
                grab(window.webkit);
                const h = window.webkit.messageHandlers.session;
                for (const body of [{action: "refresh"}, {action: "status"}, {action: "nope"}, "refresh", {action: "refresh", refresh_token: true}]) {
                  try { grab(await h.postMessage(body)); } catch (e) { grab(e); seen.push(String(e), e.message, e.code, String(e.stack)); }
                }
                await new RealPromise(r => setTimeout(r, 600));
                try { grab(await sessionBridge.refresh()); } catch (e) { grab(e); }
                try { grab(await (await fetch('/api/me')).text()); } catch (e) { grab(e); }
                seen.push(document.cookie);
                console.log(seen.join("\\n"));
                return seen;
                """)
            var strings: [String] = []
            found.forEachString { strings.append($0) }
            strings += recorder.consoleLines
            strings += recorder.events.map { String(describing: $0) }
            strings += (contents.log?.entries ?? []).map { String(describing: $0) }
            strings += logs.lines.withLock { $0 }
            strings.append(String(describing: try session.vault.load() as Any))
            var dumped = ""
            dump(try session.vault.load() as Any, to: &dumped)
            strings.append(dumped)
            let tokens = server.issuedRefreshTokens()
            #expect(tokens.count >= 3)  // login and at least two rotations
            #expect(server.stats().refreshes >= 2)
            let hits = tokens.filter { token in strings.contains { $0.contains(token) } }
            #expect(hits.isEmpty)
            #expect(strings.count > 100)
            await page.close()
        }
    }

    @Test func refreshTokenIsRedactedEverywhere() {
        let secret = "rt_super_secret_value"
        let token = RefreshToken(secret)
        var dumped = ""
        dump(token, to: &dumped)
        var dumpedRecord = ""
        let record = VaultRecord(refreshToken: token, accessTokenExpiresAt: nil)
        dump(record, to: &dumpedRecord)
        let renderings = [
            token.description, token.debugDescription, "\(token)", String(describing: token), String(reflecting: token),
            dumped, dumpedRecord, "\(record)", String(reflecting: record), "\(Optional(token) as Any)", "\([token])",
            "\(Mirror(reflecting: token).children.map { "\($0.label ?? ""): \($0.value)" })",
        ]
        for rendering in renderings {
            #expect(!rendering.contains(secret), "\(rendering)")
        }
        #expect(renderings.contains { $0.contains("<redacted>") })
        #expect(!(token as Any is any Encodable))
    }
}
