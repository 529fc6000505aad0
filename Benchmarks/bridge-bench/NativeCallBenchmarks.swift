import CBaselines
import Foundation
import SessionBridgeScriptEngine
import Synchronization

/// Figure 0: one synchronous native call from JavaScript, `s += f(1)`, the cost under every
/// bridge call.
enum NativeCallBenchmarks {
    static func run(_ options: BenchOptions, into report: inout Report) async throws {
        guard options.selects("native") || options.selects("figure0") else { return }
        let figure = "0 native call from JS"
        let n = options.scale(2_000_000, quick: 200_000)
        let context = await ScriptContext(configuration: .init(timeLimit: nil))
        try await install(in: context)
        var raw: [Double] = [], converted: [Double] = [], c: [Double] = []
        var bodyRaw: [Double] = [], bodyOneCall: [Double] = [], bodyParts: [Double] = []
        var replyRaw: [Double] = [], replyMade: [Double] = []
        var logRecord: [Double] = [], logRealistic: [Double] = [], logMade: [Double] = [], logClocks: [Double] = []
        var taskStarted: [Double] = [], residentRead: [Double] = []
        let body = "({action: 'refresh', id: i, meta: {a: 1, b: 'x'}})"
        for _ in 0...options.rounds {
            var ok: Int32 = 0
            unsafe c.append(Double(cb_native_call(Int64(n), &ok)) / Double(n))
            guard ok == 1 else { throw BenchFailure("C native call: wrong sum") }
            raw.append(try await time(context, "raw", n))
            converted.append(try await time(context, "converted", n))
            bodyRaw.append(try await time(context, "raw", n / 4, argument: body))
            bodyOneCall.append(try await time(context, "readOneCall", n / 4, argument: body, sum: 0))
            bodyParts.append(try await time(context, "readParts", n / 4, argument: body, sum: 0))
            replyRaw.append(try await time(context, "raw", n / 4, argument: "1"))
            replyMade.append(try await time(context, "makeReply", n / 4, argument: "1"))
            taskStarted.append(try await time(context, "startTask", n / 4, argument: "1"))
            residentRead.append(residentMemoryRead(n / 200))
            let log = MessageLogBenchmarks.measure(n: n / 4)
            logRecord.append(log.record)
            logRealistic.append(log.realistic)
            logMade.append(log.made)
            logClocks.append(log.clocks)
        }
        await context.close()
        report.add(
            Row(
                figure: figure, name: "native function, raw values (package API the bridge uses)",
                ours: Stats.median(Array(raw.dropFirst())),
                baseline: Stats.median(Array(c.dropFirst())), unit: "ns/call",
                baselineName: "C: JSObjectMakeFunctionWithCallback returning argv[0]"))
        report.add(
            Row(
                figure: figure, name: "native function, ScriptValue in and out (public defineFunction)",
                ours: Stats.median(Array(converted.dropFirst())),
                baseline: Stats.median(Array(c.dropFirst())), unit: "ns/call", baselineName: "C: same"))
        // Where a structured body's time goes: the same call reading `{action, id, meta: {a, b}}`
        // into a ScriptValue, in one call into JavaScript (what the bridge does) or part by part
        // through the C API (the reader it replaced), against the call that reads nothing.
        let bodyBaseline = Stats.median(Array(bodyRaw.dropFirst()))
        report.add(
            Row(
                figure: figure, name: "realistic body read into a ScriptValue, one call into JavaScript (the bridge's reader)",
                ours: Stats.median(Array(bodyOneCall.dropFirst())), baseline: bodyBaseline, unit: "ns/call",
                baselineName: "the same call and body, nothing read"))
        report.add(
            Row(
                figure: figure, name: "realistic body read into a ScriptValue, part by part through the C API",
                ours: Stats.median(Array(bodyParts.dropFirst())), baseline: bodyBaseline, unit: "ns/call",
                baselineName: "the same call and body, nothing read"))
        // What making a reply costs: figure 3's `{ok, expiresAt}` made for JavaScript (a plain
        // object and its two members, named by kept property names), against the call alone.
        report.add(
            Row(
                figure: figure, name: "realistic reply {ok, expiresAt} made for JavaScript from a ScriptValue",
                ours: Stats.median(Array(replyMade.dropFirst())), baseline: Stats.median(Array(replyRaw.dropFirst())),
                unit: "ns/call", baselineName: "the same call, returning its argument"))
        // The floor of an async handler's round trip (figure 1): the task the bridge starts for
        // it, isolated to the page's context, run to its end inside the call (the handler never
        // suspends), against the call alone.
        report.add(
            Row(
                figure: figure, name: "a task started and finished inside the call (Task.immediate on the page's thread)",
                ours: Stats.median(Array(taskStarted.dropFirst())), baseline: Stats.median(Array(replyRaw.dropFirst())),
                unit: "ns/call", baselineName: "the same call, no task"))
        // What the message log costs a call: figure 1's log-on row without the round trip.
        report.add(
            Row(
                figure: figure, name: "message log: one call recorded (number body and reply, 1,000 kept)",
                ours: Stats.median(Array(logRecord.dropFirst())), baseline: Stats.median(Array(logClocks.dropFirst())),
                unit: "ns/call", baselineName: "two clock reads, the floor of a timed record"))
        // A page's memory limit (WebPageConfiguration.memoryLimitMB): the resident memory is
        // read every 100 ms of a script's CPU time, and at most every 100 ms between scripts.
        report.add(
            Row(
                figure: figure, name: "memory limit: the process's resident memory read (/proc/self/statm)",
                ours: Stats.median(Array(residentRead.dropFirst())), baseline: 100_000_000, unit: "ns/read",
                baselineName: "100 ms, how often a script under a memory limit reads it"))
        // The same with figure 3's body and reply (each made per call, as the bridge reads
        // them): what the log adds to the realistic round trip.
        report.add(
            Row(
                figure: figure, name: "message log: one call recorded (figure 3's body and reply, made per call, 1,000 kept)",
                ours: Stats.median(Array(logRealistic.dropFirst())), baseline: Stats.median(Array(logMade.dropFirst())),
                unit: "ns/call", baselineName: "the same body and reply made, nothing recorded"))
    }

