import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTesting
import SessionBridgeWebKit
import Synchronization

/// Which engine renders the page.
enum Engine: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// JavaScriptCore alone: fast and small, no DOM.
    case headless
    /// A real WebKit web view (WebKitGTK): DOM, events, forms.
    case webkit
}

struct EngineOption: ParsableArguments {
    @Option(
        help:
            "The page engine: headless (JavaScriptCore, no DOM) or webkit (WebKitGTK, a real DOM; starts its own Xvfb when DISPLAY is unset)."
    )
    var engine: Engine = .headless

    @Option(
        name: .customLong("web-process-memory-limit"),
        help: ArgumentHelp(
            "End the page's document once its process holds more than this many megabytes: the web process with --engine webkit (WebKit's memory pressure settings; none by default), the runner's own process headless (by default half the machine's memory).",
            valueName: "MB"))
    var webProcessMemoryLimitMB: Int?

    mutating func validate() throws {
        if let limit = webProcessMemoryLimitMB, limit <= 0 {
            throw ValidationError("--web-process-memory-limit must be a positive number of megabytes.")
        }
    }

    /// The headless page's memory limit: the one asked for, or half the machine's memory, so
    /// that a page that allocates without end is ended before the system's out-of-memory
    /// killer ends the runner.
    var headlessMemoryLimitMB: Int {
        if let webProcessMemoryLimitMB { return webProcessMemoryLimitMB }
        let bytes = UInt64(max(0, sysconf(Int32(_SC_PHYS_PAGES)))) * UInt64(max(0, sysconf(Int32(_SC_PAGESIZE))))
        return max(256, Int(clamping: bytes >> 21))
    }
}

/// `run --engine webkit`: the same run on a WebKit view. The embedded reference server speaks
/// HTTPS here (a fresh loopback certificate the view and the native client trust), because
/// WebKit keeps `Secure` cookies only over HTTPS.
///
/// WebKitGTK gives the embedder no console log. WebKit's own lines (a policy's refusals, blocked
/// ports, failed loads) reach the transcript through the view's events, from its web process
/// (``WebProcessExtension``); the console API's lines (which WebKit cuts to their first argument),
/// uncaught errors and unhandled rejections through a runner-only `sessionbridgeRunner` handler
/// (WebKit's line for an error repeats what that handler reports, and is left out:
/// ``AwaitedWebKitLines``). Navigations, their
/// decisions and HTTP exchanges come through the view's events (WebKit hides the `Cookie` and
/// `Set-Cookie` headers, so the cookie names come from the view's store: see ``WebKitWebView``).
@WebKitActor
struct WebKitRun {
    /// The page's cookies as the run ends, once what the page did last reached the native store
    /// (WebKit reports it a few milliseconds late: a deletion it had not yet reported would be
    /// back in the next run's profile). WebKit gets until `deadline` (the page's `--timeout`,
    /// or two seconds past it), not its operations' ten seconds: a page that wrote cookies
    /// without end leaves its network process busy, and the run's end is not held for it; the
    /// stores then say the page's could not be read.
    static func pageCookiesAtTheEnd(
        of store: WebKitWebsiteDataStore, within deadline: ContinuousClock.Instant, transcript: Transcript
    ) async -> [Cookie] {
        let cookies = store.httpCookieStore
        let read = try? await RunBudget.within(deadline) { @WebKitActor () async throws -> [Cookie] in
            await cookies.deliverPendingChanges()
            return try await cookies.allCookies(timeout: .seconds(10))
        }
        guard let read else {
            transcript.note(
                "warning: WebKit did not give the page's cookies in time (was the page still writing them?): its column is left empty, and what the page did last may not have reached the native store"
            )
            return []
        }
        return read
    }

    let command: RunCommand

