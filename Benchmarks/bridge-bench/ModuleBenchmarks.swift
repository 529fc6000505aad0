import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTesting

/// Figure 11: module scripts in the headless engine, which links them itself (JavaScriptCore's C
/// API loads no modules), against the same code as classic scripts, in the same run, each pair
/// interleaved in fresh pages.
/// - a page whose 2,000 functions are a module reading its globals as imports (its source lexed,
///   its references to its imports rewritten, its records linked), against a classic script:
///   a source the process has not seen, and one it has (``ModuleSourceCache``);
/// - a loop of global calls at a module's top level, against a classic script's;
/// - the same loop in a module that keeps its imports in a `with` scope (a construct the
///   analysis of its references does not read makes it give up), which the rewrite avoids.
enum ModuleBenchmarks {
    static let globals = ["Object", "Array", "Math", "JSON", "String", "Number"]

    /// `count` functions that read the globals and their parameters, as a bundle's do.
    static func functions(_ count: Int) -> String {
        (0..<count).map { index in
            "function f\(index)(e, t) { const n = Object.keys(e); for (const r of n) { if (Array.isArray(t)) t.push(Math.max(r.length, Number(e[r]))); } "
                + "return JSON.stringify(t) + String(\(index)); }"
        }.joined(separator: "\n") + "\nwindow.done = f\(count - 1)({ a: 1 }, []);\n"
    }

    static let loop = """
        let sum = 0;
        const start = Date.now();
        for (let i = 0; i < 3000000; i++) sum += Math.sqrt(i) + Number.parseInt("1");
        window.took = Date.now() - start;
        """

    static func run(_ options: BenchOptions, into report: inout Report) async throws {
        guard options.selects("module") || options.selects("figure11") else { return }
        let figure = "11 module scripts (headless)"
        let server = try await ReferenceServer.start()
        defer { Task { try? await server.stop() } }
        let imports = "import { \(globals.joined(separator: ", ")) } from \"/bench/globals.js\";\n"
        let code = functions(options.scale(2_000, quick: 200))
        server.serve(
            path: "/bench/globals.js", body: "export const { \(globals.joined(separator: ", ")) } = globalThis;",
            contentType: "text/javascript")
        server.serve(path: "/bench/module.js", body: imports + code, contentType: "text/javascript")
        server.serve(path: "/bench/classic.js", body: code, contentType: "text/javascript")
        server.serve(path: "/bench/loop-module.js", body: imports + loop, contentType: "text/javascript")
        // A braceless loop body the analysis does not read (`do … while`): it gives up.
        server.serve(
            path: "/bench/loop-scoped.js", body: imports + loop + "\nfor (const x of []) do {} while (0);\n", contentType: "text/javascript"
        )
        server.serve(path: "/bench/loop-classic.js", body: loop, contentType: "text/javascript")
        let size = (imports + code).utf8.count

        /// Loads a page running `path` (as a module or not): the milliseconds its load took and
        /// what its loop measured (`window.took`, if any).
        func page(_ path: String, module: Bool) async throws -> (load: Double, took: Double?) {
            let page = WebPage()
            defer { Task { await page.close() } }
            let clock = ContinuousClock()
            let start = clock.now
            try await page.loadHTMLString(
                "<script\(module ? " type=\"module\"" : "") src=\"\(path)\"></script>", baseURL: server.url("/bench/page"))
            let load = (clock.now - start).nanoseconds / 1e6
            guard try await page.evaluateJavaScript("typeof window.done === 'string' || typeof window.took === 'number'") == true else {
                throw BenchFailure("\(path) did not run")
            }
            return (load, try await page.evaluateJavaScript("window.took").numberValue)
        }

        var coldLoads: [Double] = [], moduleLoads: [Double] = [], classicLoads: [Double] = []
        var moduleLoops: [Double] = [], scopedLoops: [Double] = [], classicLoops: [Double] = []
        for round in 0...options.rounds {
            // A source the process has not lexed before (its text differs by a comment).
            server.serve(path: "/bench/cold-\(round).js", body: imports + code + "// \(round)\n", contentType: "text/javascript")
            coldLoads.append(try await page("/bench/cold-\(round).js", module: true).load)
            moduleLoads.append(try await page("/bench/module.js", module: true).load)
            classicLoads.append(try await page("/bench/classic.js", module: false).load)
            moduleLoops.append(try await page("/bench/loop-module.js", module: true).took ?? 0)
            scopedLoops.append(try await page("/bench/loop-scoped.js", module: true).took ?? 0)
            classicLoops.append(try await page("/bench/loop-classic.js", module: false).took ?? 0)
        }
        func add(_ name: String, _ ours: [Double], _ baseline: [Double], _ baselineName: String) {
            let ours = Array(ours.dropFirst()), baseline = Array(baseline.dropFirst())
            report.add(
                Row(
                    figure: figure, name: name, ours: Stats.median(ours), baseline: Stats.median(baseline), unit: "ms",
                    baselineName: baselineName, ratio: sameRoundRatio(ours, baseline)))
        }
        let functionCount = options.scale(2_000, quick: 200)
        add(
            "a page's \(size / 1024) KB module of \(functionCount) functions reading \(globals.count) imported globals, first load: load to its end",
            coldLoads, classicLoads,
            "the same functions as a classic script, reading the globals themselves; both fetched from a loopback server")
        add(
            "the same module loaded again (its source lexed before: the process's cache)", moduleLoads, classicLoads,
            "the same functions as a classic script")
        add("a loop of 3 M global calls at a module's top level", moduleLoops, classicLoops, "the same loop in a classic script")
        add(
            "the same loop in a module whose imports stay in a with scope (the analysis gave up)", scopedLoops, classicLoops,
            "the same loop in a classic script")
    }
}
