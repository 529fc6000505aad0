import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeWebKit
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The WebKit engine's time limit: a script that does not return holds the page's web process,
/// which WebKit leaves running. The view asks the process for an answer every second and ends
/// it once it has been silent for `scriptTimeLimit`, as the headless engine ends the script.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct ScriptTimeLimitTests {
    /// A view's events, and the configuration that records them.
    final class Events: Sendable {
        private let events = Mutex<[PageEvent]>([])

        func configuration(scriptTimeLimit: Duration, uiDelegate: (any UIDelegate)? = nil) -> WebKitWebViewConfiguration {
            WebKitWebViewConfiguration(
                uiDelegate: uiDelegate, eventHandler: { event in self.events.withLock { $0.append(event) } },
                scriptTimeLimit: scriptTimeLimit)
        }

        /// How many times the view ended its process for the time limit.
        var stops: Int {
            events.withLock { events in
                events.count { event in
                    if case .scriptError(let error, _, _) = event { return error.kind == .timeLimitExceeded }
                    return false
                }
            }
        }
    }

    @Test func aScriptThatNeverReturnsHasItsWebProcessEnded() async throws {
        try await withSite(pages: ["/spin": "<script>for (;;) {}</script>", "/after": "<title>after</title>"]) { site in
            let events = Events()
            let configuration = events.configuration(scriptTimeLimit: .seconds(1))
            try await withView(configuration) { view in
                let clock = ContinuousClock()
                let started = clock.now
                do {
                    try await view.load(site.url("/spin"))
                    Issue.record("the load of a page that never stops running finished")
                } catch {
                    #expect("\(error)".contains("a script ran past the time limit"), "\(error)")
                }
                #expect(clock.now - started < .seconds(25), "ended by the limit, not by the load's own 30 s")
                #expect(events.stops == 1)
                // Until the next load, a script has no document to run in, and is told so.
                await #expect {
                    _ = try await view.evaluateJavaScript("1 + 1")
                } throws: { error in
                    "\(error)".contains("web content process ended and no page has loaded since")
                }
                // The next load has a web process of its own, and the view goes on.
                try await view.load(site.url("/after"))
                #expect(try await view.evaluateJavaScript("document.title") == .string("after"))
            }
        }
    }

    /// The load after an ended process waits for a new one: that wait is not a script's
    /// silence, however long it takes (a loaded machine took more than the 1 s limit to start
    /// one, and the watch ended it too, failing the load). A limit shorter than a process's
    /// start shows it on any machine; a response slower than the limit is no silence either.
    @Test(arguments: ["/after", "/slow/1500"])
    func theLoadAfterAnEndedProcessIsNotEndedWhileItsProcessStarts(path: String) async throws {
        try await withSite(pages: ["/spin": "<script>for (;;) {}</script>", "/after": "<title>after</title>"]) { site in
            let events = Events()
            let configuration = events.configuration(scriptTimeLimit: .milliseconds(100))
            try await withView(configuration) { view in
                await #expect(throws: PageError.self) { try await view.load(site.url("/spin")) }
                #expect(events.stops == 1)
                try await view.load(site.url(path))
                #expect(view.url?.path == path)
                #expect(events.stops == 1)
            }
        }
    }

    /// A process the machine does not run for a while (stopped with `SIGSTOP` for 1.5 s, as a
    /// loaded machine leaves one waiting for a core) leaves one of the watch's questions
    /// unanswered past the 1 s limit, and a second one when it is slow to start again: it ran
    /// no script, and is not ended. (The watch had ended it at the first late answer: every
    /// question asked in the first half second, the watch's interval, times out before the
    /// process runs again; then at the second, which a loaded machine left half a second after
    /// the process went on.) The process is stopped and continued by a thread of its own, so
    /// that a loaded machine's late wake of a task does not stop it longer; it then has a
    /// second and a half at least to answer the third question. The page's process is found by
    /// the memory its page holds, filled a chunk per script so that no script nears the limit.
    @Test func aProcessTheMachineDidNotRunForAWhileIsNotEnded() async throws {
        try await withSite(pages: ["/hold": "<title>holding</title><script>globalThis.held = [];</script>"]) { site in
            let events = Events()
            let configuration = events.configuration(scriptTimeLimit: .seconds(1))
            try await withView(configuration) { view in
                try await view.load(site.url("/hold"))
                for _ in 0..<8 {
                    _ = try await view.evaluateJavaScript("held.push(new Uint8Array(200 << 20).fill(1))")
                }
                let process = try #require(
                    WebContentProcessTests.webProcess(holdingAtLeast: 1400 << 20), "no web process holds the page's memory")
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    Thread.detachNewThread {
                        kill(process, SIGSTOP)
                        usleep(1_500_000)
                        kill(process, SIGCONT)
                        continuation.resume()
                    }
                }
                try await Task.sleep(for: .milliseconds(1500))
                #expect(events.stops == 0)
                #expect(try await view.evaluateJavaScript("held.length") == .number(8))
            }
        }
    }

    /// A page busy for less than the limit is left alone, and a view without a limit leaves a
    /// busy process running, as WebKit does.
    @Test func aPageBusyForLessThanTheLimitIsLeftAlone() async throws {
        let busy = "<title>busy</title><script>const end = Date.now() + 1500; while (Date.now() < end) {}</script>"
        try await withSite(pages: ["/busy": busy]) { site in
            let events = Events()
            let configuration = events.configuration(scriptTimeLimit: .seconds(5))
            try await withView(configuration) { view in
                try await view.load(site.url("/busy"))
                try await Task.sleep(for: .seconds(2))
                #expect(try await view.evaluateJavaScript("document.title") == .string("busy"))
            }
            #expect(events.stops == 0)
        }
    }

    /// A page waiting on its UI delegate's panel (`confirm` while the app asks its user) is not
    /// running a script: the wait does not count, as the headless engine lifts the limit for it.
    @Test func aPageWaitingOnAPanelIsLeftAlone() async throws {
        struct SlowUser: UIDelegate {
            func webPage(_ page: any WebView, runConfirmPanelWithMessage message: String, frame: FrameInfo) async -> Bool {
                try? await Task.sleep(for: .seconds(4))
                return true
            }
        }
        let page = "<title>asks</title><script>document.title = confirm('go on?') ? 'yes' : 'no';</script>"
        try await withSite(pages: ["/asks": page]) { site in
            let events = Events()
            let configuration = events.configuration(scriptTimeLimit: .seconds(1), uiDelegate: SlowUser())
            try await withView(configuration) { view in
                try await view.load(site.url("/asks"))
                #expect(try await view.evaluateJavaScript("document.title") == .string("yes"))
            }
            #expect(events.stops == 0)
        }
    }

    /// A script that loops on panels answered at once (`for (;;) alert(1)`) is running between
    /// them: the panels' short waits do not keep it from the limit.
    @Test func aScriptLoopingOnPanelsIsEnded() async throws {
        try await withSite(pages: ["/alerts": "<script>for (;;) alert(1);</script>"]) { site in
            let events = Events()
            let configuration = events.configuration(scriptTimeLimit: .seconds(1))
            try await withView(configuration) { view in
                do {
                    try await view.load(site.url("/alerts"))
                    Issue.record("the load of a page that never stops running finished")
                } catch {
                    #expect("\(error)".contains("a script ran past the time limit"), "\(error)")
                }
            }
            #expect(events.stops == 1)
        }
    }
}
