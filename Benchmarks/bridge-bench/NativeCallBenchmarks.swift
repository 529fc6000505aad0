import CBaselines
import Foundation
import SessionBridgeScriptEngine

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
        for _ in 0...options.rounds {
            var ok: Int32 = 0
            unsafe c.append(Double(cb_native_call(Int64(n), &ok)) / Double(n))
            guard ok == 1 else { throw BenchFailure("C native call: wrong sum") }
            raw.append(try await time(context, "raw", n))
            converted.append(try await time(context, "converted", n))
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
    }

    private static func install(in context: isolated ScriptContext) throws {
        unsafe context.define(context.makeFunction { _, call in unsafe call[0] }, as: "raw")
        context.defineFunction("converted") { _, arguments in arguments.first ?? .undefined }
    }

    private static func time(_ context: ScriptContext, _ name: String, _ n: Int) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let sum = try await context.evaluate("(function (n) { let s = 0; for (let i = 0; i < n; i++) s += \(name)(1); return s; })(\(n))")
        let elapsed = clock.now - start
        guard sum == .number(Double(n)) else { throw BenchFailure("\(name): wrong sum") }
        return (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9) / Double(n)
    }
}
