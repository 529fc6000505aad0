import Foundation
import SessionBridgeScriptEngine

// bridge-bench: SessionBridge's figures next to their baselines, measured in one process.
// Nothing here fails because a machine is slow: goals are reported, never asserted.

let usage = """
    usage: bridge-bench [--quick] [--json | --markdown] [--filter NAME]... [--rounds N]
      --quick        a fast smoke run (small N, 2 rounds)
      --json         print the report as JSON
      --markdown     print the report as the README's Markdown table
      --filter NAME  run only groups whose name contains NAME: roundtrip (figure1), hop (figure2),
                     realistic (figure3), native (figure0), parse (figure4), lookup (figure5), refresh (figure6),
                     memory (figure7), store (figure8), webkit (figure9), wasm (figure10); repeatable
      --rounds N     interleaved rounds per figure (default 5, quick 2); the median is reported
    environment: BRIDGE_BENCH_ONLY=NAME runs only the round-trip contenders whose name contains NAME
    (for a profiler), BRIDGE_BENCH_ONLY=webkit or webkit-c only figure 9's round trip, ours or C's, 20 times,
    BRIDGE_BENCH_ONLY=log only figure 0's message-log loops (no JavaScriptCore, for callgrind), =jar only figure 4's jar;
    BRIDGE_BENCH_CALLERS=N runs only figure 6's full cycle with N callers, 400 times (with BRIDGE_BENCH_DURABLE=1
    in an app's stores, with BRIDGE_BENCH_ON_PAGE=1 driven by code isolated to the page's actor, with
    BRIDGE_BENCH_PAGE_NAVIGATES=1 the page navigating itself, with its stages)
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("\(message)\n\(usage)\n".utf8))
    exit(2)
}

func parseArguments() -> BenchOptions {
    var options = BenchOptions()
    var arguments = CommandLine.arguments.dropFirst()
    var rounds: Int?
    while let argument = arguments.popFirst() {
        switch argument {
        case "--quick": options.quick = true
        case "--json": options.json = true
        case "--markdown": options.markdown = true
        case "--filter":
            guard let name = arguments.popFirst() else { fail("--filter needs a name") }
            options.filters.append(name)
        case "--rounds":
            guard let text = arguments.popFirst(), let value = Int(text), value > 0 else { fail("--rounds needs a positive number") }
            rounds = value
        case "-h", "--help":
            print(usage)
            exit(0)
        default: fail("unknown argument \(argument)")
        }
    }
    options.rounds = rounds ?? (options.quick ? 2 : 5)
    return options
}

/// Runs every selected group; a group that fails is noted and the others still run.
func runAll(_ options: BenchOptions, machine: [String: String]) async -> Report {
    var report = Report()
    report.machine = machine
    func progress(_ text: String) {
        if !options.json { FileHandle.standardError.write(Data("bridge-bench: \(text)\n".utf8)) }
    }
    let started = ContinuousClock.now
    // Memory first: its resident-memory deltas are cleanest before other figures churn the heap.
    do {
        progress("memory (figure 7)")
        try await MemoryBenchmarks.run(options, into: &report)
    } catch {
        report.notes.append("memory figures failed: \(error)")
    }
    do {
        progress("native call (figure 0)")
        try await NativeCallBenchmarks.run(options, into: &report)
    } catch {
        report.notes.append("native-call figure failed: \(error)")
    }
    do {
        progress("round trips (figures 1-3)")
        try await BridgeBenchmarks.run(options, into: &report)
    } catch {
        report.notes.append("round-trip figures failed: \(error)")
    }
    do {
        progress("cookies (figures 4-5)")
        try await CookieBenchmarks.run(options, into: &report)
    } catch {
        report.notes.append("cookie figures failed: \(error)")
    }
    do {
        progress("refresh cycle (figure 6)")
        try await RefreshBenchmarks.run(options, into: &report)
    } catch {
        report.notes.append("refresh figure failed: \(error)")
    }
    do {
        progress("persistent store (figure 8)")
        try StoreBenchmarks.run(options, into: &report)
    } catch {
        report.notes.append("store figure failed: \(error)")
    }
    do {
        progress("WebKit engine (figure 9)")
        try await WebKitBenchmarks.run(options, into: &report)
    } catch {
        report.notes.append("WebKit figures failed: \(error)")
    }
    do {
        progress("WebAssembly under the time limit (figure 10)")
        try await WebAssemblyBenchmarks.run(options, into: &report)
    } catch {
        report.notes.append("WebAssembly figure failed: \(error)")
    }
    do {
        progress("module scripts (figure 11)")
        try await ModuleBenchmarks.run(options, into: &report)
    } catch {
        report.notes.append("module figures failed: \(error)")
    }
    report.notes.append(String(format: "whole run took %.1f s", (ContinuousClock.now - started).nanoseconds / 1e9))
    return report
}

let options = parseArguments()
if ProcessInfo.processInfo.environment["BRIDGE_BENCH_ONLY"] == "log" {
    // Figure 0's message-log loops alone, no JavaScriptCore: small enough for callgrind.
    let figures = MessageLogBenchmarks.measure(n: options.scale(200_000, quick: 20_000))
    print("record, number body: \(figures.record) ns; realistic: \(figures.realistic) ns, its values made alone: \(figures.made) ns")
    exit(0)
}
if ProcessInfo.processInfo.environment["BRIDGE_BENCH_ONLY"] == "jar" {
    // Figure 4's jar loop alone (parse + store, then the parse alone), for a profiler.
    let figures = CookieBenchmarks.jarAlone(passes: options.scale(2_000, quick: 200))
    print("CookieJar.setCookie: \(figures.jar) ns/header; SetCookieParser.parse: \(figures.parse) ns/header")
    exit(0)
}
// The JavaScriptCore options SessionBridge sets before the process's first VM, set here before
// any figure runs: the C baselines share the process, so they run with the same options.
_ = JavaScriptCoreSettings.applied
var machine = Machine.describe()
machine["javascriptcore options"] = JavaScriptCoreSettings.options.map { name, value in
    let isBoolean = value == "true" || value == "false"
    let inEffect =
        isBoolean
        ? JavaScriptCoreSettings.booleanValue(of: name).map(String.init) : JavaScriptCoreSettings.integerValue(of: name).map(String.init)
    return "\(name)=\(inEffect ?? "?")"
}.joined(separator: " ")
if !options.json && !options.markdown {
    for key in machine.keys.sorted() { print("\(key): \(machine[key]!)") }
    print(
        "rounds: \(options.rounds) interleaved, medians\(options.quick ? " (quick)" : "");",
        "ratio = our cost / baseline cost, taken within each round (above 1 is slower)")
    print("")
}
let report = await runAll(options, machine: machine)
if options.json {
    report.printJSON()
} else if options.markdown {
    report.printMarkdown(rounds: options.rounds)
} else {
    report.printTable()
}
