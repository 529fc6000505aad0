import Foundation
import SessionBridgeTestSupport
import Testing

/// `bridge-runner run` on pages that try to go on after the execution time limit stopped
/// them inside a native call, or that never give the thread back through a chain of
/// microtasks. Each must be stopped in the process: no line the page prints after the stop,
/// and no run ended only by the hard `--timeout` (exit code 3).
@Suite(.timeLimit(.minutes(4)), .hangWatchdog)
struct StopEscapeTests {
    /// Runs for four seconds without calling anything native, then prints.
    static let goOn = "{ const start = Date.now(); while (Date.now() - start < 4000) {} } console.log('RAN ON AFTER THE STOP');"

    static let pages: [(name: String, source: String)] = [
        ("toJSON", "console.log({ toJSON() { for (;;) {} } }); \(goOn)"),
        ("valueOf", "setTimeout(() => {}, { valueOf() { for (;;) {} } }); \(goOn)"),
        (
            "rejection message",
            """
            const error = new Error("x");
            Object.defineProperty(error, "message", { get() { for (;;) {} } });
            Promise.reject(error);
            """
        ),
        ("microtask chain", "function f() { Promise.resolve().then(f); } f();"),
        ("await loop in then", "let n = 0; function g() { n++; return Promise.resolve().then(g); } g();"),
    ]

    @Test(arguments: pages.map(\.name))
    func aStoppedPageDoesNotGoOn(_ name: String) async throws {
        let source = try #require(Self.pages.first { $0.name == name }?.source)
        let script = try RunnerProcess.temporaryFile("page.js", source)
        let result = try await RunnerProcess.run(["run", script.path, "--entry-time-limit", "1", "--timeout", "60"], timeout: 120)
        let output = result.stdout + result.stderr
        #expect(!output.contains("RAN ON AFTER THE STOP"), "\(output.suffix(2000))")
        #expect(result.exitCode != 3, "ended only by --timeout: \(output.suffix(2000))")
        #expect(output.contains("TimeLimitExceeded"), "\(output.suffix(2000))")
    }
}
