import Foundation
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeScriptEngine

/// The process-wide options SessionBridge chooses are in effect once an engine thread exists:
/// JavaScriptCore read them from the environment when it started.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct JavaScriptCoreSettingsTests {
    @Test func theOptionsAreInEffectOnceAnEngineThreadExists() async throws {
        let thread = EngineThread(name: "sb-settings-test")
        let context = await ScriptContext(thread: thread)
        #expect(try await context.evaluate("1 + 1") == .number(2))
        let environment = ProcessInfo.processInfo.environment
        for (name, value) in JavaScriptCoreSettings.options {
            // A value the user set in the environment is kept; JavaScriptCore uses whichever is there.
            let set = try #require(environment["JSC_" + name], "JSC_\(name) was not set")
            if value == "true" || value == "false" {
                #expect(JavaScriptCoreSettings.booleanValue(of: name) == (set == "true"), "\(name)")
            } else {
                #expect(JavaScriptCoreSettings.integerValue(of: name) == Int32(set), "\(name)")
            }
        }
        // The ones this package relies on, by name (JavaScriptCore's own defaults: false, 1,000).
        #expect(JavaScriptCoreSettings.booleanValue(of: "usePollingTraps") == true)
        for name in ["thresholdForOptimizeAfterWarmUp", "thresholdForOptimizeAfterLongWarmUp", "thresholdForOptimizeSoon"] {
            #expect((JavaScriptCoreSettings.integerValue(of: name) ?? 1_000) > 1_000, "\(name)")
        }
        #expect(JavaScriptCoreSettings.integerValue(of: "noSuchOption") == nil)
        await context.close()
        thread.shutdown()
    }
}
