import Foundation
import SessionBridgeTestSupport
import Testing

/// What the page does to its own cookies reaches the native store and the profile the next run
/// starts from, on both engines, the last deletion before the run ends included. WebKit reports
/// a page's changes a few milliseconds late: on a loaded machine, a deletion made as the run
/// ended was not yet in the native store when it was saved, and the next run's navigation
/// brought the cookie back from it (3 runs in 4, measured by a probe; not reproduced on an idle
/// machine). Before, a WebKit page's cookies never reached the native store.
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct PageCookieProfileTests {
    @Test(arguments: ["headless", "webkit"])
    func aDeletionMadeAsTheRunEndsStaysDeletedInTheNextRun(engine: String) async throws {
        let profile = try TestDirectory.make(prefix: "page-cookie-profile")
        defer { try? FileManager.default.removeItem(at: profile) }
        let write = try RunnerProcess.temporaryFile("write.js", "document.cookie = 'kept=1; path=/; max-age=3600'; console.log('written');")
        // Written and deleted many times in a row, the deletion last, as the page's work ends.
        let churn = try RunnerProcess.temporaryFile(
            "churn.js",
            """
            for (let i = 0; i < 2000; i++) { document.cookie = 'kept=1; path=/; max-age=3600'; document.cookie = 'kept=; path=/; max-age=0'; }
            console.log('deleted', !/(^|; )kept=/.test(document.cookie));
            """)
        let check = try RunnerProcess.temporaryFile("check.js", "console.log('present', /(^|; )kept=/.test(document.cookie));")
        func run(_ script: URL) async throws -> RunnerProcess {
            try await RunnerProcess.run(
                ["run", "--engine", engine, "--profile", profile.path, script.path],
                removing: ["DISPLAY", "WAYLAND_DISPLAY", "GDK_BACKEND", "BROADWAY_DISPLAY"], timeout: 90)
        }
        // The stores' line for `kept`: page | native.
        func storesLine(_ run: RunnerProcess) -> String? {
            run.stdout.split(separator: "\n").first { $0.hasPrefix("  kept ") }.map(String.init)
        }
        let first = try await run(write)
        #expect(first.exitCode == 0, "\(first.stdout)\(first.stderr)")
        let written = try #require(storesLine(first), "\(first.stdout)")
        #expect(!written.contains("—"), "in both stores: \(written)")
        for round in 1...2 {
            let deleted = try await run(churn)
            #expect(deleted.stdout.contains("console.log deleted true"), "round \(round): \(deleted.stdout)")
            #expect(storesLine(deleted) == nil, "in neither store: \(deleted.stdout)")
            let next = try await run(check)
            #expect(next.stdout.contains("console.log present false"), "\(engine), round \(round): \(next.stdout)")
        }
    }
}
