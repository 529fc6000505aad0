import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Synchronization
import Testing

@testable import SessionBridgeHeadless

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct BadPageTests {
    @Test func syntaxErrorsAndUncaughtExceptionsAreReportedAndLaterScriptsStillRun() async throws {
        let recorder = PageEventRecorder()
        let page = WebPage(configuration: WebPageConfiguration(eventHandler: recorder.handler))
        try await page.loadHTMLString(
            """
            <script>function (</script>
            <script>throw new RangeError('boom')</script>
            <script>var survived = true</script>
            """, baseURL: URL(string: "https://app.example/bad")!)
        #expect(recorder.scriptErrors.map(\.name) == ["SyntaxError", "RangeError"])
        #expect(recorder.scriptErrors.allSatisfy { $0.sourceURL == "https://app.example/bad" })
        #expect(try await page.evaluateJavaScript("survived") == true)
        await page.close()
    }

    @Test func infiniteLoopIsEndedByTheTimeLimit() async throws {
        let recorder = PageEventRecorder()
        let page = WebPage(
            configuration: WebPageConfiguration(
                eventHandler: recorder.handler, thread: EngineThread(name: "time-limit"), scriptTimeLimit: .milliseconds(200)))
        let clock = ContinuousClock()
        let start = clock.now
        try await page.loadScript("while (true) {}", baseURL: URL(string: "https://app.example/loop.js")!)
        // The limit counts CPU time; the bound only proves the loop ended (a busy machine is slow).
        #expect(clock.now - start < .seconds(120))
        #expect(recorder.scriptErrors.map(\.kind) == [.timeLimitExceeded])
        #expect(try await page.evaluateJavaScript("1 + 1") == 2)
        await page.close()
    }

    /// An uncaught exception reaches the window's `error` listeners first: one that never
    /// returns is ended by the time limit, which is reported once, and the next script runs.
    /// Closing a page whose script never returns stops that script at once, as WebKit ends
    /// the web process of a view it closes, not at the time limit: the pages sharing its thread
    /// run on, and the stop is no error of the page's.
    @Test func closingAPageStopsItsEndlessScriptAtOnce() async throws {
        let recorder = PageEventRecorder()
        let thread = EngineThread(name: "closing")
        let page = WebPage(
            configuration: WebPageConfiguration(eventHandler: recorder.handler, thread: thread, scriptTimeLimit: .seconds(60)))
        let neighbour = WebPage(configuration: WebPageConfiguration(thread: thread))
        try await neighbour.loadHTMLString("<title>next door</title>", baseURL: URL(string: "https://other.example/")!)
        let loading = Task {
            try await page.loadScript("console.log('spinning'); for (;;) {}", baseURL: URL(string: "https://app.example/spin.js")!)
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while !recorder.events.contains(where: { if case .console = $0 { true } else { false } }), clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        // The script runs; its page closes.
        let start = clock.now
        await page.close()
        // Within a third of the limit (the stop comes within 100 ms of its CPU time).
        #expect(clock.now - start < .seconds(20))
        _ = await loading.result
        #expect(recorder.scriptErrors.isEmpty)
        #expect(try await neighbour.evaluateJavaScript("document.title") == "next door")
        await neighbour.close()
    }

    @Test func anErrorListenerThatNeverReturnsIsEndedAndReportedOnce() async throws {
        let recorder = PageEventRecorder()
        let page = WebPage(
            configuration: WebPageConfiguration(
                eventHandler: recorder.handler, thread: EngineThread(name: "error-listener"), scriptTimeLimit: .milliseconds(200)))
        try await page.loadHTMLString(
            """
            <script>addEventListener("error", () => { for (;;) {} });</script>
            <script>throw new Error("first")</script>
            <script>var after = true</script>
            """, baseURL: URL(string: "https://app.example/listener")!)
        #expect(recorder.scriptErrors.map(\.kind) == [.timeLimitExceeded])
        #expect(try await page.evaluateJavaScript("after") == true)
        await page.close()
    }

    /// What a `FinalizationRegistry` callback throws reaches the window's `error` listeners and
    /// the app, as in WebKit (JavaScriptCore only printed it to standard error).
    @Test func whatAFinalizationCallbackThrowsReachesTheErrorListeners() async throws {
        let recorder = PageEventRecorder()
        let page = WebPage(
            configuration: WebPageConfiguration(eventHandler: recorder.handler, thread: EngineThread(name: "finalizer-error")))
        try await page.loadHTMLString(
            """
            <script>
            var seen = [];
            addEventListener("error", event => seen.push(event.error.message));
            var registry = new FinalizationRegistry(held => { throw new Error("finalizer " + held); });
            (function () { for (let i = 0; i < 20; i++) registry.register({ payload: new Array(64).fill(i) }, i); })();
            </script>
            """, baseURL: URL(string: "https://app.example/finalizer")!)
        let context = try await page.context()
        var seen = 0.0
        for _ in 0..<100 where seen == 0 {
            await context.collectGarbage()
            _ = try await page.callAsyncJavaScript("await new Promise(resolve => setTimeout(resolve, 10));")
            seen = try await page.evaluateJavaScript("seen.length").numberValue ?? 0
        }
        #expect(seen > 0, "no finalizer's error reached the listener after 100 collections")
        #expect(try await page.evaluateJavaScript("seen.every(message => message.startsWith('finalizer '))") == true)
        #expect(recorder.scriptErrors.contains { $0.message.hasPrefix("finalizer ") })
        await page.close()
    }

    @Test func redirectLoopIsAnError() async throws {
        try await withServer { server in
            let page = WebPage()
            await #expect { try await page.load(server.url("/redirect-loop")) } throws: { error in
                (error as? PageError)?.code == .redirectLoop
            }
            await page.close()
        }
    }

    @Test func connectionClosedMidBodyIsANetworkError() async throws {
        try await withServer { server in
            server.serve(path: "/doc.html", body: String(repeating: "<p>some text</p>", count: 4000), contentType: "text/html")
            server.setFaults(FaultConfiguration(routes: .pages, closeMidBody: true))
            let page = WebPage()
            await #expect { try await page.load(server.url("/doc.html")) } throws: { error in
                (error as? PageError)?.code == .network
            }
            await page.close()
        }
    }

    @Test func unreachableServerIsANetworkError() async throws {
        let refusing = try RefusingPort()
        let page = WebPage()
        await #expect { try await page.load(URL(string: "http://127.0.0.1:\(refusing.port)/nothing")!) } throws: { error in
            (error as? PageError)?.code == .network
        }
        await page.close()
        withExtendedLifetime(refusing) {}
    }

    /// A restricted port (the Fetch Standard's bad ports) is refused before anything is sent,
    /// as WebKit refuses it: the load, the page's `fetch`, and the console says why.
    @Test func aRestrictedPortIsRefusedBeforeAnythingIsSent() async throws {
        let console = Mutex<[String]>([])
        let page = WebPage(
            configuration: WebPageConfiguration(eventHandler: { event in
                if case .console(let message, _) = event { console.withLock { $0.append(message.text) } }
            }))
        await #expect { try await page.load(URL(string: "http://127.0.0.1:25/")!) } throws: { error in
            (error as? PageError)?.code == .restrictedPort
        }
        try await page.loadHTMLString("<p>ports</p>", baseURL: URL(string: "http://127.0.0.1:8/")!)
        let failed = try await page.callAsyncJavaScript(
            #"return await fetch("http://127.0.0.1:6667/irc").then(() => "loaded", error => error.name + ": " + error.message);"#)
        #expect(failed == "TypeError: Load failed")
        #expect(console.withLock { $0 }.contains("Not allowed to use restricted network port 6667: http://127.0.0.1:6667/irc"))
        await page.close()
    }

    /// A body that decodes to far more than it weighs (a gzip "bomb": 400 KB that decode to
    /// 64 MB of zeros, sent whether asked or not) ends at the page's `maxResponseBytes` of decoded
    /// bytes, as a body that large uncompressed does.
    @Test func aCompressedBodyIsLimitedByWhatItDecodesTo() async throws {
        try await withServer { server in
            server.serve(
                path: "/bomb.js", bytes: Self.gzipOfZeros(64 << 20), contentType: "text/javascript", headers: ["Content-Encoding": "gzip"])
            let page = WebPage()
            await #expect { try await page.load(server.url("/bomb.js")) } throws: { error in
                (error as? PageError)?.code == .responseTooLarge
            }
            await page.close()
        }
    }

    /// A gzip member of `count` zero bytes (a multiple of 258): deflate with fixed Huffman codes,
    /// a literal zero and then copies of 258 bytes at distance 1. Its CRC is left 0: a client
    /// that stops at its limit never reaches it.
    static func gzipOfZeros(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        var accumulator = 0, filled = 0
        // Deflate packs bits from the least significant; Huffman codes go most significant first.
        func put(_ value: Int, _ width: Int, huffman: Bool) {
            for i in 0..<width {
                let bit = huffman ? (value >> (width - 1 - i)) & 1 : (value >> i) & 1
                accumulator |= bit << filled
                filled += 1
                if filled == 8 {
                    bytes.append(UInt8(accumulator))
                    accumulator = 0
                    filled = 0
                }
            }
        }
        put(1, 1, huffman: false)  // the last block
        put(1, 2, huffman: false)  // fixed Huffman codes
        put(0x30, 8, huffman: true)  // the literal 0
        for _ in 0..<((count - 1) / 258) {
            put(0xC5, 8, huffman: true)  // length 258 (code 285)
            put(0, 5, huffman: true)  // distance 1 (code 0)
        }
        put(0, 7, huffman: true)  // end of block (code 256)
        if filled > 0 { bytes.append(UInt8(accumulator)) }
        let size = UInt32(truncatingIfNeeded: 1 + (count - 1) / 258 * 258)
        bytes += [0, 0, 0, 0] + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) }
        return bytes
    }

    @Test func tenMegabyteScriptEndsCleanly() async throws {
        try await withServer { server in
            let big = "var big = '" + String(repeating: "x", count: 10 << 20) + "';"
            server.serve(path: "/big.js", body: big, contentType: "text/javascript")
            let page = WebPage()
            await #expect { try await page.load(server.url("/big.js")) } throws: { error in
                (error as? PageError)?.code == .responseTooLarge
            }
            let roomy = WebPage(configuration: WebPageConfiguration(maxResponseBytes: 16 << 20))
            try await roomy.load(server.url("/big.js"))
            #expect(try await roomy.evaluateJavaScript("big.length") == .number(Double(10 << 20)))
            await page.close()
            await roomy.close()
        }
    }
}
