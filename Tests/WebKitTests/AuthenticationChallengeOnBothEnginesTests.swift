import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

/// An HTTP authentication challenge (`WWW-Authenticate: Basic`) no credential answers: its 401
/// reaches the page, as in a `WKWebView` whose navigation delegate does not handle challenges;
/// WebKitGTK's own dialog, which no one sees, held the load forever.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct AuthenticationChallengeOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func aChallengeReachesThePageAsItsAnswer(engine: Engine) async throws {
        try await withSite { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                let seen = try await view.run(
                    """
                    const fetched = await fetch("/basic-auth", { signal: AbortSignal.timeout(10000) });
                    const xhr = await new Promise((resolve) => {
                      const request = new XMLHttpRequest();
                      request.open("GET", "/basic-auth");
                      request.onloadend = () => resolve(request.status);
                      request.send();
                    });
                    return [fetched.status, await fetched.text(), xhr];
                    """)
                #expect(seen == [401, "denied", 401], "\(engine)")
                let navigation = try await view.load(home.url("/basic-auth"))
                #expect(navigation.statusCode == 401, "\(engine)")
            }
        }
    }
}
