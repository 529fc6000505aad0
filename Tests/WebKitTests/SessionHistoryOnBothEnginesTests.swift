import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

/// A page's history across its documents, as WebKit keeps it: `history.length` counts the
/// documents before and after this one, `back` and `forward` load them (a sign-in page's
/// "Cancel" that goes back to the app), `location.replace` takes the current entry's place,
/// and a new entry drops the ones after it.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct SessionHistoryOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func backAndForwardLoadThePagesOtherDocuments(engine: Engine) async throws {
        try await withSite { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                var seen: [String] = []
                func note(_ label: String) async throws {
                    let read = try await view.evaluate("location.pathname + ' ' + history.length")
                    seen.append("\(label) \(read.stringValue ?? "-")")
                }
                _ = try await view.load(home.url("/a"))
                _ = try await view.load(home.url("/b"))
                try await note("loaded")
                _ = try await view.evaluate("history.back()")
                #expect(await view.waitForPath("/a"), "\(engine)")
                try await note("back")
                _ = try await view.evaluate("history.forward()")
                #expect(await view.waitForPath("/b"), "\(engine)")
                try await note("forward")
                _ = try await view.evaluate("location.replace('/c')")
                #expect(await view.waitForPath("/c"), "\(engine)")
                try await note("replaced")
                _ = try await view.evaluate("history.go(-1)")
                #expect(await view.waitForPath("/a"), "\(engine)")
                try await note("back again")
                _ = try await view.evaluate("history.pushState(null, '', '/a2')")
                try await note("pushed")
                _ = try await view.evaluate("history.go(2)")
                try await Task.sleep(for: .milliseconds(300))
                try await note("nothing forward")
                #expect(
                    seen == [
                        // The view's first document (`/login`) is the first entry.
                        "loaded /b 3", "back /a 3", "forward /b 3", "replaced /c 3", "back again /a 3", "pushed /a2 3",
                        "nothing forward /a2 3",
                    ], "\(engine)")
            }
        }
    }

    /// A script's navigation before its document's `load` listeners have all run, and a
    /// refresh within a second, take the current entry's place, as in WebKit: an app's start
    /// page that sends the user on at once ("go to sign-in") leaves no entry that `back`
    /// returns to (the headless engine had pushed one each time). After `load`, a navigation
    /// pushes one.
    @Test(arguments: Engine.allCases)
    func aNavigationBeforeLoadReplacesTheEntry(engine: Engine) async throws {
        let pages = [
            "/early": "<script>location.assign('/early-next');</script>",
            "/onload": "<script>addEventListener('load', () => location.assign('/onload-next'));</script>",
            "/refresh": "<meta http-equiv='refresh' content='0;url=/refresh-next'>",
            "/later": "<script>addEventListener('load', () => setTimeout(() => location.assign('/later-next'), 0));</script>",
        ]
        try await withSite(pages: pages) { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                var lengths: [String] = []
                for start in ["/early", "/onload", "/refresh", "/later"] {
                    let view = try await harness.makeEchoView()
                    _ = try await view.load(home.url(start))
                    #expect(await view.waitForPath(start + "-next"), "\(engine): \(start)")
                    let length = try await view.evaluate("history.length").numberValue ?? -1
                    lengths.append("\(start) \(Int(length))")
                    await view.close()
                }
                // The view's own first document counts one entry, the page loaded another.
                #expect(lengths == ["/early 2", "/onload 2", "/refresh 2", "/later 3"], "\(engine)")
            }
        }
    }
}
