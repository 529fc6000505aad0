import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Synchronization
import Testing

@testable import SessionBridgeHeadless

/// What the headless engine's workers own: a thread of their own, given back when
/// they end, and the pages' time limit over their scripts.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct PageWorkerTests {
    static let makeWorker = #"""
        const worker = source => new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
        const next = w => new Promise(resolve => { w.onmessage = event => resolve(event.data); });
        """#

    /// How many worker threads `store` counts once they have settled at `expected` (or after
    /// four seconds, whatever they are then).
    static func threads(of store: WebsiteDataStore, settlingAt expected: Int) async throws -> Int {
        for _ in 0..<400 where store.workerThreads.load(ordering: .relaxed) != expected {
            try await Task.sleep(for: .milliseconds(10))
        }
        return store.workerThreads.load(ordering: .relaxed)
    }

    /// A worker's endless loop holds up neither its page nor its page's thread: the page answers
    /// the app while the worker spins, the pages' time limit ends the loop (reported with the
    /// worker's URL), and the worker then answers the next message.
    @Test func aWorkersEndlessLoopHoldsUpNoPageAndEndsAtTheTimeLimit() async throws {
        let recorder = PageEventRecorder()
        let page = WebPage(
            configuration: WebPageConfiguration(
                eventHandler: recorder.handler, thread: EngineThread(name: "worker-page"), scriptTimeLimit: .seconds(2)))
        try await page.loadHTMLString("<title>workers</title>", baseURL: URL(string: "https://app.example/")!)
        func stops() -> [URL] {
            recorder.events.compactMap { event -> URL? in
                guard case .scriptError(let error, _, let url) = event, error.kind == .timeLimitExceeded else { return nil }
                return url
            }
        }
        _ = try await page.callAsyncJavaScript(
            Self.makeWorker + #"""
                window.spinner = worker(`onmessage = event => { if (event.data === "spin") { postMessage("spinning"); for (;;) {} } postMessage("still " + event.data); };`);
                const spinning = next(window.spinner);
                window.spinner.postMessage("spin");
                return await spinning;
                """#)
        // Were the worker on the page's thread, the page would answer only once the limit had
        // ended the loop, and the stop would be reported by then.
        #expect(try await page.evaluateJavaScript("1 + 1") == 2)
        #expect(stops().isEmpty)
        let answer = try await page.callAsyncJavaScript(
            """
            const answer = new Promise(resolve => { window.spinner.onmessage = event => resolve(event.data); });
            window.spinner.postMessage("here");
            return await answer;
            """)
        #expect(answer == "still here")
        #expect(stops().count == 1)
        #expect(stops().first?.absoluteString.hasPrefix("blob:https://app.example/") == true, "\(stops())")
        await page.close()
    }

    /// `terminate()` stops a worker whose script never returns at once, as WebKit does, rather
    /// than at the pages' time limit: its thread is given back well within a 60 s limit, and
    /// its stop is reported nowhere (it was asked for).
    @Test func terminateStopsAWorkersEndlessLoopAtOnce() async throws {
        let recorder = PageEventRecorder()
        let store = WebsiteDataStore.nonPersistent()
        let page = WebPage(
            configuration: WebPageConfiguration(websiteDataStore: store, eventHandler: recorder.handler, scriptTimeLimit: .seconds(60)))
        try await page.loadHTMLString("<title>workers</title>", baseURL: URL(string: "https://app.example/")!)
        _ = try await page.callAsyncJavaScript(
            Self.makeWorker + #"""
                window.spinner = worker(`onmessage = () => { postMessage("spinning"); for (;;) {} };`);
                const spinning = next(window.spinner);
                window.spinner.postMessage("spin");
                return await spinning;
                """#)
        #expect(try await Self.threads(of: store, settlingAt: 1) == 1)
        _ = try await page.evaluateJavaScript("window.spinner.terminate(); 1")
        // A third of the time limit, however loaded the machine: the stop waits for 100 ms of
        // the worker's CPU time at most.
        for _ in 0..<2000 where store.workerThreads.load(ordering: .relaxed) != 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(store.workerThreads.load(ordering: .relaxed) == 0)
        let stops = recorder.events.filter { event in
            if case .scriptError(let error, _, _) = event { return error.isStop }
            return false
        }
        #expect(stops.isEmpty)
        await page.close()
    }

    /// Each worker runs on a thread of its own, counted by its data store, and gives it back
    /// when it is terminated, when it closes itself, and when its document goes away.
    @Test func aWorkersThreadIsGivenBackWhenItEnds() async throws {
        let store = WebsiteDataStore.nonPersistent()
        let page = WebPage(configuration: WebPageConfiguration(websiteDataStore: store))
        try await page.loadHTMLString("<title>workers</title>", baseURL: URL(string: "https://app.example/")!)
        _ = try await page.callAsyncJavaScript(
            Self.makeWorker + #"""
                window.workers = [];
                for (let n = 0; n < 4; n++) {
                  const w = worker(`onmessage = event => { if (event.data === "close") close(); else postMessage(event.data); };`);
                  const answered = next(w);
                  w.postMessage(n);
                  await answered;
                  window.workers.push(w);
                }
                return 1;
                """#)
        #expect(try await Self.threads(of: store, settlingAt: 4) == 4)
        _ = try await page.callAsyncJavaScript("window.workers[0].terminate(); window.workers[1].postMessage('close'); return 1;")
        #expect(try await Self.threads(of: store, settlingAt: 2) == 2)
        try await page.loadHTMLString("<title>next</title>", baseURL: URL(string: "https://app.example/next")!)
        #expect(try await Self.threads(of: store, settlingAt: 0) == 0)
        await page.close()
    }

    /// A data store's pages run at most ``PageWorker/maximumPerDataStore`` workers at
    /// once (each is a thread in the app's process): a worker past them gets an `error` event,
    /// and the console says why; the others run.
    @Test func aDataStoresPagesRunABoundedNumberOfWorkers() async throws {
        let recorder = PageEventRecorder()
        let store = WebsiteDataStore.nonPersistent()
        let page = WebPage(configuration: WebPageConfiguration(websiteDataStore: store, eventHandler: recorder.handler))
        try await page.loadHTMLString("<title>workers</title>", baseURL: URL(string: "https://app.example/")!)
        let read = try await page.callAsyncJavaScript(
            Self.makeWorker + #"""
                const made = [];
                for (let n = 0; n < 20; n++) made.push(worker(`postMessage(1)`));
                const ends = await Promise.all(made.map(w => new Promise(resolve => { w.onmessage = () => resolve("ran"); w.onerror = () => resolve("refused"); })));
                window.made = made;
                return [ends.filter(end => end === "ran").length, ends.filter(end => end === "refused").length];
                """#)
        #expect(read == [.number(Double(PageWorker.maximumPerDataStore)), .number(Double(20 - PageWorker.maximumPerDataStore))])
        #expect(recorder.consoleLines.filter { $0.contains("Worker not started") }.count == 20 - PageWorker.maximumPerDataStore)
        _ = try await page.callAsyncJavaScript("window.made.forEach(w => w.terminate()); return 1;")
        #expect(try await Self.threads(of: store, settlingAt: 0) == 0)
        await page.close()
    }

    /// A shared worker runs while a document is connected to it: two pages' `SharedWorker`s
    /// share one thread, which is given back once the last of their documents has gone.
    @Test func aSharedWorkerEndsWithTheLastDocumentConnectedToIt() async throws {
        let store = WebsiteDataStore.nonPersistent()
        let first = WebPage(configuration: WebPageConfiguration(websiteDataStore: store))
        let second = WebPage(configuration: WebPageConfiguration(websiteDataStore: store))
        let server = try await ReferenceServer.start()
        defer { Task { try? await server.stop() } }
        server.serve(
            path: "/shared.js",
            body: "const ports = []; onconnect = event => { ports.push(event.ports[0]); event.ports[0].postMessage(ports.length); };",
            contentType: "text/javascript")
        for page in [first, second] {
            try await page.loadHTMLString("<title>shared</title>", baseURL: server.url("/"))
        }
        var counts: [ScriptValue] = []
        for page in [first, second] {
            counts.append(
                try await page.callAsyncJavaScript(
                    """
                    window.shared = new SharedWorker("/shared.js", "n");
                    return await new Promise(resolve => { window.shared.port.onmessage = event => resolve(event.data); });
                    """))
        }
        #expect(counts == [1, 2])
        #expect(try await Self.threads(of: store, settlingAt: 1) == 1)
        await first.close()
        #expect(try await Self.threads(of: store, settlingAt: 1) == 1)
        try await second.loadHTMLString("<title>next</title>", baseURL: server.url("/next"))
        #expect(try await Self.threads(of: store, settlingAt: 0) == 0)
        await second.close()
    }

    /// A data store's blob URLs are read only by contexts of the origin that made them, and go
    /// with the context that made them (or when revoked): none is left once the document and
    /// its worker have gone.
    @Test func blobURLsAreTheirOriginsAndGoWithTheirContext() async throws {
        let store = WebsiteDataStore.nonPersistent()
        let page = WebPage(configuration: WebPageConfiguration(websiteDataStore: store))
        let other = WebPage(configuration: WebPageConfiguration(websiteDataStore: store))
        try await page.loadHTMLString("<title>blobs</title>", baseURL: URL(string: "https://app.example/")!)
        try await other.loadHTMLString("<title>other</title>", baseURL: URL(string: "https://other.example/")!)
        let made = try await page.callAsyncJavaScript(
            Self.makeWorker + #"""
                window.kept = URL.createObjectURL(new Blob(["kept"]));
                URL.revokeObjectURL(URL.createObjectURL(new Blob(["revoked"])));
                window.w = worker(`onmessage = () => postMessage(URL.createObjectURL(new Blob(["the worker's"])));`);
                const answered = next(window.w);
                window.w.postMessage(0);
                return [window.kept, await answered];
                """#)
        // The worker's script's URL too.
        #expect(store.blobURLs.count == 3)
        guard case .array(let urls) = made else { throw ScriptError(kind: .exception, name: "Error", message: "\(made)") }
        let list = urls.compactMap(\.stringValue).map { "'\($0)'" }.joined(separator: ", ")
        let read = try await other.callAsyncJavaScript(
            "return await Promise.all([\(list)].map(url => fetch(url).then(() => 'read', e => e.name)))")
        #expect(read == ["TypeError", "TypeError"])
        _ = try await page.callAsyncJavaScript("window.w.terminate(); return 1")
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while store.blobURLs.count != 2, clock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(store.blobURLs.count == 2)
        try await page.loadHTMLString("<title>next</title>", baseURL: URL(string: "https://app.example/next")!)
        #expect(store.blobURLs.count == 0)
        await page.close()
        await other.close()
    }

    /// The ports a document and its worker entangle across their contexts are closed with
    /// them: none is left open in the data store once the document has gone.
    @Test func portsBetweenADocumentAndItsWorkerCloseWithThem() async throws {
        let store = WebsiteDataStore.nonPersistent()
        let page = WebPage(configuration: WebPageConfiguration(websiteDataStore: store))
        try await page.loadHTMLString("<title>ports</title>", baseURL: URL(string: "https://app.example/")!)
        let answers = try await page.callAsyncJavaScript(
            Self.makeWorker + #"""
                const w = worker(`const kept = []; onmessage = ({ data, ports: [port] }) => { kept.push(port); port.postMessage(data * 2); };`);
                const ask = n => new Promise(resolve => {
                  const channel = new MessageChannel();
                  channel.port1.onmessage = event => resolve(event.data);
                  w.postMessage(n, [channel.port2]);
                });
                return [await ask(1), await ask(2), await ask(3)];
                """#)
        #expect(answers == [2, 4, 6])
        #expect(store.messagePorts.openPipes == 3)
        try await page.loadHTMLString("<title>next</title>", baseURL: URL(string: "https://app.example/next")!)
        for _ in 0..<400 where store.messagePorts.openPipes != 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(store.messagePorts.openPipes == 0)
        await page.close()
    }

    /// A page waiting on its worker is not quiet: ``WebPage/runUntilQuiescent(timeout:)`` (the
    /// runner's end of a run) waits for the worker's work and for the page's handling of its
    /// answer; a worker that keeps a timer keeps its page busy, as the page's own timer would.
    @Test func aPageIsQuietOnlyOnceItsWorkersAre() async throws {
        let page = WebPage()
        try await page.loadHTMLString(
            """
            <script>
            const worker = new Worker(URL.createObjectURL(new Blob([
              "onmessage = event => setTimeout(() => postMessage(event.data + 1), 200);"])));
            worker.onmessage = event => { globalThis.answer = event.data; new Promise(resolve => setTimeout(resolve, 50)).then(() => { globalThis.done = true; }); };
            worker.postMessage(41);
            </script>
            """, baseURL: URL(string: "https://app.example/")!)
        #expect(await page.runUntilQuiescent(timeout: .seconds(30)))
        #expect(try await page.evaluateJavaScript("[globalThis.answer, globalThis.done]") == [42, true])
        _ = try await page.evaluateJavaScript(
            "globalThis.ticking = new Worker(URL.createObjectURL(new Blob(['setInterval(() => {}, 5);']))); 1")
        #expect(await page.runUntilQuiescent(timeout: .milliseconds(300)) == false)
        _ = try await page.evaluateJavaScript("globalThis.ticking.terminate(); 1")
        #expect(await page.runUntilQuiescent(timeout: .seconds(30)))
        await page.close()
    }
}
