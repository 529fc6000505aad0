import Foundation

/// One line of the report: a figure, our value, the baseline's, and their ratio.
struct Row: Codable, Sendable {
    /// The figure number and name, e.g. `"1 bridge round trip"`.
    var figure: String
    /// What this row measures.
    var name: String
    /// Our value (nil for a baseline-only reference row).
    var ours: Double?
    /// The baseline's value.
    var baseline: Double?
    /// What the values count, e.g. `"ns/call"`, `"calls/s"`, `"MB"`.
    var unit: String
    /// What the baseline is.
    var baselineName: String?
    /// The cost ratio, ours / baseline (for rates: baseline / ours), so above 1 means slower.
    var ratio: Double?
    /// The goal, e.g. `"≤1.5x"`, and whether this run meets it.
    var goal: String?
    var goalMet: Bool?
    /// Anything a reader must know (stand-ins, labels).
    var note: String?
}

/// Collects rows and prints them as a table or as JSON.
struct Report: Sendable {
    var machine: [String: String] = [:]
    var rows: [Row] = []
    var notes: [String] = []

    mutating func add(_ row: Row) { rows.append(row) }

    func printJSON() {
        struct Document: Codable {
            var machine: [String: String]
            var rows: [Row]
            var notes: [String]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = (try? encoder.encode(Document(machine: machine, rows: rows, notes: notes))) ?? Data()
        print(String(decoding: data, as: UTF8.self))
    }

    func printTable() {
        let header = ["figure", "measure", "ours", "baseline", "ratio", "goal", "baseline is / note"]
        var lines: [[String]] = [header]
        var lastFigure = ""
        for row in rows {
            let figure = row.figure == lastFigure ? "" : row.figure
            lastFigure = row.figure
            let goal =
                row.goal.map { goal in
                    goal + (row.goalMet.map { $0 ? " met" : " NOT met" } ?? "")
                } ?? ""
            let detail = [row.baselineName, row.note].compactMap { $0 }.joined(separator: "; ")
            lines.append([
                figure, row.name, format(row.ours, row.unit), format(row.baseline, row.unit),
                row.ratio.map { String(format: "%.2fx", $0) } ?? "", goal, detail,
            ])
        }
        let widths = (0..<header.count - 1).map { column in lines.map { $0[column].count }.max() ?? 0 }
        for (index, line) in lines.enumerated() {
            var text = ""
            for column in 0..<header.count - 1 {
                let cell = line[column]
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                text += (column >= 2 && column <= 4 ? pad + cell : cell + pad) + "  "
            }
            print(text + line[header.count - 1])
            if index == 0 { print(String(repeating: "-", count: widths.reduce(0, +) + 2 * widths.count + 20)) }
        }
        for note in notes { print("note: " + note) }
    }

    /// Prints the rows as the Markdown table the README's Performance section holds: the
    /// machine, then every row with its baseline and ratio from this run.
    func printMarkdown(rounds: Int) {
        let keys = ["build", "cpu", "nproc", "javascriptcore", "libsoup", "load average"]
        let described = keys.compactMap { key in machine[key].map { "\(key) \($0)" } }
        print("Medians of \(rounds) interleaved rounds; \(described.joined(separator: ", ")).")
        print("")
        print("| figure | measure | ours | baseline (same run) | ratio | goal |")
        print("|---|---|---:|---|---:|---|")
        var lastFigure = ""
        for row in rows {
            let figure = row.figure == lastFigure ? "" : row.figure
            lastFigure = row.figure
            let goal = row.goal.map { goal in goal + (row.goalMet.map { $0 ? " **met**" : " **not met**" } ?? "") } ?? ""
            let about = [row.baselineName, row.note].compactMap { $0 }.joined(separator: "; ")
            let baseline = [format(row.baseline, row.unit), about].filter { !$0.isEmpty }.joined(separator: " — ")
            let cells = [figure, row.name, format(row.ours, row.unit), baseline, row.ratio.map { String(format: "%.2fx", $0) } ?? "", goal]
            print("| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |")
        }
        for note in notes { print("\nNote: " + note) }
    }

    private func format(_ value: Double?, _ unit: String) -> String {
        guard let value else { return "" }
        if value.isNaN { return "n/a" }
        let number: String
        switch abs(value) {
        case 1e6...: number = String(format: "%.2fM", value / 1e6)
        case 1e4..<1e6: number = String(format: "%.1fk", value / 1e3)
        case 100..<1e4: number = String(format: "%.0f", value)
        case 10..<100: number = String(format: "%.1f", value)
        default: number = String(format: "%.2f", value)
        }
        return number + " " + unit
    }
}
