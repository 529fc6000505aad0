import Foundation

/// How a run is configured from the command line.
struct BenchOptions: Sendable {
    /// A fast smoke run: small N, two rounds.
    var quick = false
    /// Print JSON instead of a table.
    var json = false
    /// Print the report as the README's Markdown table.
    var markdown = false
    /// Run only the groups whose name contains one of these (case-insensitive).
    var filters: [String] = []
    /// Interleaved rounds per figure; the median is reported.
    var rounds = 5

    /// `full` in a normal run, `quick` in a smoke run.
    func scale(_ full: Int, quick: Int) -> Int { self.quick ? quick : full }

    func selects(_ name: String) -> Bool {
        filters.isEmpty || filters.contains { name.lowercased().contains($0.lowercased()) }
    }
}

/// Nanoseconds in a `Duration`.
extension Duration {
    var nanoseconds: Double {
        Double(components.seconds) * 1e9 + Double(components.attoseconds) * 1e-9
    }
}

/// Times `body` with `ContinuousClock` and returns nanoseconds.
@inline(never)
func timeNanoseconds(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return (clock.now - start).nanoseconds
}

/// Order statistics of a sample.
enum Stats {
    static func median(_ values: [Double]) -> Double {
        percentile(values, 0.5)
    }

    /// The `p` quantile (0...1), by linear interpolation between closest ranks.
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let position = p * Double(sorted.count - 1)
        let low = Int(position.rounded(.down)), high = Int(position.rounded(.up))
        let fraction = position - Double(low)
        return sorted[low] + (sorted[high] - sorted[low]) * fraction
    }
}

/// A benchmark that failed its own correctness check (a wrong sum, a failed parse).
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `cases` for `rounds` interleaved rounds (every case once per round, in order, so machine
/// noise hits all alike) and returns each case's per-round results, in case order.
func interleaved(rounds: Int, _ cases: [() async throws -> Double]) async throws -> [[Double]] {
    var results = Array(repeating: [Double](), count: cases.count)
    for _ in 0..<rounds {
        for (index, body) in cases.enumerated() {
            results[index].append(try await body())
        }
    }
    return results
}

/// The median over rounds of `ours[i] / baseline[i]` (ratios taken within each round).
func sameRoundRatio(_ ours: [Double], _ baseline: [Double]) -> Double {
    Stats.median(zip(ours, baseline).map { $0 / $1 })
}
