import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

/// Timers' delays as WebKit reads them: a WebIDL `long`, so a delay past 2³¹ − 1 ms wraps, and a
/// refresh timer set for a token's expiry 30 days away fires at once (the classic refresh loop a
/// page must guard against shows up headless too).
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct TimersOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func aDelayPastTheLongRangeWrapsAsInWebKit(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let fired = try await view.run(
                """
                const fired = [];
                setTimeout(() => fired.push("30 days"), 30 * 24 * 3600 * 1000);
                setTimeout(() => fired.push("2^32 + 1"), 2 ** 32 + 1);
                setTimeout(() => fired.push("2^31 - 1"), 2 ** 31 - 1);
                setTimeout(() => fired.push("-5"), -5);
                setTimeout(() => fired.push("1e300"), 1e300);
                await new Promise((resolve) => setTimeout(resolve, 300));
                return fired.sort();
                """)
            #expect(fired == ["-5", "1e300", "2^32 + 1", "30 days"], "\(engine)")
        }
    }

    /// A chain of nested timers runs at the 4 ms clamp on both engines. WebKit throttles a hidden
    /// page's nested timers to one a second, and a view that is never shown is hidden: a
    /// 300-step chain there took five minutes, where an app's view on screen takes about 1.2 s.
    /// The chain races a single 20 s timer, which it must beat by far.
    @Test(arguments: Engine.allCases)
    func aChainOfNestedTimersIsNotThrottledInAViewThatIsNotShown(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let result = try await view.run(
                """
                return await new Promise((resolve) => {
                  let steps = 0;
                  const step = () => { if (++steps < 300) setTimeout(step, 0); else resolve({ first: "chain", steps, hidden: document.visibilityState }); };
                  setTimeout(() => resolve({ first: "single 20 s timer", steps, hidden: document.visibilityState }), 20000);
                  step();
                });
                """)
            #expect(result["first"]?.stringValue == "chain", "\(engine): \(result)")
            #expect(result["steps"]?.numberValue == 300, "\(engine)")
            #expect(result["hidden"]?.stringValue == "hidden", "\(engine): the view is still one that is not shown")
        }
    }
}
