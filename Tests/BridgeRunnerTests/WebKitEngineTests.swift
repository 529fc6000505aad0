import Foundation
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct WebKitEngineTests {
    @Test func aPageThatNeedsARealDOMRunsOnTheWebKitEngine() async throws {
        let page = try RunnerProcess.temporaryFile(
            "dom.html",
            """
            <!doctype html><title>dom</title>
            <form id=f><input name=user value=demo></form><ul id=list></ul>
            <script>
            (async () => {
              const li = document.createElement('li'); li.textContent = 'one'; document.getElementById('list').appendChild(li);
              let clicks = 0; document.body.addEventListener('click', () => clicks++); document.body.click();
              const form = new FormData(document.getElementById('f'));
              localStorage.setItem('k', 'v');
              const xhr = await new Promise(r => { const x = new XMLHttpRequest(); x.open('GET', '/api/me'); x.onload = () => r(x.status); x.send(); });
              const reply = await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
              console.log('items', document.querySelectorAll('#list li').length, 'clicks', clicks, 'form', form.get('user'),
                          'storage', localStorage.getItem('k'), 'xhr', xhr, 'refresh', reply.ok);
            })();
            </script>
            """)
        // No display set: the runner starts (and stops) an Xvfb of its own.
        let result = try await RunnerProcess.run(
            ["run", "--engine", "webkit", page.path],
            removing: ["DISPLAY", "WAYLAND_DISPLAY", "GDK_BACKEND", "BROADWAY_DISPLAY"])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("console.log items 1 clicks 1 form demo storage v xhr 200 refresh true"))
        #expect(result.stdout.contains("bridge session.postMessage({\"action\": \"refresh\"})"))
        #expect(result.stdout.contains("__Host-session"))
        #expect(!result.stdout.contains("sbrt_"), "a refresh token reached the transcript")
    }

    /// The session's flags shape a WebKit run as they shape a headless one: the page's
    /// session isolated by token exchange and DPoP-bound, OAuth faults only after the runner's
    /// sign-in. They had been ignored: the page shared the plain native session.
    @Test(arguments: ["headless", "webkit"])
    func theSessionsFlagsShapeARunOnEitherEngine(engine: String) async throws {
        let script = try RunnerProcess.temporaryFile(
            "flags.js", #"console.log("status", (await window.webkit.messageHandlers.session.postMessage({action: "status"})).signedIn);"#)
        let isolated = try await RunnerProcess.run(["run", script.path, "--dpop", "--isolated-session", "--engine", engine])
        #expect(isolated.exitCode == 0, "\(isolated.stdout)\(isolated.stderr)")
        #expect(isolated.stdout.contains("console.log status true"), "\(isolated.stdout)")
        #expect(isolated.stdout.contains("1 token exchanges"), "\(isolated.stdout)")
        #expect(!isolated.stdout.contains(" 0 DPoP proofs"), "\(isolated.stdout)")
        let faulted = try await RunnerProcess.run(["run", script.path, "--token-error", "invalid_client", "--engine", engine])
        #expect(faulted.exitCode == 0, "\(faulted.stdout)\(faulted.stderr)")
        #expect(faulted.stdout.contains("console.log status true"), "\(faulted.stdout)")
        // The embedded server's refresh cookie under another name would be copied to the page.
        let misnamed = try await RunnerProcess.run([
            "run", script.path, "--refresh-cookie", "web_refresh", "--refresh-url", "/session/refresh", "--engine", engine,
        ])
        #expect(misnamed.exitCode == 64, "\(misnamed.stdout)\(misnamed.stderr)")
        #expect((misnamed.stdout + misnamed.stderr).contains("--refresh-cookie is __Host-web_refresh"), "\(misnamed.stderr)")
    }

    @Test func theWebKitTranscriptShowsWebKitsOwnConsoleLinesAndEachErrorOnce() async throws {
        let page = try RunnerProcess.temporaryFile(
            "console.html",
            """
            <!doctype html><title>console</title>
            <meta http-equiv="Content-Security-Policy" content="script-src 'self' 'unsafe-inline'">
            <script>
            console.log("from the page", 1, {a: 2});
            setTimeout(() => { throw new TypeError("thrown once"); }, 0);
            Promise.reject(new RangeError("rejected once"));
            </script>
            <script src="https://other.example/refused.js"></script>
            """)
        let result = try await RunnerProcess.run(["run", "--engine", "webkit", "--json", page.path])
        // The uncaught error decides the exit code, as on the headless engine.
        #expect(result.exitCode == 1, "\(result.stdout)\(result.stderr)")
        let events = result.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        let console = events.filter { $0["type"] as? String == "console" }.compactMap { $0["text"] as? String }
        // WebKit's own line, which no script of the page wrote or could see.
        #expect(
            console.contains(
                "Refused to load https://other.example/refused.js because it does not appear in the script-src directive of the Content Security Policy."
            ), "\(result.stdout)")
        #expect(console.contains("from the page 1 {\"a\":2}"), "\(result.stdout)")
        // Each error once, with its name: WebKit's own line for it is left out.
        let errors = events.filter { ["script-error", "unhandled-rejection"].contains($0["type"] as? String) }
        #expect(
            errors.map { "\($0["name"] ?? "") \($0["message"] ?? "")" }.sorted() == ["RangeError rejected once", "TypeError thrown once"])
        #expect(!console.contains { $0.contains("thrown once") || $0.contains("rejected once") }, "\(console)")
    }

    /// A WebKit run waits for the page's pending timers and requests, as a headless one does
    /// (it ended half a second after the page's last console line, a later timer's work unseen,
    /// and exited 0); an interval never cleared keeps the page busy until `--timeout` (exit 3).
    @Test func aWebKitRunWaitsForThePagesTimersAndRequests() async throws {
        let page = try RunnerProcess.temporaryFile(
            "pending.js",
            """
            console.log("start");
            setTimeout(() => fetch("/api/me").then((r) => console.log("timer then fetch", r.status)), 1500);
            const cleared = setTimeout(() => console.log("never"), 60000);
            clearTimeout(cleared);
            """)
        let result = try await RunnerProcess.run(["run", "--engine", "webkit", page.path, "--timeout", "30"])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("console.log timer then fetch 200"), "\(result.stdout)")
        let interval = try RunnerProcess.temporaryFile("interval.js", "setInterval(() => {}, 100);")
        let busy = try await RunnerProcess.run(["run", "--engine", "webkit", interval.path, "--timeout", "3"])
        #expect(busy.exitCode == 3, "\(busy.stdout)\(busy.stderr)")
    }

    /// A server that took the connection and never answered ends a WebKit run as a timeout
    /// (exit 3), as on the headless engine; it was reported as unreachable (exit 4).
    @Test func aServerThatNeverAnswersEndsAWebKitRunAsATimeout() async throws {
        let listener = try RawHTTPListener { _ in
            Thread.sleep(forTimeInterval: 12)
            return nil
        }
        defer { listener.stop() }
        let result = try await RunnerProcess.run([
            "run", "--engine", "webkit", listener.url.appending(path: "hang").absoluteString, "--timeout", "3",
        ])
        #expect(result.exitCode == 3, "\(result.stdout)\(result.stderr)")
    }

    @Test func theWebKitTranscriptListsHTTPExchangesWithCookieNamesButNoValues() async throws {
        let page = try RunnerProcess.temporaryFile(
            "exchanges.html",
            """
            <!doctype html><title>exchanges</title>
            <script>
            (async () => {
              const me = await fetch('/api/me');
              const xhr = await new Promise(r => { const x = new XMLHttpRequest(); x.open('GET', '/redirect-chain?delay=300'); x.onload = () => r(x.status); x.send(); });
              console.log('me', me.status, 'chain', xhr);
            })();
            </script>
            """)
        let result = try await RunnerProcess.run(["run", "--engine", "webkit", "--json", page.path])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        let events = result.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        let exchanges = events.filter { $0["type"] as? String == "http" }
        func exchange(_ path: String) -> [String: Any]? {
            exchanges.first { ($0["url"] as? String).flatMap(URL.init(string:))?.path == path }
        }
        let document = try #require(exchange("/run/exchanges.html"), "\(result.stdout)")
        #expect(document["initiator"] as? String == "navigation")
        #expect(document["status"] as? Int == 200)
        #expect((document["cookiesSent"] as? [String])?.contains("__Host-session") == true)
        let me = try #require(exchange("/api/me"))
        #expect(me["initiator"] as? String == "fetch")
        #expect(me["method"] as? String == "GET")
        #expect(me["status"] as? Int == 200)
        #expect((me["cookiesSent"] as? [String])?.contains("__Host-session") == true)
        // The XHR follows /redirect-chain to its end: hop2 and hop3 stay, hop1 is set and deleted on the way.
        // The server holds its first answer: the store is read when the load starts, and on a
        // loaded machine that read could otherwise come after the chain's cookies were stored.
        let chain = try #require(exchange("/redirect-chain"))
        #expect(Set(chain["cookiesSet"] as? [String] ?? []) == ["hop2", "hop3"])
        #expect(result.stdout.contains("\"me 200 chain 200\""))
        // Names only: no value of a cookie the page's store holds reaches the transcript.
        let plain = try await RunnerProcess.run(["run", "--engine", "webkit", page.path])
        #expect(plain.exitCode == 0, "\(plain.stdout)\(plain.stderr)")
        #expect(plain.stdout.contains("http GET"))
        #expect(plain.stdout.contains("[fetch]  sent "))
        #expect(!plain.stdout.contains("hop3=3") && !plain.stdout.contains("sbrt_"))
    }

    /// A page of another server than the embedded one (a URL target) reports its console and its
    /// errors too: the runner's reporting handler had been allowed for the embedded server's origin
    /// only, so such a run printed no console line and ended 0 whatever its scripts threw.
    @Test func aURLTargetOfAnotherServerReportsItsConsoleAndErrors() async throws {
        try await ReferenceServer.withRunning { server in
            server.serve(
                path: "/elsewhere.html",
                body: "<!doctype html><title>elsewhere</title><script>console.log('from', location.port, undefined); null.x;</script>",
                contentType: "text/html")
            let result = try await RunnerProcess.run(["run", "--engine", "webkit", server.url("/elsewhere.html").absoluteString])
            #expect(result.exitCode == 1, "\(result.stdout)\(result.stderr)")
            // `undefined` printed as the headless console prints it (it had been left out).
            #expect(result.stdout.contains("console.log from \(server.baseURL.port ?? 0) undefined\n"), "\(result.stdout)")
            #expect(result.stdout.contains("TypeError"), "\(result.stdout)")
        }
    }

    /// A `<script src>` the server does not have is no error of the page's on either engine:
    /// its element's `onerror` runs (a page loads a fallback there) and the run ends 0 (the
    /// headless engine had reported it as an uncaught `NetworkError`, exit code 1).
    @Test(arguments: ["headless", "webkit"])
    func aMissingScriptIsNoPageError(engine: String) async throws {
        let page = try RunnerProcess.temporaryFile(
            "missing-script.html",
            """
            <!doctype html><title>missing</title>
            <script src="/no/such/bundle.js" onerror="console.log('fallback for', event.target.src.split('/').pop())"></script>
            <script>console.log('after the missing script');</script>
            """)
        let result = try await RunnerProcess.run(["run", "--engine", engine, page.path])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("console.log fallback for bundle.js"), "\(result.stdout)")
        #expect(result.stdout.contains("console.log after the missing script"), "\(result.stdout)")
        #expect(result.stdout.contains("/no/such/bundle.js → 404 [script]"), "\(result.stdout)")
    }

    /// A page whose last act is a navigation runs until that navigation's document: one the
    /// session holds for a refresh (its cookie inside the refresh margin, the token endpoint
    /// slow), and one whose server is slow to answer. The WebKit run had ended as done once
    /// the held navigation was decided, or before a slow one committed.
    @Test(arguments: ["headless", "webkit"])
    func aRunEndsAtTheDocumentOfThePagesLastNavigation(engine: String) async throws {
        let held = try RunnerProcess.temporaryFile(
            "held.js", #"setTimeout(() => { console.log("navigating"); location.href = "/app/settings"; }, 2500);"#)
        let refreshed = try await RunnerProcess.run([
            "run", "--engine", engine, held.path, "--access-token-lifetime", "20", "--latency", "2000", "--timeout", "30",
        ])
        #expect(refreshed.exitCode == 0, "\(refreshed.stdout)\(refreshed.stderr)")
        #expect(refreshed.stdout.contains(#/navigate GET \S+/app/settings \(scriptInitiated\): held \d{4}/#), "\(refreshed.stdout)")
        #expect(Self.reached("/app/settings", in: refreshed.stdout), "\(refreshed.stdout)")
        let slow = try RunnerProcess.temporaryFile("slow.js", #"location.href = "/redirect-chain?delay=2000";"#)
        let answered = try await RunnerProcess.run(["run", "--engine", engine, slow.path, "--timeout", "30"])
        #expect(answered.exitCode == 0, "\(answered.stdout)\(answered.stderr)")
        #expect(Self.reached("/redirect-chain/3", in: answered.stdout), "\(answered.stdout)")
    }

    /// A page that navigates while one of its requests is out (a script's redirect as it
    /// loads): WebKit cancels the rest of the first document's loading, which is not a failure
    /// of the run; the run goes on to the next document. It had ended with exit code 1, "the
    /// navigation was cancelled".
    @Test(arguments: ["headless", "webkit"])
    func aPageThatNavigatesWhileItsRequestIsOutRunsToTheNextDocument(engine: String) async throws {
        let script = try RunnerProcess.temporaryFile(
            "redirects.js",
            """
            fetch("/redirect-chain?delay=1500").catch(() => {});
            location.href = "/app/settings";
            """)
        let result = try await RunnerProcess.run(["run", "--engine", engine, script.path, "--timeout", "30"])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(!result.stdout.contains("✗"), "\(result.stdout)")
        #expect(Self.reached("/app/settings", in: result.stdout), "\(result.stdout)")
    }

    /// A page whose `<meta http-equiv="refresh">` sends it on after a second runs to the next
    /// document, as a run whose page is waiting on a timer does. The WebKit run had ended as
    /// quiet at the first document's load: WebKit tells nothing of a refresh it has scheduled.
    @Test(arguments: ["headless", "webkit"])
    func aRunWaitsForThePagesRefresh(engine: String) async throws {
        let page = try RunnerProcess.temporaryFile(
            "refresh.html", #"<meta http-equiv="refresh" content="1;url=/app/settings"><p>one moment</p>"#)
        let result = try await RunnerProcess.run(["run", "--engine", engine, page.path, "--timeout", "30"])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(Self.reached("/app/settings", in: result.stdout), "\(result.stdout)")
    }

    /// The run's verdict on a page still busy ends the page's part of the transcript on both
    /// engines, in the same words: a WebKit view goes on until the process ends, and its
    /// console lines had followed the verdict.
    @Test(arguments: ["headless", "webkit"])
    func nothingThePageDoesIsShownAfterTheVerdict(engine: String) async throws {
        let ticking = try RunnerProcess.temporaryFile("ticking.js", #"let n = 0; setInterval(() => console.log("tick", n++), 20);"#)
        let result = try await RunnerProcess.run(["run", "--engine", engine, ticking.path, "--timeout", "2"])
        #expect(result.exitCode == 3, "\(result.stdout)\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        let verdict = lines.firstIndex { $0.contains("✗ the page was still busy after 2.0 s (timers, fetches or bridge calls pending)") }
        #expect(verdict != nil, "\(result.stdout)")
        if let verdict {
            let after = lines[verdict...].filter { $0.hasPrefix("console.") }
            #expect(after.isEmpty, "\(engine): \(after.prefix(3))")
        }
    }

    /// Whether the transcript shows a document of `path` that the server answered 200.
    private static func reached(_ path: String, in transcript: String) -> Bool {
        transcript.split(separator: "\n").contains { $0.hasPrefix("document ") && $0.contains("\(path) (200)") }
    }

    /// Console arguments read alike on both engines: an error as its name and message, `NaN` and
    /// `Infinity` as themselves, a typed array as its elements, an object as JSON. WebKit's
    /// reporter had printed `{}`, `null` and `{"0":1,"1":2}`.
    @Test(arguments: ["headless", "webkit"])
    func consoleArgumentsReadAsTheHeadlessConsoleShowsThem(engine: String) async throws {
        let script = try RunnerProcess.temporaryFile(
            "console-values.js",
            #"console.log(new Error("x"), NaN, -Infinity, new Uint8Array([1, 2]), {a: 1}, [3], null, undefined, true);"#)
        let result = try await RunnerProcess.run(["run", "--engine", engine, script.path])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains(#"console.log Error: x NaN -Infinity 1,2 {"a":1} [3] null undefined true"#), "\(result.stdout)")
    }

    @Test func anUncaughtErrorInAWebKitPageEndsWithExitCodeOne() async throws {
        let script = try RunnerProcess.temporaryFile(
            "throws.js",
            """
            document.title = "x";
            throw new RangeError("from the page");
            """)
        let result = try await RunnerProcess.run(["run", "--engine", "webkit", script.path])
        #expect(result.exitCode == 1, "\(result.stdout)\(result.stderr)")
        // As the headless engine prints it: the error's own message (the event's repeats the
        // name) and where it was thrown (the event's is where the runner rethrew it).
        #expect(result.stdout.contains("uncaught RangeError: from the page at https://"), "\(result.stdout)")
        #expect(result.stdout.contains("/run/throws.js.js:2\n"), "\(result.stdout)")
    }

    /// A script that never returns holds WebKit's web process: past `--entry-time-limit` the
    /// view ends that process and the run ends with exit code 1 and says why (it had waited for
    /// the load's own 30 s, then ended with code 4, "server unreachable", whatever `--timeout`).
    @Test func aScriptThatNeverReturnsIsEndedAtTheEntryTimeLimit() async throws {
        let script = try RunnerProcess.temporaryFile("spins.js", "console.log('spinning'); for (;;) {}")
        let clock = ContinuousClock()
        let started = clock.now
        let result = try await RunnerProcess.run(["run", "--engine", "webkit", "--entry-time-limit", "1", "--timeout", "60", script.path])
        #expect(result.exitCode == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("uncaught TimeLimitExceeded"), "\(result.stdout)")
        #expect(result.stdout.contains("the web process was ended: a script ran past the time limit"), "\(result.stdout)")
        #expect(clock.now - started < .seconds(55), "ended by the limit, not by --timeout; the bound is generous for a busy machine")
    }

    /// A script that stops answering after the page looked done (a timer's endless loop, set
    /// when nothing else is pending) is not quiet: the run waits for it and the time limit
    /// ends it, as headless. The run had been called quiet half a second later (exit 0) and
    /// the spinning web process outlived the runner until WebKit's own watchdog ended it.
    @Test func aScriptThatSpinsAfterThePageLookedDoneIsNotQuiet() async throws {
        let script = try RunnerProcess.temporaryFile(
            "spins-later.js", "console.log('looks done'); setTimeout(() => { for (;;) {} }, 300);")
        let result = try await RunnerProcess.run(["run", "--engine", "webkit", "--entry-time-limit", "1", "--timeout", "20", script.path])
        #expect(result.exitCode == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("uncaught TimeLimitExceeded"), "\(result.stdout)")
    }

    /// A document that arrived but never finished loading (its frame waits on a server that
    /// never answers) ends the run at `--timeout` with exit code 3, a page still busy, not 4,
    /// the code of a server that cannot be reached.
    @Test func aDocumentThatNeverFinishesLoadingEndsWithExitCodeThree() async throws {
        let silent = try SilentPort()
        let page = try RunnerProcess.temporaryFile(
            "waits.html", "<title>waits</title><iframe src=\"https://127.0.0.1:\(silent.port)/never\"></iframe>")
        let result = try await RunnerProcess.run(["run", "--engine", "webkit", "--timeout", "4", page.path])
        #expect(result.exitCode == 3, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("the load took longer than"), "\(result.stdout)")
        withExtendedLifetime(silent) {}
    }

    /// The runner's own reporting handler takes what the page sends it: a line no integer can
    /// hold is left out, not converted (the run stopped in `Int(_:)`).
    @Test func aReportWithALineOutOfRangeIsShownWithoutIt() async throws {
        let script = try RunnerProcess.temporaryFile(
            "odd-line.js",
            """
            for (const line of [1e300, -1e300, 2 ** 70]) {
              window.webkit.messageHandlers.sessionbridgeRunner.postMessage({type: "error", name: "E", message: "odd line", source: "x", line});
            }
            console.log("still here");
            """)
        let result = try await RunnerProcess.run(["run", "--engine", "webkit", script.path])
        #expect(result.exitCode == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("E: odd line"), "\(result.stdout)")
        #expect(result.stdout.contains("still here"), "\(result.stdout)")
        #expect(!result.stderr.contains("Fatal error"))
    }
}
