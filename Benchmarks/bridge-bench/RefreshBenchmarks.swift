#if canImport(SessionBridgeTesting) && canImport(AsyncHTTPClient)
import AsyncHTTPClient
import SessionBridgeCookies
import Foundation
import NIOCore
import SessionBridgeTesting
import SessionBridge
import NIOHTTP1
import SessionBridgeHeadless
import Synchronization

/// Figure 6: the refresh cycle over loopback against the reference server.
///
/// The full cycle (page `postMessage({action: "refresh"})` → `SessionController.refresh()` →
/// token endpoint → `Set-Cookie` written to the web store → reply → navigation) is measured
/// through a `SessionFixture`; next to it, the bare token-endpoint refresh POST with its
/// `Set-Cookie` lines applied to a `CookieJar`, which is the server's and the network's share.
enum RefreshBenchmarks {
    static func run(_ options: BenchOptions, into report: inout Report) async throws {
        guard options.selects("refresh") || options.selects("figure6") else { return }
        let figure = "6 refresh cycle, loopback"
        if let text = ProcessInfo.processInfo.environment["BRIDGE_BENCH_CALLERS"], let callers = Int(text), callers > 0 {
            // For a profiler: the full cycle alone (with the file vault and cookie store when
            // `BRIDGE_BENCH_DURABLE` is set).
            let durable = ProcessInfo.processInfo.environment["BRIDGE_BENCH_DURABLE"] != nil
            let environment = ProcessInfo.processInfo.environment
            let onPage = environment["BRIDGE_BENCH_ON_PAGE"] != nil, pageNavigates = environment["BRIDGE_BENCH_PAGE_NAVIGATES"] != nil
            let cycle = try await fullSessionRefreshCycle(
                callers: callers, cycles: 400, pageNavigates: pageNavigates, durable: durable, onPagesActor: onPage)
            let stores =
                (durable ? ", file vault and cookie store" : "") + (onPage ? ", the app's code on the page's actor" : "")
                + (pageNavigates ? ", the page navigates itself" : "")
            report.add(
                Row(
                    figure: figure, name: "full cycle, \(callers) page caller(s)\(stores), median (BRIDGE_BENCH_CALLERS)",
                    ours: cycle.median / 1e3, baseline: nil, unit: "µs", note: "400 cycles"))
            if let fromPagesAsk = cycle.fromPagesAsk {
                report.add(
                    Row(
                        figure: figure, name: "  from the page's first postMessage to its next document loaded, median",
                        ours: fromPagesAsk / 1e3, baseline: nil, unit: "µs"))
            }
            for (name, median) in cycle.stages {
                report.add(Row(figure: figure, name: "  stage: " + name + ", median", ours: median / 1e3, baseline: nil, unit: "µs"))
            }
            report.add(
                Row(
                    figure: figure, name: "  threads put to sleep per cycle (all threads)", ours: cycle.handOffs, baseline: nil,
                    unit: "per cycle"))
            report.add(
                Row(figure: figure, name: "  CPU time per cycle (all threads)", ours: cycle.cpu / 1e3, baseline: nil, unit: "µs"))
            return
        }
        if ProcessInfo.processInfo.environment["BRIDGE_BENCH_COOKIE_WRITES"] != nil {
            // For a profiler: the page's cookie writes alone, with and without a profile.
            for (profile, pageProfile) in [(true, false), (false, true), (false, false)] {
                let kind = profile ? "native profile" : pageProfile ? "page profile" : "in memory"
                let name = "document.cookie write, \(kind) (BRIDGE_BENCH_COOKIE_WRITES)"
                let perWrite = try await documentCookieWrites(profile: profile, pageProfile: pageProfile, writes: 400)
                report.add(Row(figure: figure, name: name, ours: perWrite, baseline: nil, unit: "µs/write"))
            }
            return
        }
        let cycles = options.scale(400, quick: 40)
        let server = try await ReferenceServer.start()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let standIn = try await tokenRefreshStandIn(client: client, server: server, cycles: cycles)
            report.add(
                Row(
                    figure: figure, name: "STAND-IN refresh POST + Set-Cookie into CookieJar, median", ours: standIn.median / 1e3,
                    baseline: nil, unit: "µs", note: "\(cycles) sequential cycles of the bare token-endpoint refresh"))
            report.add(
                Row(
                    figure: figure, name: "STAND-IN refresh POST + Set-Cookie into CookieJar, p99", ours: standIn.p99 / 1e3,
                    baseline: nil, unit: "µs",
                    note: "the server does not expose its own handling time (ServerStats has counters only)"))
            report.add(
                Row(
                    figure: figure, name: "  of which Set-Cookie lines into the jar, median", ours: standIn.cookies / 1e3,
                    baseline: nil, unit: "µs", note: "\(standIn.lines) Set-Cookie lines per refresh"))
            report.add(
                Row(
                    figure: figure, name: "STAND-IN the same, then GET /app with the new cookie, median",
                    ours: standIn.withNavigation / 1e3,
                    baseline: nil, unit: "µs", note: "the server's and the network's share of a whole cycle, its navigation included"))
            let breakdown = try await RefreshBreakdown.measure(cycles: options.scale(150, quick: 20))
            for (name, median) in zip(breakdown.names, breakdown.medians) {
                report.add(
                    Row(figure: figure, name: "  step: " + name + ", median", ours: median / 1e3, baseline: nil, unit: "µs", note: nil))
            }
            var appDriven: [Int: Double] = [:]
            for callers in [1, 10, 100] {
                let fullCycles = options.scale(callers == 100 ? 60 : 150, quick: 10)
                let full = try await fullSessionRefreshCycle(callers: callers, cycles: fullCycles, baselineClient: client)
                appDriven[callers] = full.median
                report.add(
                    cycleRow(
                        figure, "full cycle, \(callers) page caller(s): refresh -> cookies -> reply -> navigation, median", full,
                        cycles: fullCycles, baseline: try full.interleavedBaseline().withNavigation,
                        baselineName: "bare token POST + jar + GET /app"))
                report.add(
                    Row(
                        figure: figure, name: "full cycle, \(callers) page caller(s), p99", ours: full.p99 / 1e3,
                        baseline: try full.interleavedBaseline().withNavigationP99 / 1e3, unit: "µs", note: nil))
            }
            // The same cycle navigating to the page without its scripts: the page's own
            // JavaScript (a fetch of `/api/me` and its promise chain, run in a fresh document)
            // is the page's cost in any browser, not the navigation's.
            for callers in [1, 100] {
                let fullCycles = options.scale(callers == 100 ? 60 : 150, quick: 10)
                let full = try await fullSessionRefreshCycle(
                    callers: callers, cycles: fullCycles, to: "/app?plain=1", baselineClient: client)
                report.add(
                    cycleRow(
                        figure, "full cycle, \(callers) page caller(s), to the page without its scripts (/app?plain=1), median", full,
                        cycles: fullCycles, baseline: try full.interleavedBaseline().withPlainNavigation,
                        baselineName: "bare token POST + jar + GET /app?plain=1")
                )
            }
            // The same cycle with the page navigating itself once it has its replies, as an
            // app's page does (`await postMessage(...)`, then `location.assign`), instead of the
            // app calling `load(_:)` after `callAsyncJavaScript` returned to it.
            var pageDriven: [Int: Double] = [:]
            for callers in [1, 100] {
                let fullCycles = options.scale(callers == 100 ? 60 : 150, quick: 10)
                let full = try await fullSessionRefreshCycle(
                    callers: callers, cycles: fullCycles, pageNavigates: true, baselineClient: client)
                pageDriven[callers] = full.fromPagesAsk
                report.add(
                    cycleRow(
                        figure, "full cycle, \(callers) page caller(s), the page navigates itself (location.assign), median", full,
                        cycles: fullCycles, baseline: try full.interleavedBaseline().withNavigation,
                        baselineName: "bare token POST + jar + GET /app"))
                // The same cycles as the page waits for them: from its first `postMessage`, the
                // page asking, to its next document loaded, without the app's call that starts
                // the page's script (a hop into the page's thread, asleep after the idle gap).
                if let fromPagesAsk = full.fromPagesAsk {
                    var asked = full
                    asked.median = fromPagesAsk
                    report.add(
                        cycleRow(
                            figure, "the same, from the page's first postMessage to its next document loaded, median", asked,
                            cycles: fullCycles, baseline: try full.interleavedBaseline().withNavigation,
                            baselineName: "bare token POST + jar + GET /app"))
                }
                guard callers == 1 else { continue }
                if let bare = full.bareHandOffs {
                    report.add(
                        Row(
                            figure: figure, name: "  threads put to sleep per cycle (hand-offs to an idle thread, all threads)",
                            ours: full.handOffs, baseline: bare, unit: "per cycle", baselineName: "the bare cycles between them",
                            ratio: full.handOffs / bare,
                            note: "voluntary context switches from /proc/self/task; the 6 ms idle gap's sleeps are in both"))
                }
                if let bare = full.bareCPU {
                    report.add(
                        Row(
                            figure: figure, name: "  CPU time per cycle, all threads (the server's included)", ours: full.cpu / 1e3,
                            baseline: bare / 1e3, unit: "µs", baselineName: "the bare cycles between them", ratio: full.cpu / bare,
                            note: "CLOCK_PROCESS_CPUTIME_ID; the engine threads' 50 µs poll before sleeping is in ours"))
                }
                for (name, median) in full.stages {
                    report.add(
                        Row(
                            figure: figure, name: "  stage of that cycle: " + name + ", median", ours: median / 1e3, baseline: nil,
                            unit: "µs", note: "from the page's events and the message log"))
                }
            }
            // The same page-driven cycle, the page's callers asking through the session's refresh
            // script (`sessionBridge.refresh()`), whose callers in one page share one promise.
            var shared: [Int: Double] = [:]
            for callers in [1, 100] {
                let fullCycles = options.scale(callers == 100 ? 60 : 150, quick: 10)
                let full = try await fullSessionRefreshCycle(
                    callers: callers, cycles: fullCycles, pageNavigates: true, sharedPromise: true, baselineClient: client)
                shared[callers] = full.fromPagesAsk
                var asked = full
                asked.median = full.fromPagesAsk ?? full.median
                let name =
                    "full cycle, \(callers) page caller(s) through sessionBridge.refresh(), the page navigating, from its ask, median"
                report.add(
                    cycleRow(
                        figure, name, asked, cycles: fullCycles, baseline: try full.interleavedBaseline().withNavigation,
                        baselineName: "bare token POST + jar + GET /app"))
            }
            // A hundred callers against one, each way of driving the cycle.
            for (name, medians) in [
                ("app-driven (callAsyncJavaScript, then load)", appDriven),
                ("page-driven, each caller posting, from the page's ask", pageDriven),
                ("page-driven, through sessionBridge.refresh(), from the page's ask", shared),
            ] {
                guard let one = medians[1], let hundred = medians[100] else { continue }
                report.add(
                    Row(
                        figure: figure, name: "100 callers against 1, \(name)", ours: hundred / 1e3, baseline: one / 1e3, unit: "µs",
                        baselineName: "the same cycle with 1 caller", ratio: hundred / one, goal: "≤1.2x", goalMet: hundred / one <= 1.2))
            }
            // The app-driven cycle again, its code isolated to the page's actor, as a WKWebView
            // app's `@MainActor` code drives its view: the app's calls into the page and their
            // returns take no hop between the concurrency pool and the page's thread.
            for callers in [1, 100] {
                let fullCycles = options.scale(callers == 100 ? 60 : 150, quick: 10)
                let full = try await fullSessionRefreshCycle(
                    callers: callers, cycles: fullCycles, onPagesActor: true, baselineClient: client)
                report.add(
                    cycleRow(
                        figure, "full cycle, \(callers) page caller(s), the app's code on the page's actor, median", full,
                        cycles: fullCycles, baseline: try full.interleavedBaseline().withNavigation,
                        baselineName: "bare token POST + jar + GET /app"))
            }
            // The app's configuration: the refresh token in a `FileTokenVault` and the native
            // cookies in a `PersistentCookieStore`, both crash-safe (`fsync`), against the same
            // baseline plus the one durable write a refresh needs, the rotated token's.
            let durableCycles = options.scale(150, quick: 10)
            let durable = try await fullSessionRefreshCycle(callers: 1, cycles: durableCycles, durable: true, baselineClient: client)
            report.add(
                cycleRow(
                    figure, "full cycle, 1 page caller(s), with a FileTokenVault and a PersistentCookieStore (fsync), median", durable,
                    cycles: durableCycles,
                    baseline: try durable.interleavedBaseline().withNavigation + durable.interleavedBaseline().vaultStore,
                    baselineName: "bare token POST + jar + GET /app + the rotated token's durable write"))
            report.add(
                Row(
                    figure: figure, name: "  of which the rotated token's durable write (FileTokenVault.store), median",
                    ours: try durable.interleavedBaseline().vaultStore / 1e3, baseline: nil, unit: "µs",
                    note: "measured in the stand-in's cycles between the durable ones"))
            // A page's own cookie writes with the session keeping a persistent profile: they
            // reach the native store at once, and the profile behind the page.
            let withProfile = try await documentCookieWrites(profile: true, writes: options.scale(400, quick: 40))
            let onPageProfile = try await documentCookieWrites(
                profile: false, pageProfile: true, writes: options.scale(400, quick: 40))
            let without = try await documentCookieWrites(profile: false, writes: options.scale(400, quick: 40))
            report.add(
                Row(
                    figure: figure, name: "a page's document.cookie write, the session keeping a PersistentCookieStore, median of 5 runs",
                    ours: withProfile, baseline: without, unit: "µs/write",
                    baselineName: "the same writes, the session's cookies in memory"))
            report.add(
                Row(
                    figure: figure, name: "a page's document.cookie write, the page's store a persistent profile, median of 5 runs",
                    ours: onPageProfile, baseline: without, unit: "µs/write", baselineName: "the same writes, every store in memory"))
        } catch {
            try? await client.shutdown()
            try? await server.stop()
            throw error
        }
        try await client.shutdown()
        try await server.stop()
    }

    /// Runs `body` with `fixture`, then stops the fixture and waits for it (its cookie profiles'
    /// writes landed), so that the next measurement does not share the machine with its shutdown.
    static func using<T>(_ fixture: SessionFixture, _ body: (SessionFixture) async throws -> T) async throws -> T {
        do {
            let result = try await body(fixture)
            await fixture.stop()
            return result
        } catch {
            await fixture.stop()
            throw error
        }
    }

    /// Microseconds per `document.cookie` write of a page (a loop of `writes` in one script, the
    /// median of five runs), the session keeping its cookies in a persistent profile or in memory.
    static func documentCookieWrites(profile: Bool, pageProfile: Bool = false, writes: Int) async throws -> Double {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-bench-writes-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let pageStore = pageProfile ? try WebsiteDataStore(directory: directory, profile: "page") : nil
        let fixture = try await SessionFixture.start(
            nativeCookieStore: profile ? PersistentCookieStore(directory: directory, profile: "native") : nil,
            configure: { configuration in if let pageStore { configuration.websiteDataStore = pageStore } })
        return try await RefreshBenchmarks.using(fixture) { fixture in
            try await fixture.page.loadHTMLString("<p>bench</p>", baseURL: fixture.url("/bench"))
            let write = "document.cookie = 'pref' + (i % 20) + '=' + i + '; Path=/; Max-Age=3600'"
            let script = "for (let i = 0; i < \(writes); i++) \(write); return 1"
            var times: [Double] = []
            let clock = ContinuousClock()
            for _ in 0..<6 {
                let start = clock.now
                _ = try await fixture.page.callAsyncJavaScript(script)
                times.append((clock.now - start).nanoseconds / 1e3 / Double(writes))
            }
            guard fixture.session.cookieJar.cookies(for: fixture.url("/")).contains(where: { $0.name == "pref0" }) else {
                throw BenchFailure("the page's cookie writes did not reach the native store")
            }
            return Stats.median(Array(times.dropFirst()))
        }
    }

    /// A full cycle's median next to its baseline, with the goal: at most 1 ms above what the
    /// server and the network take for the cycle's two requests (the refresh POST and the
    /// navigation's GET), timed in bare cycles run between blocks of the row's own
    /// (``StandInCycles``).
    static func cycleRow(
        _ figure: String, _ name: String, _ full: Cycle,
        cycles: Int, baseline: Double, baselineName: String
    ) -> Row {
        let over = (full.median - baseline) / 1e6
        return Row(
            figure: figure, name: name, ours: full.median / 1e3, baseline: baseline / 1e3, unit: "µs", baselineName: baselineName,
            ratio: full.median / baseline, goal: "≤ baseline + 1 ms", goalMet: over <= 1,
            note:
                "\(cycles) cycles in five blocks, each followed by as many bare ones (the baseline); \(full.refreshes) token-endpoint "
                + "refreshes of the session's; \(String(format: "%+.2f", over)) ms over the baseline")
    }

    /// A full cycle's figures (nanoseconds).
    struct Cycle {
        var median: Double
        var p99: Double
        /// The token-endpoint refreshes the server counted.
        var refreshes: Int
        /// The page-driven cycle's stages, by ``LoadedSignal/stageNames``.
        var stages: [(String, Double)]
        /// The page-driven cycle as its page waits for it: from its first `postMessage` to the
        /// next document loaded (the app's call that starts the page's script left out).
        var fromPagesAsk: Double?
        /// The bare cycle's figures, measured between these cycles, one after each
        /// (``StandInCycles``); `nil` when not asked for.
        var baseline: StandIn?
        /// Threads put to sleep per cycle, all of the process's (``ThreadHandOffs``), and per
        /// bare cycle when those ran.
        var handOffs: Double
        var bareHandOffs: Double?
        /// CPU time per cycle, all threads (``ProcessCPUTime``, nanoseconds), and per bare cycle.
        var cpu: Double
        var bareCPU: Double?

        /// ``baseline``, which the rows need.
        func interleavedBaseline() throws -> StandIn {
            guard let baseline else { throw BenchFailure("the cycle was measured without its baseline") }
            return baseline
        }
    }

    struct StandIn {
        var median: Double
        var p99: Double
        var cookies: Double
        var lines: Int
        /// The same, then `GET /app` with the refreshed cookie: the server's and the network's
        /// share of the whole cycle, navigation included.
        var withNavigation: Double
        var withNavigationP99: Double
        /// The same with `GET /app?plain=1`, the page without its scripts.
        var withPlainNavigation: Double
        /// The rotated token stored in a `FileTokenVault`: the one durable write a refresh needs.
        var vaultStore: Double
        /// How many cycles the medians are of.
        var cycles: Int
    }

    /// Signs in once, then times `cycles` sequential bare cycles (``StandInCycles``), the
    /// first tenth a warm-up. Returns nanoseconds.
    static func tokenRefreshStandIn(client: HTTPClient, server: ReferenceServer, cycles: Int) async throws -> StandIn {
        let standIn = try await StandInCycles.start(client: client, server: server)
        for cycle in 0..<(cycles + cycles / 10) { try await standIn.run(recording: cycle >= cycles / 10) }
        return standIn.figures
    }

    /// The full refresh cycle: `callers` page scripts ask native code to refresh at once
    /// (one network refresh), native code writes the cookies into both stores and replies, then
    /// a navigation to `/app` passes the navigation policy and carries the new cookie.
    /// Returns (median, p99) nanoseconds per cycle and the refreshes the server counted.
    ///
    /// With `pageNavigates`, the page itself navigates once its callers have their replies
    /// (`location.assign`, as an app's page does after `await postMessage(...)`), and the cycle
    /// ends when the new document has loaded (`PageEvent.navigationFinished`, on the page's
    /// thread); otherwise the app drives it: `callAsyncJavaScript` returns to the caller, which
    /// then calls `load(_:)` and waits for it to return (two more hops between the caller and the
    /// page's thread).
    ///
    /// With `baselineClient`, bare cycles (``StandInCycles``, on the fixture's server, through
    /// that client) run in blocks between blocks of these, and the result carries their figures
    /// as its baseline: a row and its baseline then see the same machine.
    static func fullSessionRefreshCycle(
        callers: Int, cycles: Int, to path: String = "/app", pageNavigates: Bool = false, durable: Bool = false,
        onPagesActor: Bool = false, sharedPromise: Bool = false, baselineClient: HTTPClient? = nil
    ) async throws -> Cycle {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-bench-cycle-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A short freshness window: callers of one cycle share its refresh, the next cycle refreshes again.
        let fixture = try await SessionFixture.start(
            session: { $0.freshnessWindow = .milliseconds(5) },
            vault: durable ? FileTokenVault(url: directory.appendingPathComponent("session.vault")) : InMemoryTokenVault(),
            nativeCookieStore: durable ? PersistentCookieStore(directory: directory, profile: "native") : nil)
        return try await RefreshBenchmarks.using(fixture) { fixture in
            try await fixture.page.loadHTMLString("<p>bench</p>", baseURL: fixture.url("/bench"))
            // Each caller posts its own message, or asks the session's refresh script, whose
            // callers in one page share one promise (one message).
            let ask =
                sharedPromise
                ? "window.sessionBridge.refresh()" : "window.webkit.messageHandlers.session.postMessage({action: \"refresh\"})"
            let calls = """
                const calls = [];
                for (let i = 0; i < \(callers); i++) calls.push(\(ask));
                const replies = (await Promise.all(calls)).length;
                """
            let script = pageNavigates ? calls + "location.assign(\"\(path)\"); return replies;" : calls + "return replies;"
            let loaded = LoadedSignal()
            if pageNavigates {
                fixture.observe { event in loaded.receive(event) }
                fixture.messageLog.observe { entry in loaded.bridgeCall(entry.duration) }
            }
            let standIn: StandInCycles?
            if let baselineClient {
                guard let server = fixture.server else { throw BenchFailure("the fixture has no server of its own") }
                let bare = try await StandInCycles.start(client: baselineClient, server: server)
                for _ in 0..<max(1, cycles / 10) { try await bare.run(recording: false) }  // warms up
                standIn = bare
            } else {
                standIn = nil
            }
            let before = fixture.server?.stats().refreshes ?? 0
            let bareBefore = standIn?.refreshes ?? 0
            let clock = ContinuousClock()
            func cycle() async throws -> Double {
                if onPagesActor && !pageNavigates {
                    return try await appCycleOnThePagesActor(fixture.page, script: script, to: fixture.url(path))
                }
                try await Task.sleep(for: .milliseconds(6))  // past the freshness window: each cycle refreshes
                let start = clock.now
                let end: ContinuousClock.Instant
                if pageNavigates {
                    end = try await askAndWaitOnThePagesActor(fixture.page, script: script, loaded: loaded)
                } else {
                    _ = try await fixture.page.callAsyncJavaScript(script)
                    let navigation = try await fixture.page.load(fixture.url(path))
                    precondition(
                        navigation.statusCode == 200 && navigation.url.path == "/app", "the navigation did not carry the new cookie")
                    end = clock.now
                }
                return (end - start).nanoseconds
            }
            // The bare cycles run in blocks between blocks of these, five of each: close enough in
            // time that the machine's drift hits a row and its baseline alike, and apart enough
            // that neither runs right after the other's work. (A bare cycle after each of these
            // made them 0.3-1 ms slower, in two pairs of runs of figure 6: the page then ran cold.)
            // The first cycle of each block, which follows the other's block, is not counted.
            let blocks = standIn == nil ? 1 : 5
            var samples: [Double] = []
            // Threads put to sleep, by the row's cycles and by the bare ones (a thread that
            // was ending one block's last cycle when the count was read is counted in the next).
            var handOffs = (ours: 0, bare: 0, cycles: 0)
            var cpu = (ours: 0, bare: 0)
            for block in 0..<blocks {
                let count = cycles / blocks + (block < cycles % blocks ? 1 : 0)
                let before = ThreadHandOffs.count(), cpuBefore = ProcessCPUTime.nanoseconds()
                for index in 0..<count {
                    let sample = try await cycle()
                    if standIn == nil || index > 0 { samples.append(sample) }
                }
                let between = ThreadHandOffs.count(), cpuBetween = ProcessCPUTime.nanoseconds()
                if let standIn { for index in 0..<count { try await standIn.run(recording: index > 0) } }
                handOffs.ours += between - before
                handOffs.bare += ThreadHandOffs.count() - between
                handOffs.cycles += count
                cpu.ours += cpuBetween - cpuBefore
                cpu.bare += ProcessCPUTime.nanoseconds() - cpuBetween
            }
            let refreshes = (fixture.server?.stats().refreshes ?? 0) - before - ((standIn?.refreshes ?? 0) - bareBefore)
            samples.sort()
            return Cycle(
                median: samples[samples.count / 2], p99: samples[min(samples.count - 1, samples.count * 99 / 100)], refreshes: refreshes,
                stages: loaded.stageMedians(), fromPagesAsk: loaded.fromPagesAskMedian(), baseline: standIn?.figures,
                handOffs: Double(handOffs.ours) / Double(handOffs.cycles),
                bareHandOffs: standIn == nil ? nil : Double(handOffs.bare) / Double(handOffs.cycles),
                cpu: Double(cpu.ours) / Double(handOffs.cycles), bareCPU: standIn == nil ? nil : Double(cpu.bare) / Double(handOffs.cycles))
        }
    }

    /// Starts the page-navigating cycle's script and waits for the document it navigates to,
    /// from code isolated to the page: the script's return then resumes this code on the page's
    /// thread, where an app's task on the pool was woken first (a wake-up paid by the page's
    /// thread before it ran the navigation's job, 25-100 µs on this VM: the bench's own cost, not
    /// the page's, as the page of an app asks on its own).
    static func askAndWaitOnThePagesActor(
        _ page: isolated WebPage, script: String, loaded: LoadedSignal
    ) async throws -> ContinuousClock.Instant {
        _ = try await page.callAsyncJavaScript(script)
        let end = try await loaded.next()
        // The page's own work after `load` (`/app` fetches `/api/me`): until it is quiet.
        if await page.runUntilQuiescent(timeout: .seconds(5)) { loaded.quiet(after: end) }
        return end
    }

    /// The app-driven cycle written as code isolated to the page, as a WKWebView app's
    /// `@MainActor` code drives its view: `callAsyncJavaScript` and `load(_:)` are calls on the
    /// page's own actor, with no hop between the app and the page's thread. One cycle, timed
    /// on the page's actor, its idle gap included before the clock starts.
    static func appCycleOnThePagesActor(_ page: isolated WebPage, script: String, to url: URL) async throws -> Double {
        try await Task.sleep(for: .milliseconds(6))  // past the freshness window: each cycle refreshes
        let clock = ContinuousClock()
        let start = clock.now
        _ = try await page.callAsyncJavaScript(script)
        let navigation = try await page.load(url)
        precondition(navigation.statusCode == 200 && navigation.url.path == "/app", "the navigation did not carry the new cookie")
        return (clock.now - start).nanoseconds
    }
}
/// The instant each page-started navigation finished, for the cycle waiting for it.
final class LoadedSignal: Sendable {
    private struct State {
        var outcome: Result<ContinuousClock.Instant, any Error>?
        var waiter: CheckedContinuation<ContinuousClock.Instant, any Error>?
        // The stages of the cycle under way, and of those that ended (nanoseconds).
        var bridgeCall: Duration?
        /// When the cycle's first `postMessage` was made.
        var asked: ContinuousClock.Instant?
        /// With several callers: when the last call was made, and when the first and the last
        /// were settled.
        var lastAsked: ContinuousClock.Instant?
        var firstSettled: ContinuousClock.Instant?
        var lastSettled: ContinuousClock.Instant?
        var calls = 0
        var fromPagesAsk: [Double] = []
        var policy: Duration?
        var request: Duration?
        var responded: ContinuousClock.Instant?
        var committed: ContinuousClock.Instant?
        var stages: [String: [Double]] = [:]
    }

