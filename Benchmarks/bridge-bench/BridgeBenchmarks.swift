import CBaselines
import Dispatch
import SessionBridgeScriptEngine

/// Figures 1–3: bridge round trips against the raw JavaScriptCore C API in the same process.
///
/// Where the time goes (perf, figure 3, before the changes that followed): the body's conversion
/// to a `ScriptValue` tree was a fifth of all samples, and half of that was UTF-16 transcoding of
/// ASCII keys and values (now narrowed directly); `Task.immediate` and its enqueue were most of a
/// plain async handler's extra cost; the message log's redaction copied every body (it now
/// returns a value without secrets as it is). Holding the VM's API lock across a native call's
/// body took the realistic body from 6.5–7.0x to 3.7–5.8x raw C in an A/B of one commit.
///
/// Later (perf with `BRIDGE_BENCH_ONLY`, one contender at a time): reading the realistic body
/// was half of its round trip, some 65 C API calls at about 40 ns each; it is now one call into
/// JavaScript (`ValueWalker`, figure 0 has both readers), 5.3 → 4.5 µs log off. With the log on,
/// redaction's key hashing was 7% of the samples; keys are now told apart by length and first
/// letter first. The plain round trip's profile is flat (the trampoline, the JSC lock, a deferred
/// promise, `ScriptMessage` copies): no single cost above 5%.
///
/// Later still (perf, figures 0 and 3): a bare native call cost 330 ns against C's 80-110 ns.
/// A sixth of it was `assumeIsolated` (the task's executor looked up, the context retained, a
/// non-escaping closure checked); the weak reference from each function to its context gave
/// every context a side table, so each retain and release of it took the slow path. The
/// trampoline now checks the thread and calls the body directly, and the function holds its
/// context unowned (the context owns it): 190-245 ns. The walker made three closures and a
/// path record per walk; it now reuses them (a nested walk gets its own): the realistic body's
/// read, 2.7-3.1 → 2.3-2.7 µs. What remains of the realistic body is the read itself: with the
/// body not read at all (a throwaway build reading only `id` through the C API, as C does), the
/// round trip was 1.7x C log off and 2.1x log on; the full read into a `ScriptValue` tree
/// (the walker's JavaScript, about 1 µs, and building the tree, about 0.8 µs) is the other
/// half. JavaScriptCore has no structured clone in its C API, and WebKit reads the whole body
/// too.
///
/// Later again (perf, figures 1 and 3, one contender at a time): a tenth of the plain round
/// trip's samples were outlined copies of Swift values: the handler's registration (name,
/// world, handler, options), the message's frame and world, and the log entry's strings, each
/// copied per call; now one reference each (a registration class, a route per document and
/// handler, a log source per document and handler). The log's own share was its two clock
/// reads, the entry's `Date` made by dividing two 128-bit durations (now made when the log is
/// read), and a secret check that made a closure holding a copy of the policy at every level of
/// a body (now plain loops): log on, 1,656-1,664 → 1,273-1,440 ns. A C probe put the rest of
/// the floor: a native function made from a class costs 30 ns a call more than
/// `JSObjectMakeFunctionWithCallback`, and taking the API lock for the body 35 ns (each C API
/// call inside then saves about 30 ns).
///
/// Figure 2 (perf, one contender at a time): an async handler resumed by another thread takes
/// four thread hops where C takes two. The handler's task prefers no executor, so the
/// nonisolated `await` it makes runs on the concurrency pool (a wake-up), the continuation the
/// worker resumes is enqueued on the pool again (`swift_task_enqueueGlobalImpl`, a second
/// wake-up), and only then does the task hop to the page's thread. Starting the handler's task
/// with the page's thread as its task executor preference (SE-0417) removed both pool hops (worker
/// 1.79 → 1.71x, DispatchQueue 1.90 → 1.42x, actor 1.09 → 0.64x, in one pair of runs) but
/// cost every handler that does not suspend its inline start: `Task.immediate` with a preference
/// always switches executors first (the job it starts in runs on a serial executor, whose
/// tracking has no task executor), so the plain async row went from 2.2-4.7 to 5.5-12 µs.
/// Giving the preference to immediate handlers' async path only made the refresh cycle slower
/// (the session's actor then ran on the page's thread). Neither was kept. What was kept is a
/// handler kind with no task at all, WebKit's `replyHandler` form
/// (`ScriptMessageHandlerWithReplyHandler`): the worker calls the reply, which queues one job
/// on the page's thread: 1.19x the C hop with one call in flight.
///
/// Later (perf, figure 3, one contender at a time; the profile flat, no symbol above 4%): the
/// reply `{ok, expiresAt}` was set member by member through JavaScriptCore strings made and
/// released per member, where the C baseline makes its two names once: about 170 ns a name
/// (a C probe: the reply through fresh names 850 ns, through kept ones 485 ns). Names are now
/// kept (`PropertyNames`); figure 0 prints the reply's making, 717 → 433 ns above the bare call
/// (medians of seven alternating runs). What is left of the realistic round trip, by shared
/// object: JavaScriptCore about half (the walker's JavaScript, the promise, the lock), Swift
/// about two fifths (the `ScriptValue` trees, reference counts, the log's record and redaction
/// walk), libc the rest. The log's record is 6-8% of the samples with the log on: its two clock
/// reads (about 30 ns each here), its record's copies into and out of the deque, the redaction
/// walk over five keys.
///
/// Later (figure 0's task row): what an async handler that never suspends costs beyond an
/// immediate one is the task the bridge starts for it. A task isolated to the page's context,
/// started inside a native call with `Task.immediate` and run to its end there, costs 550-1,000
/// ns above the call alone in runs of figure 0 (the same with a nonisolated task): about the
/// whole C round trip without a limit (447-700 ns), so that the async rows without a limit
/// cannot come within 2x C while each call has a task. The reply-handler form and immediate
/// handlers have none.
///
/// Later (figure 2's 64 in flight, perf of the reply-handler row alone, and counters in both
/// workers, a temporary probe): the page's thread is busy the whole run; the worker is not.
/// The worker drains its queue faster than the page fills it, so it sleeps, and the page's next
/// post wakes it: a `futex` wake of an idle vCPU, 4-5 µs paid by the page's thread on this VM.
/// The worker slept once every 3.6 calls, C's once every 17: the slower the page's thread is
/// per call, the more often the worker runs dry, so each microsecond taken off the page's side
/// takes more than itself off the row. The wake-ups were a fifth to a quarter of the page's
/// thread, its post (without the wake) another fifth, and each reply's way back a quarter: a
/// timer and a closure per reply, made by the worker and run by the page's thread one at a
/// time. Replies sent from other threads now go through the document's reply inbox
/// (`ScriptContextInbox`): one lock per reply for the worker, and one job on the page's thread
/// for every reply sent before it runs (each still settled with its own microtask checkpoint):
/// 143-166k → 173-180k calls/s in three alternating pairs. What is left is spread thin: the
/// deferred promise and its two protected functions, dictionary lookups of the pending call, the
/// log, the settle. The first table had the actor row at 1.59x; that was before the
/// bench's actor did any work (the optimizer had removed the hop to it, see `ReplyActor`).
///
/// Later (figure 3's log on against off, then figure 0's new row for the log with figure 3's
/// body and reply, `BRIDGE_BENCH_ONLY=log` for its loops alone): the log costs the realistic
/// round trip 0.7-0.9 µs, about the same with a log that keeps nothing (capacity 0), so not
/// the kept trees' release a thousand calls later. The record alone costs 0.3-0.4 µs of it, in
/// the same proportion whatever the capacity; the rest did not show in one symbol. The
/// redaction's walk copied each member out of its enum (a retain and a release per node) and
/// called the key check per key, which read every byte of the key to know it was ASCII. It now
/// borrows the value, reads members by index, and decides most keys inline from the string's
/// own ASCII flag, its length and its first byte: the record with figure 3's values, 396 → 343
/// → 286 ns above making them (medians of ten alternating runs at each step).
///
/// Later (figure 0's one-call read, four alternating pairs of release runs): refusing a `Proxy`
/// as WebKit does costs the walker's reads a check per object read in JavaScript, two C API
/// calls each (the object out of the walk's record, its own prototype): the realistic body's
/// two objects, -72, +90, +78 and +379 ns on 2.5-3.4 µs, about 80 ns at the median.
enum BridgeBenchmarks {
    /// How long the JS thread of the C hop baseline polls before blocking: the same as
    /// `EngineThread.defaultSpin`, which the bridge's documents run on.
    static let engineSpin = EngineThread.defaultSpin

