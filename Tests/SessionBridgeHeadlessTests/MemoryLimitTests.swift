import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Synchronization
import Testing

@testable import SessionBridgeHeadless

/// A headless page with a memory limit is ended as WebKit ends a web process past its limit:
/// its running script is stopped, its document goes away, the end is reported, and the next
/// load works. The limit is the process's resident memory (the tests' process here), set some
/// hundreds of megabytes above what it holds when the test starts.
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct MemoryLimitTests {
    final class Ends: NavigationDelegate {
        let reasons = Mutex<[WebContentProcessTerminationReason]>([])
        func webPage(_ page: any WebView, webContentProcessDidTerminate reason: WebContentProcessTerminationReason) async {
            reasons.withLock { $0.append(reason) }
        }
    }

    /// The process's resident memory in megabytes.
    static func residentMB() -> Int {
        // (Foundation reads a /proc file by its size, which is 0.)
        let data = FileHandle(forReadingAtPath: "/proc/self/statm")?.readDataToEndOfFile() ?? Data()
        let fields = String(decoding: data, as: UTF8.self).split(separator: " ")
        return fields.count > 1 ? ((Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))) >> 20 : 0
    }

    static func page(limitAbove headroomMB: Int, timeLimit: Duration = .seconds(120)) -> (WebPage, PageEventRecorder, Ends) {
        let recorder = PageEventRecorder()
        let ends = Ends()
        let page = WebPage(
            configuration: WebPageConfiguration(
                navigationDelegate: ends, eventHandler: recorder.handler, thread: EngineThread(name: "memory-limit"),
                scriptTimeLimit: timeLimit, memoryLimitMB: residentMB() + headroomMB))
        return (page, recorder, ends)
    }

    static func terminations(_ recorder: PageEventRecorder) -> [WebContentProcessTerminationReason] {
        recorder.events.compactMap { if case .webContentProcessTerminated(let reason, _) = $0 { reason } else { nil } }
    }

    @Test func aScriptThatAllocatesWithoutEndIsEndedAndItsDocumentWithIt() async throws {
        let (page, recorder, ends) = Self.page(limitAbove: 400)
        let url = URL(string: "https://app.example/grow.js")!
        // Under a time limit of two minutes only the memory limit can end it.
        try await page.loadScript("globalThis.held = []; for (;;) held.push(new Array(1 << 20).fill(1.5));", baseURL: url)
        // The page is not quiet before its end is reported (a runner that printed what the
        // page did once it was quiet left the end out).
        #expect(await page.runUntilQuiescent(timeout: .seconds(60)))
        #expect(recorder.scriptErrors.map(\.kind) == [.memoryLimitExceeded])
        #expect(Self.terminations(recorder) == [.exceededMemoryLimit])
        #expect(
            recorder.events.contains {
                if case .webContentProcessTerminated(_, let ended) = $0 { ended == url } else { false }
            })
        #expect(ends.reasons.withLock { $0 } == [.exceededMemoryLimit])
        // The document is gone: a new one runs, without what the old one held, for long enough
        // to be stopped and past a read of the process's memory (at most every 100 ms), though
        // the allocator did not hand all of the old document's memory back (the process stays
        // past the configured limit: a next document's script was stopped, and its page ended
        // again, when the limit did not count from there).
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await page.evaluateJavaScript("let sum = 0; for (let i = 0; i < 3e8; i++) sum += i; sum > 0") == true)
        #expect(try await page.evaluateJavaScript("typeof held") == "undefined")
        // A worker started now runs under the raised limit too.
        let workerSum = try await page.callAsyncJavaScript(
            """
            const source = "let sum = 0; for (let i = 0; i < 3e8; i++) sum += i; postMessage(sum > 0);";
            const worker = new Worker(URL.createObjectURL(new Blob([source])));
            return await new Promise(resolve => { worker.onmessage = event => resolve(event.data); worker.onerror = () => resolve("error"); });
            """)
        #expect(workerSum == true)
        #expect(recorder.scriptErrors.map(\.kind) == [.memoryLimitExceeded])
        try await page.loadScript("globalThis.fine = 40 + 2", baseURL: URL(string: "https://app.example/next.js")!)
        #expect(try await page.evaluateJavaScript("fine") == 42)
        #expect(Self.terminations(recorder).count == 1)
        await page.close()
    }

    /// A page whose document is being ended for its memory is not quiet until the end is
    /// reported: whoever waits for the page to be quiet, then reads what it did (the runner's
    /// transcript), sees the end. Asked while the script runs and again at once after each
    /// answer, the page never says it is quiet with the script stopped and the end unreported.
    @Test func thePageIsNotQuietBeforeItsEndIsReported() async throws {
        let (page, recorder, _) = Self.page(limitAbove: 400)
        let load = Task {
            _ = try await page.loadScript(
                "globalThis.held = []; for (;;) held.push(new Array(1 << 20).fill(1.5));",
                baseURL: URL(string: "https://app.example/grow.js")!)
        }
        var quietWithEndUnreported = 0
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        while Self.terminations(recorder).isEmpty, clock.now < deadline {
            guard await page.runUntilQuiescent(timeout: .seconds(1)) else { continue }
            if !recorder.scriptErrors.isEmpty && Self.terminations(recorder).isEmpty { quietWithEndUnreported += 1 }
        }
        try await load.value
        #expect(Self.terminations(recorder) == [.exceededMemoryLimit])
        #expect(quietWithEndUnreported == 0)
        await page.close()
    }

    /// A dedicated worker's scripts are under its page's memory limit: a worker that allocates
    /// without end is stopped, reported with its URL, and ended (its thread given back).
    @Test func aWorkerThatAllocatesWithoutEndIsEnded() async throws {
        let (page, recorder, _) = Self.page(limitAbove: 400)
        try await page.loadHTMLString("<title>worker</title>", baseURL: URL(string: "https://app.example/")!)
        _ = try await page.callAsyncJavaScript(
            """
            const source = "globalThis.held = []; postMessage('growing'); for (;;) held.push(new Array(1 << 20).fill(1.5));";
            const worker = new Worker(URL.createObjectURL(new Blob([source])));
            await new Promise(resolve => { worker.onmessage = resolve; });
            return 1;
            """)
        let store = page.configuration.websiteDataStore
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        while store.workerThreads.load(ordering: .relaxed) != 0, clock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(store.workerThreads.load(ordering: .relaxed) == 0)
        let stops = recorder.events.compactMap { event -> URL? in
            guard case .scriptError(let error, _, let url) = event, error.kind == .memoryLimitExceeded else { return nil }
            return url
        }
        #expect(stops.count == 1)
        #expect(stops.first?.scheme == "blob", "\(stops)")
        await page.close()
    }

    @Test func aPageThatGrowsInManyShortTasksIsEndedBetweenThem() async throws {
        let (page, recorder, _) = Self.page(limitAbove: 400)
        // Each task allocates 32 MB and returns: no single script runs long enough for the
        // watchdog's reading; the reading between scripts finds it.
        try await page.loadScript(
            "globalThis.held = []; setInterval(() => { held.push(new Array(4 << 20).fill(1.5)); }, 1);",
            baseURL: URL(string: "https://app.example/tasks.js")!)
        #expect(await page.runUntilQuiescent(timeout: .seconds(60)))
        #expect(Self.terminations(recorder) == [.exceededMemoryLimit])
        #expect(recorder.scriptErrors.map(\.kind) == [.memoryLimitExceeded])
        #expect(try await page.evaluateJavaScript("typeof held") == "undefined")
        await page.close()
    }

    /// The engine's side, without a page: the first script past the limit ends with
    /// `memoryLimitExceeded` and the context with it (its later entries are stopped before they
    /// run), the handler hears of it once, and a context without a limit on the same thread
    /// runs on.
    @Test func aContextPastItsMemoryLimitIsEndedAndTellsItsHandlerOnce() async throws {
        let thread = EngineThread(name: "memory-limit-context")
        let told = Mutex(0)
        let context = await ScriptContext(
            thread: thread,
            configuration: .init(
                timeLimit: .seconds(120), memoryLimit: MemoryLimit(bytes: (Self.residentMB() + 300) << 20),
                memoryLimitExceeded: { _ in told.withLock { $0 += 1 } }))
        let other = await ScriptContext(thread: thread, configuration: .init(timeLimit: .seconds(120)))
        do {
            _ = try await context.evaluate("globalThis.held = []; for (;;) held.push(new Array(1 << 20).fill(1.5));")
            Issue.record("the allocation loop returned")
        } catch {
            #expect(error.kind == .memoryLimitExceeded && error.isStop, "\(error)")
        }
        for source in ["1 + 1", "held.length = 0"] {
            await #expect("\(source)") { try await context.evaluate(source) } throws: { error in
                (error as? ScriptError)?.kind == .memoryLimitExceeded
            }
        }
        #expect(told.withLock { $0 } == 1)
        await context.close()
        #expect(try await other.evaluate("6 * 7") == 42)
        await other.close()
        thread.shutdown()
    }

    /// Contexts that share a limit share its raise, whenever they were made: a headless page's
    /// documents made ahead before a document's end run under the limit raised after it.
    @Test func aRaisedLimitHoldsForEveryContextThatSharesIt() async throws {
        let thread = EngineThread(name: "memory-limit-shared")
        // Below what the process holds already: an entry is stopped before it runs.
        let limit = MemoryLimit(bytes: max(1, Self.residentMB() - 16) << 20)
        let configuration = ScriptContext.Configuration(timeLimit: .seconds(120), memoryLimit: limit)
        let first = await ScriptContext(thread: thread, configuration: configuration)
        let madeAhead = await ScriptContext(thread: thread, configuration: configuration)
        await #expect { try await first.evaluate("1 + 1") } throws: { error in
            (error as? ScriptError)?.kind == .memoryLimitExceeded
        }
        limit.raise(to: (Self.residentMB() + 400) << 20)
        limit.raise(to: 1)  // never lowered
        #expect(limit.bytes > Self.residentMB() << 20)
        // Past the next read of the memory (at most every 100 ms of its CPU time).
        #expect(try await madeAhead.evaluate("let sum = 0; for (let i = 0; i < 3e8; i++) sum += i; sum > 0") == true)
        await first.close()
        await madeAhead.close()
        thread.shutdown()
    }

    @Test func theTimeLimitStillEndsAScriptUnderAMemoryLimit() async throws {
        // The watchdog wakes every 100 ms of CPU for the memory: it must still count the
        // entry's time as a whole, and leave a script within its limit alone.
        let (page, recorder, _) = Self.page(limitAbove: 4000, timeLimit: .milliseconds(300))
        try await page.loadScript("for (;;) {}", baseURL: URL(string: "https://app.example/loop.js")!)
        #expect(recorder.scriptErrors.map(\.kind) == [.timeLimitExceeded])
        let (patient, patientEvents, _) = Self.page(limitAbove: 4000, timeLimit: .seconds(60))
        // Busy for a second of wall time, ten quanta: only a miscount would stop it.
        try await patient.loadScript(
            "const end = Date.now() + 1000; let spins = 0; while (Date.now() < end) spins++; globalThis.done = true;",
            baseURL: URL(string: "https://app.example/busy.js")!)
        #expect(patientEvents.scriptErrors.isEmpty)
        #expect(try await patient.evaluateJavaScript("done") == true)
        #expect(Self.terminations(recorder).isEmpty && Self.terminations(patientEvents).isEmpty)
        await page.close()
        await patient.close()
    }
}
