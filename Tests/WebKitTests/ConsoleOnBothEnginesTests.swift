import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import SessionBridgeWebKit
import Testing

/// What a page's console gets that no script wrote, side by side: WebKit's own lines (a policy's
/// refusal, a blocked port) and a script's uncaught exceptions and unhandled rejections reach
/// the view's events on both engines. On WebKit they come from its web process, through
/// ``WebProcessExtension``, for a persistent store's views.
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct ConsoleOnBothEnginesTests {
    @Test func theWebProcessExtensionIsFoundBesideTheTests() {
        let path = WebProcessExtension.libraryPath
        #expect(path?.hasSuffix("/" + WebProcessExtension.fileName) == true, "\(path ?? "not found")")
    }

    @Test(arguments: Engine.allCases)
    func webKitsOwnLinesAndUncaughtErrorsAreReported(engine: Engine) async throws {
        try await withSite { other in
            let page = """
                <script>
                console.log("from the console API", 2);
                fetch("http://127.0.0.1:9/blocked").catch(() => {});
                setTimeout(() => { throw new TypeError("thrown by a timer"); }, 0);
                Promise.reject(new RangeError("never handled"));
                </script>
                <script src="\(other.baseURL.absoluteString)/csp/run.js?n=other"></script>
                """
            try await withSite(pages: ["/page": page]) { home in
                try await EngineHarness.with(engine, signIn: false) { harness in
                    // WebKit reports no console of a non-persistent store's views.
                    let view = try await harness.makeView(session: false, webKitStore: try Self.persistentStore())
                    let policy = "script-src 'self' 'unsafe-inline'"
                    let url = URL(string: home.url("/page").absoluteString + "?csp=" + ContentSecurityOnBothEnginesTests.encoded(policy))!
                    _ = try await view.load(url)
                    let deadline = ContinuousClock.now + .seconds(10)
                    // Four reports: two lines, and two errors (on WebKit, two more lines).
                    while ContinuousClock.now < deadline, Self.reports(harness) < 4 {
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    let lines = Self.lines(harness)
                    #expect(
                        lines.contains {
                            $0.level == .error && $0.text.hasPrefix("Refused to load")
                                && $0.text.contains("\(other.baseURL.absoluteString)/csp/run.js?n=other") && $0.text.contains("script-src")
                        }, "\(engine): \(lines)")
                    #expect(
                        lines.contains { $0.level == .error && $0.text.contains("Not allowed to use restricted network port 9") },
                        "\(engine): \(lines)")
                    // The headless page reports its uncaught errors as such; WebKit's lines for
                    // them do not say what they are (`throw "text"` writes `text`), and come as lines.
                    let errors = Self.errors(harness.recorder.events)
                    switch engine {
                    case .headless:
                        #expect(
                            errors.contains { !$0.unhandled && $0.error.name == "TypeError" && $0.error.message == "thrown by a timer" },
                            "\(errors)")
                        #expect(
                            errors.contains { $0.unhandled && $0.error.name == "RangeError" && $0.error.message == "never handled" },
                            "\(errors)")
                    case .webkit:
                        #expect(errors.isEmpty, "\(errors)")
                        #expect(lines.contains { $0.level == .error && $0.text == "TypeError: thrown by a timer" }, "\(lines)")
                        #expect(
                            lines.contains { $0.level == .error && $0.text == "Unhandled Promise Rejection: RangeError: never handled" },
                            "\(lines)")
                    }
                    // The console API's own lines: the headless page reports them whole. WebKit
                    // keeps only a call's first argument, and its line is not reported.
                    let api = Self.texts(of: lines, startingWith: "from the console API")
                    #expect(api == (engine == .headless ? ["from the console API 2"] : []), "\(engine): \(lines)")
                }
            }
        }
    }

    /// A load that fails gets WebKit's line on both engines: an answer with an error status
    /// (a `fetch`, an `XMLHttpRequest`, a script, a navigation), and a refused connection; an
    /// aborted `fetch` and answers below 400 get none.
    @Test(arguments: Engine.allCases)
    func failedLoadsGetWebKitsLine(engine: Engine) async throws {
        let refusing = try RefusingPort()
        let page = """
            <script>
            fetch("/status/404").then(() => {});
            fetch("/status/204").then(() => {});
            fetch("/status/500", {signal: AbortSignal.abort()}).catch(() => {});
            const request = new XMLHttpRequest(); request.open("GET", "/status/418"); request.send();
            fetch("http://127.0.0.1:\(refusing.port)/refused").catch(() => {});
            </script>
            <script src="/status/403"></script>
            """
        try await withSite(pages: ["/page": page]) { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeView(session: false, webKitStore: try Self.persistentStore())
                _ = try await view.load(home.url("/page"))
                // The page's loads are not part of its `load` event: the next navigation waits
                // for their four lines, or it would cancel those still in flight.
                try await Self.waitForFailedLoads(4, harness)
                _ = try? await view.load(home.url("/status/503"))
                try await Self.waitForFailedLoads(5, harness)
                try await Task.sleep(for: .milliseconds(300))
                let expected = [
                    "Failed to load resource: Could not connect to 127.0.0.1: Connection refused",
                    "Failed to load resource: the server responded with a status of 403 (Forbidden)",
                    "Failed to load resource: the server responded with a status of 404 (Not Found)",
                    "Failed to load resource: the server responded with a status of 418 (I'm a teapot)",
                    "Failed to load resource: the server responded with a status of 503 (Service Unavailable)",
                ]
                #expect(Self.failedLoads(harness).sorted() == expected, "\(engine)")
            }
        }
    }

    static func waitForFailedLoads(_ count: Int, _ harness: EngineHarness) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, failedLoads(harness).count < count {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static func failedLoads(_ harness: EngineHarness) -> [String] {
        lines(harness).filter { $0.level == .error && $0.text.hasPrefix("Failed to load resource") }.map(\.text)
    }

    /// A persistent WebKit store in a fresh directory.
    @WebKitActor static func persistentStore() throws -> WebKitWebsiteDataStore {
        try WebKitWebsiteDataStore(directory: temporaryDirectory())
    }

    // Closures of this file's tests that are not in an `#expect` are made here: in the test
    // itself, the Swift 6.2 compiler called the closure of an `#expect` above one in their stead
    // (`lines.filter { … }` kept the lines of another predicate), a miscompile of closures
    // beside macro expansions.

    /// The errors and error-level lines reported so far.
    static func reports(_ harness: EngineHarness) -> Int {
        errors(harness.recorder.events).count + lines(harness).filter { $0.level == .error }.count
    }

    static func texts(of lines: [ConsoleMessage], startingWith prefix: String) -> [String] {
        lines.map(\.text).filter { $0.hasPrefix(prefix) }
    }

    static func lines(_ harness: EngineHarness) -> [ConsoleMessage] {
        harness.recorder.events.compactMap { event in
            if case .console(let message, _) = event { return message }
            return nil
        }
    }

    static func errors(_ events: [PageEvent]) -> [(error: ScriptError, unhandled: Bool)] {
        events.compactMap { event in
            if case .scriptError(let error, let unhandled, _) = event { return (error, unhandled) }
            return nil
        }
    }
}
