import CBaselines
import SessionBridgeScriptEngine

/// Figure 10: what the time limit's checks cost a page's WebAssembly (``WebAssemblyStopChecks``
/// in the engine). The same module, compiled in a page (with the checks) and in a plain
/// JavaScriptCore context of the C API (without them), both under the pages' 10 s limit, each
/// call timed inside JavaScript after a warm-up call that lets it tier up; fresh contexts each
/// round, the two interleaved.
enum WebAssemblyBenchmarks {
    /// One measured call: the export, its warm-up argument, its argument, and what it is.
    struct Workload {
        let export: String
        let warmUp: Int
        let argument: Int
        let name: String
    }

    static func run(_ options: BenchOptions, into report: inout Report) async throws {
        guard options.selects("wasm") || options.selects("figure10") else { return }
        let figure = "10 WebAssembly under the time limit"
        let workloads = [
            Workload(
                export: "count", warmUp: 1_000_000, argument: options.scale(300_000_000, quick: 30_000_000),
                name: "a loop of two instructions (`i++` while `i < n`), \(options.quick ? 30 : 300) M turns"),
            Workload(
                export: "fib", warmUp: 20, argument: options.quick ? 28 : 34,
                name: "a recursion that does little else, fib(\(options.quick ? 28 : 34)): \(options.quick ? "0.8" : "18") M calls"),
            Workload(
                export: "sumsq", warmUp: 1_000_000, argument: options.scale(300_000_000, quick: 30_000_000),
                name: "a loop calling a small function of its module's (`sq(i)`), \(options.quick ? 30 : 300) M calls"),
            Workload(
                export: "checksum", warmUp: 10, argument: options.scale(2_000, quick: 200),
                name: "a loop with work in it: FNV-1a over 64 KB of memory, \(options.quick ? 200 : 2_000) times"),
        ]
        var ours = [[Double]](repeating: [], count: workloads.count)
        var c = [[Double]](repeating: [], count: workloads.count)
        for _ in 0...options.rounds {
            for (index, workload) in workloads.enumerated() {
                let source = script(workload)
                var ok: Int32 = 0
                let baseline = unsafe cb_js_evaluate_number(source, 10, &ok)
                guard ok == 1 else { throw BenchFailure("C: \(workload.export) did not run") }
                c[index].append(baseline)
                let context = await ScriptContext(configuration: .init(timeLimit: .seconds(10)))
                guard case .number(let elapsed) = try await context.evaluate(source) else {
                    throw BenchFailure("\(workload.export) gave no time")
                }
                await context.close()
                ours[index].append(elapsed)
            }
        }
        for (index, workload) in workloads.enumerated() {
            let mine = Array(ours[index].dropFirst()), theirs = Array(c[index].dropFirst())
            report.add(
                Row(
                    figure: figure, name: workload.name, ours: Stats.median(mine), baseline: Stats.median(theirs), unit: "ms",
                    baselineName: "C: the same module in a plain JavaScriptCore context (no checks), same limit",
                    ratio: sameRoundRatio(mine, theirs)))
        }
    }

    /// A script that compiles ``module``, warms `workload`'s export up and returns how many
    /// milliseconds one call with its argument took.
    static func script(_ workload: Workload) -> String {
        """
        (() => {
          const exports = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array([\(module.map(String.init).joined(separator: ","))]))).exports;
          exports.\(workload.export)(\(workload.warmUp));
          const start = Date.now();
          exports.\(workload.export)(\(workload.argument));
          return Date.now() - start;
        })()
        """
    }

    /// `count(n)`, `fib(n)`, `checksum(rounds)` and `sumsq(n)` (which calls `sq`, not exported),
    /// each `(i32) -> i32`, and one page of memory.
    static let module: [UInt8] = {
        func leb(_ value: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            bytes.appendLEB(UInt32(value))
            return bytes
        }
        func signed(_ value: Int32) -> [UInt8] {
            var bytes: [UInt8] = []
            bytes.appendSignedLEB(value)
            return bytes
        }
        func section(_ id: UInt8, _ entries: [[UInt8]]) -> [UInt8] {
            let contents = leb(entries.count) + entries.flatMap { $0 }
            return [id] + leb(contents.count) + contents
        }
        func name(_ text: String) -> [UInt8] { leb(text.utf8.count) + Array(text.utf8) }
        func body(_ locals: [UInt8], _ code: [UInt8]) -> [UInt8] {
            let contents = locals + code + [0x0b]
            return leb(contents.count) + contents
        }
        // (local $i i32) (loop (br_if 0 (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n)))) $i
        let count = body([1, 1, 0x7f], [0x03, 0x40, 0x20, 1, 0x41, 1, 0x6a, 0x22, 1, 0x20, 0, 0x49, 0x0d, 0, 0x0b, 0x20, 1])
        // (if (result i32) (i32.lt_u $n 2) (then $n) (else (i32.add (fib (- $n 1)) (fib (- $n 2)))))
        let fib = body(
            [0],
            [
                0x20, 0, 0x41, 2, 0x49, 0x04, 0x7f, 0x20, 0, 0x05, 0x20, 0, 0x41, 1, 0x6b, 0x10, 1, 0x20, 0, 0x41, 2, 0x6b, 0x10, 1, 0x6a,
                0x0b,
            ])
        // $h = offset basis; each round: $p from 0 to 65536: $h = ($h ^ load8_u $p) * prime
        let checksum = body(
            [1, 2, 0x7f],
            [0x41] + signed(-2_128_831_035) + [0x21, 1, 0x03, 0x40, 0x41, 0, 0x21, 2, 0x03, 0x40, 0x20, 1, 0x20, 2, 0x2d, 0, 0, 0x73, 0x41]
                + signed(16_777_619) + [0x6c, 0x21, 1, 0x20, 2, 0x41, 1, 0x6a, 0x22, 2, 0x41] + signed(65_536)
                + [0x49, 0x0d, 0, 0x0b, 0x20, 0, 0x41, 1, 0x6b, 0x22, 0, 0x0d, 0, 0x0b, 0x20, 1])
        // (local $i i32) (local $sum i32) (loop: $sum += sq($i); $i += 1; br_if $i < $n) $sum
        let sumsq = body(
            [1, 2, 0x7f],
            [0x03, 0x40, 0x20, 2, 0x20, 1, 0x10, 4, 0x6a, 0x21, 2, 0x20, 1, 0x41, 1, 0x6a, 0x22, 1, 0x20, 0, 0x49, 0x0d, 0, 0x0b, 0x20, 2])
        let sq = body([0], [0x20, 0, 0x20, 0, 0x6c])
        return [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00] + section(1, [[0x60, 1, 0x7f, 1, 0x7f]])
            + section(3, [[0], [0], [0], [0], [0]]) + section(5, [[0, 1]])
            + section(7, [name("count") + [0, 0], name("fib") + [0, 1], name("checksum") + [0, 2], name("sumsq") + [0, 3]])
            + section(10, [count, fib, checksum, sumsq, sq])
    }()
}