    nonisolated static let runnerHandler = "sessionbridgeRunner"
    /// The reporter script: the console API's lines, uncaught errors and unhandled rejections.
    nonisolated static let reporter = """
        (() => {
          const post = (m) => { try { window.webkit.messageHandlers.\(runnerHandler).postMessage(m); } catch (e) {} };
          // One argument as the headless engine's console shows it: a string as it is, an
          // object as JSON (an error, a typed array and a function as `String(value)`), any
          // other value as `String(value)` (`NaN`, not JSON's `null`).
          const TypedArray = Object.getPrototypeOf(Uint8Array);
          const show = (a) => {
            if (typeof a === "string") return a;
            if (a !== null && typeof a === "object" && !(a instanceof Error) && !(a instanceof TypedArray)) {
              try { const json = JSON.stringify(a); if (json !== undefined) return json; } catch (e) {}
            }
            try { return String(a); } catch (e) { return "<unprintable>"; }
          };
          for (const level of ["log", "info", "warn", "error", "debug"]) {
            const original = console[level];
            console[level] = function (...args) {
              post({type: "console", level, text: args.map(show).join(" ")});
              return original.apply(this, args);
            };
          }
          // An error's own message and place when it is one: the event's message repeats its
          // name, and its place is where it was last thrown (a rethrow's, not the error's).
          window.addEventListener("error", (e) => {
            const own = e.error instanceof Error && typeof e.error.line === "number" && typeof e.error.sourceURL === "string";
            post({type: "error", name: (e.error && e.error.name) || "Error", message: e.error instanceof Error ? String(e.error.message) : e.message,
              source: own ? e.error.sourceURL : e.filename, line: own ? e.error.line : e.lineno});
          });
          window.addEventListener("unhandledrejection", (e) => post({type: "rejection", name: (e.reason && e.reason.name) || "Error", message: String(e.reason && e.reason.message || e.reason)}));
          // The top document's pending work, which WebKit does not tell: its timers not yet
          // fired or cleared (an interval until it is cleared) and its fetches and XHRs not yet
          // settled; the runner waits for none to be left (``WebKitRun/waitUntilQuiet``). Told
          // when the count leaves or reaches zero, and once as each document starts.
          if (window !== window.top) return;
          const doc = Math.random().toString(36).slice(2);
          let pending = 0;
          const busy = (delta) => {
            const was = pending;
            pending += delta;
            if ((was === 0) !== (pending === 0)) post({type: "pending", count: pending, doc});
          };
          post({type: "pending", count: 0, doc, start: true});
          const timers = new Map(), { setTimeout: setOne, setInterval: setEvery, clearTimeout: clearOne } = window;
          const clear = (id) => { if (timers.delete(id)) busy(-1); };
          const add = (set, repeating) => function (handler, ...rest) {
            if (typeof handler !== "function") return set.call(window, handler, ...rest);
            let id;
            const run = function (...args) { if (!repeating) clear(id); return handler.apply(this, args); };
            id = set.call(window, run, ...rest);
            timers.set(id, repeating);
            busy(1);
            return id;
          };
          window.setTimeout = add(setOne, false);
          window.setInterval = add(setEvery, true);
          window.clearTimeout = window.clearInterval = function (id) { clear(id); return clearOne.call(window, id); };
          const fetched = window.fetch;
          window.fetch = function (...args) {
            busy(1);
            let done = false;
            const settle = () => { if (!done) { done = true; busy(-1); } };
            try {
              const promise = fetched.apply(this, args);
              promise.then(settle, settle);
              return promise;
            } catch (error) { settle(); throw error; }
          };
          // A `<meta http-equiv="refresh">` navigates once the document has loaded and its
          // seconds have passed: pending until then, and for two seconds more at most (a
          // refresh WebKit does not take, to a URL it refuses, ends nothing).
          window.addEventListener("load", () => {
            const meta = document.querySelector('meta[http-equiv="refresh" i]');
            const seconds = meta && /^\\s*(\\d+)/.exec(meta.content || "");
            if (!seconds) return;
            busy(1);
            setOne.call(window, () => busy(-1), (Number(seconds[1]) + 2) * 1000);
          });
          const send = XMLHttpRequest.prototype.send;
          XMLHttpRequest.prototype.send = function (...args) {
            busy(1);
            this.addEventListener("loadend", () => busy(-1), {once: true});
            try { return send.apply(this, args); } catch (error) { busy(-1); throw error; }
          };
        })();
        """

