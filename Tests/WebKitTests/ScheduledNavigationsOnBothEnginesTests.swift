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
}
