import Foundation
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeScriptEngine

/// An engine thread carries its name in the OS, where `top -H`, `perf` and debuggers show it.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct EngineThreadNameTests {
    @Test func theThreadIsNamedInTheOS() async throws {
        let thread = EngineThread(name: "sb-name-test")
        let context = await ScriptContext(thread: thread)
        #expect(try await context.osThreadName() == "sb-name-test")
        await context.close()
        thread.shutdown()
    }

    @Test func aLongNameIsCutToWhatLinuxKeepsBetweenCharacters() {
        #expect(EngineThread.osName("ScriptEngine") == "ScriptEngine")
        #expect(EngineThread.osName("https://app.example/home") == "https://app.exa")
        #expect(EngineThread.osName("页面-页面-页面-页面") == "页面-页面-")  // 14 bytes: the next character would split
        #expect(EngineThread.osName("") == "")
    }
}

extension ScriptContext {
    /// The name the OS gives the thread this runs on.
    fileprivate func osThreadName() throws -> String {
        try String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8).trimmingCharacters(in: .newlines)
    }
}