    /// Whether views of `store` report WebKit's own console lines: the web process extension
    /// was found, and the store is persistent (WebKit keeps a non-persistent session's console
    /// to itself).
    nonisolated static func reportsWebKitConsole(for store: WebKitWebsiteDataStore) -> Bool {
        WebProcessExtension.libraryPath != nil && store.isPersistent
    }

    /// Says once why WebKit's own console lines are missing, when they are.
    static func noteMissingConsole(for store: WebKitWebsiteDataStore, in transcript: Transcript) {
        if WebProcessExtension.libraryPath == nil {
            transcript.note(
                "WebKit's own console lines (policy refusals, blocked ports) are not shown: \(WebProcessExtension.fileName) "
                    + "was found neither beside the executable nor at SESSIONBRIDGE_WEB_PROCESS_EXTENSION "
                    + "(swift build --product SessionBridgeWebProcessExtension builds it)")
        } else if !store.isPersistent {
            transcript.note("WebKit's own console lines are not shown: WebKit keeps a non-persistent store's console to itself")
        }
    }

    func run() async throws {
        let transcript = Transcript(json: command.json)
        let vault = command.vault
        let bound = command.timeout + RunDeadline.margin
        let deadline = RunDeadline.arm(seconds: bound) { [command] in
            transcript.failure("the run did not end within --timeout \(command.timeout) s (+\(RunDeadline.margin) s); ended the run")
            SignIn.keepRotatedAtTheDeadline(from: vault, inPlainFile: command.refreshTokenFile, transcript: transcript)
        }
        let interruption = RunInterruption.arm(saving: vault, toPlainFile: command.refreshTokenFile, transcript: transcript)
        defer { withExtendedLifetime(interruption) {} }
        let source = try PageSource(command.target)
        let profileURL = command.profile.map { URL(fileURLWithPath: $0) }
        let settings = try command.authorization.settings()
        let limit = command.engineOption.webProcessMemoryLimitMB
        // Without a profile, a store as empty in a private temporary directory, removed at the
        // end: WebKit reports no console lines for a non-persistent store.
        let scratch = profileURL == nil ? try ScratchDirectory.make(prefix: "bridge-runner-webkit") : nil
        defer { scratch?.remove() }
        let store = try WebKitWebsiteDataStore(
            directory: profileURL?.appendingPathComponent("webkit") ?? scratch!.url, webProcessMemoryLimitMB: limit)

        var server: ReferenceServer? = nil
        var certificate: LoopbackCertificate? = nil
        var client = WebPage.defaultHTTPClient
        var ownClient: OwnedHTTPClient? = nil
        let baseURL: URL
        var sessionConfiguration: SessionConfiguration
        // The session is the headless run's: the same authorization server, web session,
        // vault and sign-in.
        if let external = try command.externalServer(settings) {
            baseURL = external
            sessionConfiguration = settings.sessionConfiguration(server: external)
            command.webSession.apply(to: &sessionConfiguration, server: external)
            transcript.note("using the server at \(Transcript.shown(external))")
            if external.scheme?.lowercased() == "http" {
                // The session may hold its cookies, but the page will not send them.
                transcript.note(
                    "warning: WebKit keeps and sends Secure cookies (the __Host- ones, a session's) only over HTTPS: over \(external.scheme ?? "http"), the page sends none of them"
                )
            }
        } else {
            let made = try LoopbackCertificate.make()
            certificate = made
            // The faults start once the runner has signed in: they are for the page's run.
            var configuration = command.faults.configuration
            configuration.faults = .none
            configuration.oauthFaults = .none
            configuration.tlsConfiguration = made.serverTLS
            try command.webSession.apply(to: &configuration)
            let started = try await ReferenceServer.start(configuration)
            server = started
            baseURL = started.baseURL
            let trusting = Self.loopbackClient(trusting: made)
            client = trusting.client
            ownClient = trusting
            transcript.note(
                "embedded reference server on \(baseURL.absoluteString) (HTTPS with a fresh loopback certificate; demo user: demo / demo)")
            sessionConfiguration = SessionConfiguration(server: baseURL)
            sessionConfiguration.httpClient = client
            sessionConfiguration.refreshTokenReuseGrace = started.configuration.refreshTokenReuseGrace
            command.webSession.apply(to: &sessionConfiguration, server: baseURL)
        }
        let session = SessionController(
            configuration: sessionConfiguration, vault: vault,
            cookieStore: profileURL.map { PersistentCookieStore(directory: $0, profile: "native") })

        let log = MessageLog(capacity: 10_000, redaction: RedactionPolicy(secretPrefixes: ["sbrt_"]))
        var origins = Set(command.handlerOrigin.compactMap(SecurityOrigin.init))
        if let origin = SecurityOrigin(url: baseURL) { origins.insert(origin) }
        // A script that does not return holds WebKit's web process: past the entry time limit the
        // view ends that process, as the headless engine ends the script.
        let view = try Self.makeView(
            session: session, log: log, origins: origins, store: store, certificate: certificate,
            transcript: transcript, loadTimeout: .milliseconds(Int64(command.timeout * 1000)),
            scriptTimeLimit: .milliseconds(Int64(min(command.entryTimeLimit, command.timeout) * 1000)))
        await session.attach(view)

        let pageEnds = ContinuousClock.now + .milliseconds(Int64(command.timeout * 1000))
        let exit = await SignIn.exit(
            await run(
                source, view: view, session: session, server: server, baseURL: baseURL, codeFlow: settings.redirectURI != nil,
                deadline: deadline, transcript: transcript),
            of: session, adoptedFrom: command.refreshTokenFile, transcript: transcript)
        // The page's part is over, whatever its web process does: what is left does not wait
        // for it, and a slow teardown of WebKit's processes is no page's doing.
        deadline.disarm()
        if let file = command.refreshTokenFile, vault is InMemoryTokenVault, let note = SignIn.keepRotated(from: vault, inPlainFile: file) {
            transcript.note(note)
        }
        transcript.printWaitingWebKitLines()
        transcript.stores(
            page: await Self.pageCookiesAtTheEnd(of: store, within: max(pageEnds, .now + .seconds(2)), transcript: transcript),
            native: session.cookieJar.allCookies)
        if let stats = server?.stats() {
            transcript.note(
                "server: \(stats.logins) logins, \(stats.refreshes) refreshes, \(stats.graceReplays) grace replays, \(stats.reuseEvents) reuse events"
                    + command.webSession.statistics(stats))
        }
        // A page session of its own is revoked as the page goes; the embedded server, which
        // waits for its requests in flight (a refresh the page left), a second at most.
        _ = try? await RunBudget.within(.now + .seconds(1)) { () async -> Bool in
            await session.detach(view)
            return true
        }
        await view.close()
        _ = try? await RunBudget.within(.now + .seconds(1)) { [server] () async -> Bool in
            try? await server?.stop()
            return true
        }
        // Its shutdown waits out a request in flight (a refresh the page left: 4 s measured);
        // the run's outcome is known, so a second at most.
        _ = try? await RunBudget.within(.now + .seconds(1)) { [ownClient] () async -> Bool in
            try? await ownClient?.shutdown()
            return true
        }
        // The profiles' last cookie writes, made behind the pages, land before the process ends.
        await CookieStoreAttachment.flushAll()
        if exit != .success { throw exit }
    }