    static func run(_ options: BenchOptions, into report: inout Report) async throws {
        let thread = EngineThread(name: "bench-js")
        defer { thread.shutdown() }
        if options.selects("roundtrip") || options.selects("figure1") {
            try await figure1(options, thread: thread, into: &report)
        }
        if options.selects("hop") || options.selects("figure2") {
            try await figure2(options, thread: thread, into: &report)
        }
        if options.selects("realistic") || options.selects("figure3") {
            try await figure3(options, thread: thread, into: &report)
        }
    }

    /// 1. `await postMessage(i)` to a handler that replies without suspending.
    static func figure1(_ options: BenchOptions, thread: EngineThread, into report: inout Report) async throws {
        let figure = "1 round trip, sync reply"
        let n = options.scale(200_000, quick: 20_000)
        let raw = try RawJSBench(CB_JS_SYNC, body: .number)
        // Pages run with an execution time limit (10 s by default): the same rows with it, on
        // a thread of their own (a thread's VM has one limit), against C with the same limit.
        let limited = EngineThread(name: "bench-js-limited")
        defer { limited.shutdown() }
        let rawLimited = try RawJSBench(CB_JS_SYNC, body: .number, timeLimit: .seconds(10))
        let documents = [
            try await BridgeDocument.make(handler: BenchHandlers.immediate(), body: .number, log: true, thread: thread),
            try await BridgeDocument.make(handler: BenchHandlers.immediate(), body: .number, log: false, thread: thread),
            try await BridgeDocument.make(handler: BenchHandlers.plainAsync(), body: .number, log: true, thread: thread),
            try await BridgeDocument.make(handler: BenchHandlers.plainAsync(), body: .number, log: false, thread: thread),
            try await BridgeDocument.make(
                handler: BenchHandlers.immediate(), body: .number, log: true, thread: limited, timeLimit: .seconds(10)),
            try await BridgeDocument.make(
                handler: BenchHandlers.immediate(), body: .number, log: false, thread: limited, timeLimit: .seconds(10)),
            try await BridgeDocument.make(
                handler: BenchHandlers.plainAsync(), body: .number, log: true, thread: limited, timeLimit: .seconds(10)),
        ]
        let c = "C (a) deferred promise resolved inline; ours without an execution time limit, like C (a)"
        let cLimited = "C (a) with a 10 s execution time limit; ours with the same limit, as pages have"
        let results = try await RoundTripResults.measure(
            [
                Contender(c, raw: raw),
                Contender("immediate+log", document: documents[0]),
                Contender("immediate", document: documents[1]),
                Contender("async+log", document: documents[2]),
                Contender("async", document: documents[3]),
                Contender(cLimited, raw: rawLimited),
                Contender("limited immediate+log", document: documents[4]),
                Contender("limited immediate", document: documents[5]),
                Contender("limited async+log", document: documents[6]),
            ], n: n, lanes: 1, rounds: options.rounds)
        report.add(
            results.latencyRow(
                figure, "ImmediateScriptMessageHandler, MessageLog on (default)", ours: "immediate+log", baseline: c, goal: 1.5))
        report.add(results.latencyRow(figure, "ImmediateScriptMessageHandler, log: nil", ours: "immediate", baseline: c, goal: 1.5))
        report.add(
            results.latencyRow(figure, "plain async handler (Task.immediate), MessageLog on", ours: "async+log", baseline: c, goal: 2))
        report.add(results.latencyRow(figure, "plain async handler (Task.immediate), log: nil", ours: "async", baseline: c, goal: 2))
        report.add(
            results.latencyRow(
                figure, "ImmediateScriptMessageHandler, MessageLog on, 10 s time limit", ours: "limited immediate+log", baseline: cLimited,
                goal: 1.5))
        report.add(
            results.latencyRow(
                figure, "ImmediateScriptMessageHandler, log: nil, 10 s time limit", ours: "limited immediate", baseline: cLimited, goal: 1.5
            ))
        report.add(
            results.latencyRow(
                figure, "plain async handler (Task.immediate), MessageLog on, 10 s time limit", ours: "limited async+log",
                baseline: cLimited, goal: 2))
        for document in documents { await document.close() }
    }