    /// The stages' names, in the cycle's order.
    static let stageNames = [
        "the page's postMessage until its reply (the refresh)", "navigation policy (PageEvent.navigationPolicy's waited)",
        "the navigation's request (PageEvent.http's duration)", "response to document committed",
        "document committed to loaded (user scripts, the page's scripts, load events)",
        "loaded to quiet (the page's own fetch of /api/me answered and handled; after the cycle)",
        "of which the page's fetch of /api/me (PageEvent.http's duration)",
        "with several callers: their calls made (the first postMessage to the last)",
        "with several callers: the first postMessage to the first reply",
        "with several callers: their replies settled (the first to the last)",
        "with several callers: the last reply to the navigation's policy",
    ]

    /// The page went quiet now, its document having loaded at `loaded`.
    func quiet(after loaded: ContinuousClock.Instant) {
        let now = ContinuousClock.now
        state.withLock { $0.stages[Self.stageNames[5], default: []].append((now - loaded).nanoseconds) }
    }

    private let state = Mutex(State())

    /// Waits for the next navigation to `/app` to finish (or returns at once when it already
    /// did since the last wait); returns when it finished. It waits where it is called (on the
    /// page's thread, for ``RefreshBenchmarks/askAndWaitOnThePagesActor(_:script:loaded:)``).
    nonisolated(nonsending) func next() async throws -> ContinuousClock.Instant {
        try await withCheckedThrowingContinuation { continuation in
            let outcome = state.withLock { state in
                guard let outcome = state.outcome else {
                    state.waiter = continuation
                    return Result<ContinuousClock.Instant, any Error>?.none
                }
                state.outcome = nil
                return outcome
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// A bridge call's duration, from the message log, which tells its observers of a call
    /// as it settles (so the call began `duration` ago).
    func bridgeCall(_ duration: Duration) {
        let now = ContinuousClock.now
        let asked = now - duration
        state.withLock { state in
            state.bridgeCall = duration
            state.asked = min(state.asked ?? asked, asked)
            state.lastAsked = max(state.lastAsked ?? asked, asked)
            state.firstSettled = min(state.firstSettled ?? now, now)
            state.lastSettled = now
            state.calls += 1
        }
    }

    /// The median time from the cycle's first `postMessage` to the next document loaded.
    func fromPagesAskMedian() -> Double? {
        let samples = state.withLock { $0.fromPagesAsk }
        return samples.isEmpty ? nil : Stats.median(samples)
    }

    /// The medians of the stages, by ``stageNames``.
    func stageMedians() -> [(String, Double)] {
        let stages = state.withLock { $0.stages }
        return Self.stageNames.compactMap { name in stages[name].map { (name, Stats.median($0)) } }
    }

    /// Called with every page event, on the page's thread.
    func receive(_ event: PageEvent) {
        let now = ContinuousClock.now
        switch event {
        case .navigationPolicy(_, _, let waited):
            state.withLock { state in
                state.policy = waited
                let names = Self.stageNames
                guard state.calls > 1, let asked = state.asked, let lastAsked = state.lastAsked,
                    let firstSettled = state.firstSettled, let lastSettled = state.lastSettled
                else { return }
                state.stages[names[7], default: []].append((lastAsked - asked).nanoseconds)
                state.stages[names[8], default: []].append((firstSettled - asked).nanoseconds)
                state.stages[names[9], default: []].append((lastSettled - firstSettled).nanoseconds)
                state.stages[names[10], default: []].append((now - waited - lastSettled).nanoseconds)
            }
        case .http(let exchange) where exchange.initiator == .navigation:
            state.withLock { state in
                state.request = exchange.duration
                state.responded = now
            }
        case .http(let exchange) where exchange.initiator == .fetch && exchange.url.path == "/api/me":
            state.withLock { $0.stages[Self.stageNames[6], default: []].append(exchange.duration.nanoseconds) }
        case .documentCommitted:
            state.withLock { $0.committed = now }
        case .navigationFinished(let navigation) where navigation.url.path == "/app":
            precondition(navigation.statusCode == 200, "the navigation did not carry the new cookie")
            state.withLock { state in
                let names = Self.stageNames
                if let call = state.bridgeCall { state.stages[names[0], default: []].append(call.nanoseconds) }
                if let policy = state.policy { state.stages[names[1], default: []].append(policy.nanoseconds) }
                if let request = state.request { state.stages[names[2], default: []].append(request.nanoseconds) }
                if let responded = state.responded, let committed = state.committed {
                    state.stages[names[3], default: []].append((committed - responded).nanoseconds)
                    state.stages[names[4], default: []].append((now - committed).nanoseconds)
                }
                if let asked = state.asked { state.fromPagesAsk.append((now - asked).nanoseconds) }
                (state.bridgeCall, state.policy, state.request, state.responded, state.committed) = (nil, nil, nil, nil, nil)
                state.asked = nil
                (state.lastAsked, state.firstSettled, state.lastSettled, state.calls) = (nil, nil, nil, 0)
            }
            deliver(.success(now))
        case .navigationFailed(let error):
            deliver(.failure(error))
        default:
            break
        }
    }

    private func deliver(_ outcome: Result<ContinuousClock.Instant, any Error>) {
        state.withLock { state in
            guard let waiter = state.waiter else {
                state.outcome = outcome
                return CheckedContinuation<ContinuousClock.Instant, any Error>?.none
            }
            state.waiter = nil
            return waiter
        }?.resume(with: outcome)
    }
}
#else
/// Figure 6 needs `SessionBridgeTesting` (the reference server) and AsyncHTTPClient; a build
/// without them reports the figure as not built.
enum RefreshBenchmarks {
    static func run(_ options: BenchOptions, into report: inout Report) async throws {
        guard options.selects("refresh") || options.selects("figure6") else { return }
        report.add(
            Row(
                figure: "6 refresh cycle, loopback", name: "not built: this build has no SessionBridgeTesting",
                ours: .nan, baseline: nil, unit: "µs"))
    }
}
#endif
