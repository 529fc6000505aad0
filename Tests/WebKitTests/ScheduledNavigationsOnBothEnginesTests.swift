import Foundation
import SessionBridge
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// A script's navigations are scheduled, as WebKit's navigation scheduler has them: of two a
/// script starts in one go, only the last is asked for and sent.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct ScheduledNavigationsOnBothEnginesTests {
    /// The headless engine had sent the first (the web product's logout route, which deleted
    /// the session's cookies and ended the native session) before the second replaced it.
    @Test(arguments: Engine.allCases)
    func ofTwoNavigationsAScriptStartsOnlyTheLastIsSent(engine: Engine) async throws {
        try await EngineHarness.with(engine) { harness in
            let view = try await harness.makeStartedAppView()
            _ = try await view.evaluate("location.href = '/logout'; location.href = '/app/second'; true")
            #expect(await view.waitForPath("/app/second"))
            // Time for a logout answer to reach the stores, had it been sent.
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await harness.session.status().isSignedIn)
            #expect(harness.nativeValue("__Host-session") != nil)
            #expect(await view.cookieValue("csrf_token", for: harness.url("/")) != nil)
        }
    }

    /// A script that navigates stops the parser: the document's later scripts do not run (a
    /// page's "not signed in? go to the login page" before the app's own scripts, which would
    /// otherwise call its API and write its cookies on the way out).
    @Test(arguments: Engine.allCases)
    func theScriptsAfterAScriptThatNavigatedDoNotRun(engine: Engine) async throws {
        try await EngineHarness.with(engine) { harness in
            harness.server.serve(
                path: "/leaves",
                body: """
                    <!doctype html><title>leaves</title>
                    <script>location.href = "/landed";</script>
                    <p>the app</p>
                    <script>document.cookie = "after_navigation=1; Path=/";</script>
                    <script defer src="/never-run.js"></script>
                    """, contentType: "text/html")
            harness.server.serve(path: "/landed", body: "<title>landed</title>", contentType: "text/html")
            let view = try await harness.makeEchoView()
            _ = try? await view.load(harness.url("/leaves"))
            #expect(await view.waitForPath("/landed"))
            #expect(await view.cookieValue("after_navigation", for: harness.url("/")) == nil)
            #expect(harness.nativeValue("after_navigation") == nil)
        }
    }
}