    /// 2. A handler that suspends and replies from another thread.
    static func figure2(_ options: BenchOptions, thread: EngineThread, into report: inout Report) async throws {
        let figure = "2 round trip, reply from another thread"
        let worker = ReplyWorker()
        defer { worker.stop() }
        let queue = DispatchQueue(label: "bench-reply")
        let replyActor = ReplyActor()
        let rawSpin = try RawJSBench(CB_JS_HOP, body: .number, jsSpin: engineSpin)
        let rawBlock = try RawJSBench(CB_JS_HOP, body: .number)
        let rawBothSpin = try RawJSBench(CB_JS_HOP, body: .number, jsSpin: engineSpin, workerSpin: engineSpin)
        let documents = [
            try await BridgeDocument.make(handler: BenchHandlers.workerThread(worker), body: .number, thread: thread),
            try await BridgeDocument.make(handler: BenchHandlers.dispatchQueue(queue), body: .number, thread: thread),
            try await BridgeDocument.make(handler: BenchHandlers.actor(replyActor), body: .number, thread: thread),
            try await BridgeDocument.make(replyHandler: BenchHandlers.workerReplyHandler(worker), body: .number, thread: thread),
            try await BridgeDocument.make(handler: BenchHandlers.workerThreadWaitingWhereCalled(worker), body: .number, thread: thread),
        ]
        let c = "C (b) worker hop, JS thread spins 50µs, worker blocks"
        let cBlock = "C hop, both threads block (no spin)"
        let cSpin = "C hop, both threads spin 50µs"
        let contenders = [
            Contender(c, raw: rawSpin), Contender(cBlock, raw: rawBlock), Contender(cSpin, raw: rawBothSpin),
            Contender("worker", document: documents[0]), Contender("dispatch", document: documents[1]),
            Contender("actor", document: documents[2]), Contender("reply handler", document: documents[3]),
            Contender("worker, nonsending wait", document: documents[4]),
        ]
        let one = try await RoundTripResults.measure(contenders, n: options.scale(20_000, quick: 2_000), lanes: 1, rounds: options.rounds)
        report.add(one.latencyRow(figure, "1 in flight: continuation resumed by a worker thread", ours: "worker", baseline: c, goal: 1.5))
        report.add(
            one.latencyRow(
                figure, "1 in flight: the same, the handler's wait nonisolated(nonsending)", ours: "worker, nonsending wait", baseline: c,
                goal: 1.5))
        report.add(one.latencyRow(figure, "1 in flight: continuation resumed on a DispatchQueue", ours: "dispatch", baseline: c))
        report.add(one.latencyRow(figure, "1 in flight: await on an actor (global executor)", ours: "actor", baseline: c))
        report.add(
            one.latencyRow(
                figure, "1 in flight: reply handler called by a worker thread (no task)", ours: "reply handler", baseline: c, goal: 1.5))
        report.add(one.referenceRow(figure, "1 in flight: C hop, no spin anywhere", cBlock))
        report.add(one.referenceRow(figure, "1 in flight: C hop, both sides spin", cSpin))
        let many = try await RoundTripResults.measure(
            contenders, n: options.scale(200_000, quick: 20_000), lanes: 64, rounds: options.rounds)
        report.add(many.throughputRow(figure, "64 in flight: worker thread", ours: "worker", baseline: c, goal: 1.5))
        report.add(
            many.throughputRow(
                figure, "64 in flight: worker thread, the handler's wait nonisolated(nonsending)", ours: "worker, nonsending wait",
                baseline: c))
        report.add(many.throughputRow(figure, "64 in flight: DispatchQueue", ours: "dispatch", baseline: c))
        report.add(many.throughputRow(figure, "64 in flight: actor", ours: "actor", baseline: c, goal: 1.1))
        report.add(
            many.throughputRow(
                figure, "64 in flight: reply handler called by a worker thread", ours: "reply handler", baseline: c, goal: 1.5))
        report.add(many.referenceRow(figure, "64 in flight: C hop, no spin anywhere", cBlock, rate: true))
        report.add(many.referenceRow(figure, "64 in flight: C hop, both sides spin", cSpin, rate: true))
        for document in documents { await document.close() }
    }