    /// ns per reading of the process's resident memory, what a page's memory limit costs.
    private static func residentMemoryRead(_ n: Int) -> Double {
        let clock = ContinuousClock()
        var sink: UInt64 = 0
        let start = clock.now
        for _ in 0..<n { sink &+= ResidentMemory.bytes() ?? 0 }
        let elapsed = clock.now - start
        precondition(sink > 0, "no resident memory read")
        return elapsed / .nanoseconds(1) / Double(n)
    }

    /// The reply of figure 3's handler, made for JavaScript by ``makeReply``.
    static let reply: ScriptValue = ["ok": true, "expiresAt": 1_700_000_000_000]

    private static func install(in context: isolated ScriptContext) throws {
        unsafe context.define(context.makeFunction { _, call in unsafe call[0] }, as: "raw")
        context.defineFunction("converted") { _, arguments in arguments.first ?? .undefined }
        for (name, reader) in [("readOneCall", ObjectReader.oneCall), ("readParts", .partByPart)] {
            let function = unsafe context.makeFunction { context, call in
                _ = try unsafe context.scriptValue(call[0], reader: reader)
                return unsafe context.jsValue(.number(0))
            }
            unsafe context.define(function, as: name)
        }
        let makeReply = unsafe context.makeFunction { context, _ in unsafe context.jsValue(reply) }
        unsafe context.define(makeReply, as: "makeReply")
        // As the bridge starts an async handler: a task isolated to the context, which runs at
        // once on this thread and here ends, since it never suspends.
        let startTask = unsafe context.makeFunction { context, call in
            let answered = Answered()
            Task.immediate {
                _ = context
                answered.value.store(await answer(), ordering: .relaxed)
            }
            guard answered.value.load(ordering: .relaxed) == 1 else { throw BenchFailure("the task did not run inside the call") }
            return unsafe call[0]
        }
        unsafe context.define(startTask, as: "startTask")
    }

    /// What the task of ``install(in:)``'s `startTask` answers, where it is called.
    nonisolated(nonsending) private static func answer() async -> Int { 1 }

    /// The answer of a task started inside a native call, read after the task's start returned.
    private final class Answered: Sendable {
        let value = Atomic<Int>(0)
    }

    private static func time(
        _ context: ScriptContext, _ name: String, _ n: Int, argument: String? = nil, sum expected: Double? = nil
    ) async throws -> Double {
        // `s += f(1)`; with a body, `s += f(body) ? 1 : 0` (the functions that read return 0).
        let term = argument.map { "(\(name)(\($0)) ? 1 : 0)" } ?? "\(name)(1)"
        let clock = ContinuousClock()
        let start = clock.now
        let sum = try await context.evaluate(
            "(function (n) { let s = 0; for (let i = 0; i < n; i++) s += \(term); return s; })(\(n))")
        let elapsed = clock.now - start
        guard sum == .number(expected ?? Double(n)) else { throw BenchFailure("\(name): wrong sum") }
        return (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9) / Double(n)
    }
}