    private func run(
        _ source: PageSource, view: WebKitWebView, session: SessionController, server: ReferenceServer?, baseURL: URL,
        codeFlow: Bool, deadline: RunDeadline.Armed, transcript: Transcript
    ) async -> ExitCode {
        do {
            try await command.signIn(session, server: server, codeFlow: codeFlow, transcript: transcript)
        } catch {
            return SignIn.report(error, to: transcript, codeFlow: command.signsInWithTheCodeFlow(codeFlow))
        }
        server?.setFaults(command.faults.configuration.faults)
        server?.setOAuthFaults(command.faults.configuration.oauthFaults)
        let documentURL = command.url.map { URL(string: $0)! } ?? URL(string: "/run/\(source.name)", relativeTo: baseURL)!.absoluteURL
        // `--timeout` is the page's: its load (the view's load timeout) and its work until it is
        // quiet share it (a second at least is left to see it quiet).
        deadline.restart(seconds: command.timeout + RunDeadline.margin)
        let budgetEnds = ContinuousClock.now + .milliseconds(Int64(command.timeout * 1000))
        do {
            switch source {
            case .url(let target):
                try await view.load(target)
            case .file(_, let body, let isHTML):
                if let server, command.url == nil {
                    server.serve(
                        path: documentURL.path, body: isHTML ? body : "<script src=\"\(documentURL.path).js\"></script>",
                        contentType: "text/html; charset=utf-8")
                    if !isHTML { server.serve(path: documentURL.path + ".js", body: body, contentType: "text/javascript") }
                    try await view.load(documentURL)
                } else {
                    try await view.loadHTMLString(isHTML ? body : "<script>\(body)</script>", baseURL: documentURL)
                }
            }
        } catch {
            transcript.failure("\(error.message)")
            // A script the view stopped (its web process ended) is the page's error, and a
            // document that arrived but did not finish loading is a page still busy.
            if transcript.counts.scriptErrors > 0 || transcript.counts.processesEnded > 0 { return .scriptError }
            // A server that took the connection and did not answer in time is a timeout, as
            // on the headless engine; one that could not be reached is unreachable.
            if error.code == .timeout { return .timedOut }
            return error.code == .network ? .serverUnreachable : .failure
        }
        let quiet = await Self.waitUntilQuiet(view, transcript: transcript, timeout: max(.seconds(1), budgetEnds - .now))
        // A refresh a page asked for and left (it navigated on) ends before the stores are
        // shown, within the budget (half a second at least).
        let refreshEnded = try? await RunBudget.within(max(budgetEnds, .now + .milliseconds(500))) { () async -> Bool in
            await session.waitForRefreshInFlight()
            return true
        }
        if refreshEnded != true {
            transcript.verdict("a refresh was still in flight after \(command.timeout) s; raise --timeout")
            return .timedOut
        }
        let counts = transcript.counts
        // A web process that ended under the page (past its memory limit) is the page's
        // failure, as the headless engine's `MemoryLimitExceeded` is.
        if counts.scriptErrors > 0 || counts.processesEnded > 0 { return .scriptError }
        if counts.unhandledRejections > 0 { return .unhandledRejection }
        if !quiet {
            transcript.verdict(
                "the page was still busy after \(command.timeout) s (timers, fetches or bridge calls pending); raise --timeout or check for a setInterval"
            )
            return .timedOut
        }
        return .success
    }
}

