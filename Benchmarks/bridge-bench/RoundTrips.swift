import Foundation

/// One thing timed in a round-trip figure: runs `n` round trips in `lanes` lanes and returns
/// nanoseconds per round trip.
struct Contender {
    let name: String
    let run: (_ n: Int, _ lanes: Int) async throws -> Double

    init(_ name: String, _ run: @escaping (_ n: Int, _ lanes: Int) async throws -> Double) {
        self.name = name
        self.run = run
    }

    init(_ name: String, raw bench: RawJSBench) {
        self.init(name) { n, lanes in try bench.run(n, lanes: lanes) }
    }

    init(_ name: String, document: BridgeDocument) {
        self.init(name) { n, lanes in try await document.run(n, lanes: lanes) }
    }
}

/// Per-round results (ns per round trip) of contenders run in interleaved rounds, after one
/// untimed warm-up of `n / 2` round trips each.
struct RoundTripResults {
    private var results: [String: [Double]] = [:]

    static func measure(_ contenders: [Contender], n: Int, lanes: Int, rounds: Int) async throws -> RoundTripResults {
        // For profiling one path (perf, callgrind): only the contenders whose name contains it.
        let contenders =
            profiledContender.map { only in
                let exact = contenders.filter { $0.name == only }
                return exact.isEmpty ? contenders.filter { $0.name.contains(only) } : exact
            } ?? contenders
        for contender in contenders { _ = try await contender.run(max(lanes, n / 2), lanes) }
        let perRound = try await interleaved(
            rounds: rounds,
            contenders.map { contender in
                { try await contender.run(n, lanes) }
            })
        var measured = RoundTripResults()
        for (contender, values) in zip(contenders, perRound) { measured.results[contender.name] = values }
        return measured
    }

    /// A row of ns per call, ours against a baseline, with the same-round ratio.
    func latencyRow(_ figure: String, _ name: String, ours: String, baseline: String, goal: Double? = nil, note: String? = nil) -> Row {
        let o = results[ours] ?? [], b = results[baseline] ?? []
        let ratio = sameRoundRatio(o, b)
        return Row(
            figure: figure, name: name, ours: Stats.median(o), baseline: Stats.median(b), unit: "ns/call",
            baselineName: baseline, ratio: ratio, goal: goal.map { "≤\(formatGoal($0))x" },
            goalMet: goal.map { ratio <= $0 }, note: note)
    }

    /// A row of calls per second, ours against a baseline; the ratio is the cost ratio.
    func throughputRow(_ figure: String, _ name: String, ours: String, baseline: String, goal: Double? = nil, note: String? = nil) -> Row {
        let o = results[ours] ?? [], b = results[baseline] ?? []
        let ratio = sameRoundRatio(o, b)
        return Row(
            figure: figure, name: name, ours: 1e9 / Stats.median(o), baseline: 1e9 / Stats.median(b), unit: "calls/s",
            baselineName: baseline, ratio: ratio, goal: goal.map { "≤\(formatGoal($0))x" },
            goalMet: goal.map { ratio <= $0 }, note: note)
    }

    /// A baseline-only row for reference (another C variant).
    func referenceRow(_ figure: String, _ name: String, _ contender: String, rate: Bool = false) -> Row {
        let value = Stats.median(results[contender] ?? [])
        return Row(
            figure: figure, name: name, ours: nil, baseline: rate ? 1e9 / value : value,
            unit: rate ? "calls/s" : "ns/call", baselineName: contender, note: "reference variant of the C baseline")
    }
}

/// `BRIDGE_BENCH_ONLY`: runs only the round-trip contender of that name
/// (or those whose name contains it) (for a
/// profiler; the other rows of its figure print as missing).
let profiledContender = ProcessInfo.processInfo.environment["BRIDGE_BENCH_ONLY"]

func formatGoal(_ goal: Double) -> String {
    goal == goal.rounded() ? String(Int(goal)) : String(goal)
}