    /// 3. Figures 1 and 2 with the realistic body in and `{ok, expiresAt}` out.
    static func figure3(_ options: BenchOptions, thread: EngineThread, into report: inout Report) async throws {
        let figure = "3 realistic body {action,id,meta} -> {ok,expiresAt}"
        let worker = ReplyWorker()
        defer { worker.stop() }
        let rawSync = try RawJSBench(CB_JS_STRUCT, body: .refresh)
        let rawHop = try RawJSBench(CB_JS_HOP_STRUCT, body: .refresh, jsSpin: engineSpin)
        // The same rows with the pages' execution time limit, against C with the same limit
        // (as in figure 1).
        let limited = EngineThread(name: "bench-js-limited")
        defer { limited.shutdown() }
        let rawLimited = try RawJSBench(CB_JS_STRUCT, body: .refresh, timeLimit: .seconds(10))
        let documents = [
            try await BridgeDocument.make(handler: BenchHandlers.immediate(), body: .refresh, log: true, thread: thread),
            try await BridgeDocument.make(handler: BenchHandlers.immediate(), body: .refresh, log: false, thread: thread),
            try await BridgeDocument.make(handler: BenchHandlers.plainAsync(), body: .refresh, log: true, thread: thread),
            try await BridgeDocument.make(handler: BenchHandlers.workerThread(worker), body: .refresh, thread: thread),
            try await BridgeDocument.make(
                handler: BenchHandlers.immediate(), body: .refresh, log: true, thread: limited, timeLimit: .seconds(10)),
            try await BridgeDocument.make(
                handler: BenchHandlers.immediate(), body: .refresh, log: false, thread: limited, timeLimit: .seconds(10)),
            try await BridgeDocument.make(
                handler: BenchHandlers.plainAsync(), body: .refresh, log: true, thread: limited, timeLimit: .seconds(10)),
        ]
        let c = "C (c) 2 gets + JSObjectMake + 2 sets, inline"
        let cLimited = "C (c) with a 10 s execution time limit; ours with the same limit, as pages have"
        let cHop = "C (b)+(c) worker hop, JS thread spins 50µs"
        let sync = try await RoundTripResults.measure(
            [
                Contender(c, raw: rawSync),
                Contender("immediate+log", document: documents[0]), Contender("immediate", document: documents[1]),
                Contender("async+log", document: documents[2]),
                Contender(cLimited, raw: rawLimited),
                Contender("limited immediate+log", document: documents[4]), Contender("limited immediate", document: documents[5]),
                Contender("limited async+log", document: documents[6]),
            ], n: options.scale(200_000, quick: 20_000), lanes: 1, rounds: options.rounds)
        report.add(sync.latencyRow(figure, "immediate handler, MessageLog on", ours: "immediate+log", baseline: c, goal: 2))
        report.add(sync.latencyRow(figure, "immediate handler, log: nil", ours: "immediate", baseline: c, goal: 2))
        report.add(sync.latencyRow(figure, "plain async handler, MessageLog on", ours: "async+log", baseline: c))
        report.add(
            sync.latencyRow(
                figure, "immediate handler, MessageLog on, 10 s time limit", ours: "limited immediate+log", baseline: cLimited, goal: 2))
        report.add(
            sync.latencyRow(figure, "immediate handler, log: nil, 10 s time limit", ours: "limited immediate", baseline: cLimited, goal: 2))
        report.add(
            sync.latencyRow(figure, "plain async handler, MessageLog on, 10 s time limit", ours: "limited async+log", baseline: cLimited))
        let hop = [Contender(cHop, raw: rawHop), Contender("worker", document: documents[3])]
        let one = try await RoundTripResults.measure(hop, n: options.scale(20_000, quick: 2_000), lanes: 1, rounds: options.rounds)
        report.add(one.latencyRow(figure, "1 in flight: worker thread reply", ours: "worker", baseline: cHop, goal: 1.5))
        let many = try await RoundTripResults.measure(hop, n: options.scale(200_000, quick: 20_000), lanes: 64, rounds: options.rounds)
        report.add(many.throughputRow(figure, "64 in flight: worker thread reply", ours: "worker", baseline: cHop, goal: 1.5))
        for document in documents { await document.close() }
    }
}