extension WebKitRun {
    /// A client of the runner's own that trusts the embedded server's loopback certificate,
    /// follows no redirects and fails a refused connection at once (as the session's default
    /// client does); closed when dropped, as when a run ends early with an error.
    nonisolated static func loopbackClient(trusting certificate: LoopbackCertificate) -> OwnedHTTPClient {
        var configuration = WebPage.defaultHTTPClientConfiguration
        configuration.tlsConfiguration = certificate.clientTLS
        return OwnedHTTPClient(configuration: configuration)
    }

    /// A view wired to `session` (handler, standard scripts, navigation delegate) that reports
    /// console lines, errors, navigations and bridge calls to `transcript`.
    static func makeView(
        session: SessionController, log: MessageLog, origins: Set<SecurityOrigin>, store: WebKitWebsiteDataStore,
        certificate: LoopbackCertificate?, transcript: Transcript, loadTimeout: Duration = .seconds(30),
        scriptTimeLimit: Duration = .seconds(10)
    ) throws -> WebKitWebView {
        let contents = UserContentController(log: log)
        session.install(in: contents, allowedOrigins: origins)
        // Every document reports its console, whatever its origin, as the headless page's does:
        // the handler only prints what it is given (a page could print the same with `console`).
        contents.add(RunnerReports(transcript: transcript), name: runnerHandler, options: .anyOrigin)
        if !reportsWebKitConsole(for: store) { noteMissingConsole(for: store, in: transcript) }
        contents.addUserScript(UserScript(source: reporter, injectionTime: .atDocumentStart, forMainFrameOnly: false))
        log.observe { entry in if entry.name != runnerHandler { transcript.bridge(entry) } }
        if let certificate { try store.allowTLSCertificate(pemCertificate: certificate.certificatePEM, for: "127.0.0.1") }
        return try WebKitWebView(
            configuration: WebKitWebViewConfiguration(
                websiteDataStore: store, userContentController: contents,
                navigationDelegate: SessionNavigationDelegate(controller: session),
                eventHandler: { event in
                    pageEvents.add(1, ordering: .relaxed)
                    transcript.webKitEvent(event)
                }, loadTimeout: loadTimeout, scriptTimeLimit: scriptTimeLimit))
    }

