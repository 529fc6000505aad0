import Foundation
import SessionBridgeCookies

/// Figure 8: the persistent cookie store, save and load of 3,000 cookies.
enum StoreBenchmarks {
    static func run(_ options: BenchOptions, into report: inout Report) throws {
        guard options.selects("store") || options.selects("figure8") else { return }
        let figure = "8 persistent cookie store"
        let count = 3_000
        let jar = CookieJar(limits: CookieJarLimits(perDomain: 180, total: 10_000))
        let headers = CookieHeaders.mix(count: 30)
        for k in 0..<(count / 30) {
            let url = URL(string: "https://www.shop\(k).example/account/login")!
            for header in headers {
                jar.setCookie(header.replacingOccurrences(of: "shop.example", with: "shop\(k).example"), from: url)
            }
        }
        let cookies = jar.allCookies
        guard cookies.count == count else { throw BenchFailure("store bench: jar holds \(cookies.count) cookies, expected \(count)") }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-bench-store-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = PersistentCookieStore(directory: directory, profile: "bench")
        let jsonURL = directory.appendingPathComponent("reference.json")
        let encoder = JSONEncoder(), decoder = JSONDecoder()

        var save: [Double] = [], load: [Double] = [], jsonSave: [Double] = [], jsonLoad: [Double] = []
        var loaded = 0
        for round in 0...options.rounds {  // round 0 is the warm-up
            let s = try timeNanoseconds { try store.save(cookies) }
            let l = try timeNanoseconds { loaded = try store.load().cookies.count }
            let js = try timeNanoseconds { try encoder.encode(cookies).write(to: jsonURL, options: .atomic) }
            let jl = try timeNanoseconds { loaded = min(loaded, try decoder.decode([Cookie].self, from: Data(contentsOf: jsonURL)).count) }
            if round > 0 {
                save.append(s / 1e6); load.append(l / 1e6); jsonSave.append(js / 1e6); jsonLoad.append(jl / 1e6)
            }
        }
        guard loaded == count else { throw BenchFailure("store bench: loaded \(loaded) cookies, expected \(count)") }
        let size = (try? FileManager.default.attributesOfItem(atPath: store.fileURL!.path)[.size] as? Int) ?? 0
        let reference = "Foundation JSONEncoder + Data.write(.atomic), no fsync"
        report.add(
            Row(
                figure: figure, name: "save \(count) cookies", ours: Stats.median(save), baseline: Stats.median(jsonSave),
                unit: "ms", baselineName: reference, ratio: sameRoundRatio(save, jsonSave),
                note: "file \(size / 1024) KB; crash-safe (temporary file, backup generation)"))
        report.add(
            Row(
                figure: figure, name: "load \(count) cookies", ours: Stats.median(load), baseline: Stats.median(jsonLoad),
                unit: "ms", baselineName: "Foundation JSONDecoder", ratio: sameRoundRatio(load, jsonLoad)))
    }
}