    /// How many page events (navigations, commits, decisions) the runner's views reported.
    nonisolated static let pageEvents = Atomic<Int>(0)

    /// The top document's pending timers and requests, as its reporter last told them, with the
    /// document they are of (each document tells its own as it starts).
    nonisolated static let pagePending = Mutex<(document: String, count: Int)>(("", 0))

    /// WebKit does not say when a page is idle: waits until the top document has no timer or
    /// request pending (as its reporter tells them), no navigation is held or on its way to its
    /// document, and half a second passed without bridge calls, navigations or console output;
    /// `false` when `timeout` came first.
    static func waitUntilQuiet(_ view: WebKitWebView, transcript: Transcript, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        var lastActivity = ContinuousClock.now
        var lastCount = -1
        while ContinuousClock.now < deadline {
            let counts = transcript.counts
            let count = counts.bridgeCalls + counts.lines + pageEvents.load(ordering: .relaxed)
            if count != lastCount || view.callsInFlight > 0 || view.hasNavigationInProgress || pagePending.withLock({ $0.count }) > 0 {
                lastCount = count
                lastActivity = .now
            } else if ContinuousClock.now - lastActivity > .milliseconds(500) {
                // Silence is quiet only from a process that still runs script: one inside a
                // script that does not return is busy (the view's time limit ends it).
                if await view.answers(within: min(max(deadline - .now, .milliseconds(1)), .seconds(1))) { return true }
                lastActivity = .now
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}

/// Console lines and uncaught errors the reporter script posts, into the transcript.
struct RunnerReports: ScriptMessageHandler {
    let transcript: Transcript

    func userContentController(_ controller: UserContentController, didReceive message: ScriptMessage) {
        let body = message.body
        let url = message.frameInfo.url
        switch body["type"]?.stringValue {
        case "pending":
            // A document's first word replaces the last document's count; a late word of a
            // document left behind changes nothing.
            let document = body["doc"]?.stringValue ?? ""
            let count = body["count"]?.numberValue.flatMap { Int(javaScriptNumber: $0) } ?? 0
            let start = body["start"]?.boolValue == true
            WebKitRun.pagePending.withLock { pending in
                if start || pending.document == document { pending = (document, max(0, count)) }
            }
        case "console":
            let level = ConsoleMessage.Level(rawValue: body["level"]?.stringValue ?? "log") ?? .log
            transcript.page(.console(ConsoleMessage(level: level, text: body["text"]?.stringValue ?? ""), url: url))
        case "error", "rejection":
            let error = ScriptError(
                kind: .exception, name: body["name"]?.stringValue ?? "Error", message: body["message"]?.stringValue ?? "",
                sourceURL: body["source"]?.stringValue, line: body["line"]?.numberValue.flatMap { Int(javaScriptNumber: $0) })
            let unhandled = body["type"] == "rejection"
            transcript.reporterReported(error, unhandledRejection: unhandled)
            transcript.page(.scriptError(error, unhandledRejection: unhandled, url: url))
        default:
            break
        }
    }
}
