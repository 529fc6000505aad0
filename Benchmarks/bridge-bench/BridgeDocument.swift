import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import Synchronization

/// Where the page's `__done(sum)` delivers a timed run: the clock starts on the engine thread
/// right before `__run` is evaluated and stops inside `__done`, so no scheduling outside the
/// round trips is timed.
final class RunProbe: Sendable {
    private struct State {
        var start: ContinuousClock.Instant?
        var continuation: CheckedContinuation<(Duration, Double), any Error>?
    }

    private let state = Mutex(State())

    func arm(_ continuation: CheckedContinuation<(Duration, Double), any Error>) {
        state.withLock { $0 = State(start: .now, continuation: continuation) }
    }

    func finish(sum: Double) {
        let end = ContinuousClock.now
        let (start, continuation) = state.withLock { state in
            defer { state = State() }
            return (state.start, state.continuation)
        }
        if let start { continuation?.resume(returning: (end - start, sum)) }
    }

    func fail(_ error: any Error) {
        state.withLock { state in
            defer { state = State() }
            return state.continuation
        }?.resume(throwing: error)
    }
}

/// A document with the bridge installed (a `ScriptContext` plus `BridgeInstallation`, as
/// `Tests/SessionBridgeMessagingTests/Support.swift` sets one up), a handler `h`, and the round-trip page code.
final class BridgeDocument: Sendable {
    let context: ScriptContext
    let body: PageScripts.Body
    private let probe = RunProbe()

    private init(context: ScriptContext, body: PageScripts.Body) {
        self.context = context
        self.body = body
    }

    /// - Parameters:
    ///   - handler: registered as `window.webkit.messageHandlers.h`.
    ///   - log: whether the controller keeps a ``MessageLog`` (the default) or none.
    static func make(
        handler: any ScriptMessageHandlerWithReply, body: PageScripts.Body, log: Bool = true,
        thread: EngineThread, url: String = "https://app.example/home", timeLimit: Duration? = nil
    ) async throws -> BridgeDocument {
        let controller = UserContentController(log: log ? MessageLog() : nil)
        controller.addScriptMessageHandler(handler, name: "h", options: allowing(url))
        return try await make(controller: controller, body: body, thread: thread, url: url, timeLimit: timeLimit)
    }

    /// A document whose handler `h` answers through a reply handler.
    static func make(
        replyHandler handler: any ScriptMessageHandlerWithReplyHandler, body: PageScripts.Body, thread: EngineThread,
        url: String = "https://app.example/home"
    ) async throws -> BridgeDocument {
        let controller = UserContentController(log: MessageLog())
        controller.addScriptMessageHandler(handler, name: "h", options: allowing(url))
        return try await make(controller: controller, body: body, thread: thread, url: url)
    }

    /// Handler options that allow the document at `url`, as an app allows its own origin
    /// (handlers refuse every origin they were not given).
    static func allowing(_ url: String = "https://app.example/home") -> HandlerOptions {
        HandlerOptions(allowedOrigins: [SecurityOrigin(url: URL(string: url)!)!])
    }

    /// A document of `controller`, which must have a handler `h`.
    static func make(
        controller: UserContentController, body: PageScripts.Body, thread: EngineThread, url: String = "https://app.example/home",
        timeLimit: Duration? = nil
    ) async throws -> BridgeDocument {
        // No execution time limit unless asked, as in the C baselines: with one, JavaScriptCore
        // reads the thread's CPU time on every VM entry. (With a limit or without, the
        // document's outermost entry runs its microtask checkpoint inside itself.)
        let context = await ScriptContext(thread: thread, name: url, configuration: .init(timeLimit: timeLimit))
        let document = BridgeDocument(context: context, body: body)
        try await prepare(context, controller: controller, url: url, body: body, probe: document.probe)
        return document
    }

    /// Runs `n` round trips in `lanes` concurrent lanes; returns nanoseconds per round trip.
    func run(_ n: Int, lanes: Int = 1) async throws -> Double {
        let (elapsed, sum) = try await start(context, probe: probe, n: n, lanes: lanes)
        guard sum == PageScripts.expectedSum(n: n, lanes: lanes) else {
            throw BenchFailure("bridge bench: wrong sum \(sum) for n=\(n) lanes=\(lanes)")
        }
        return elapsed.nanoseconds / Double((n / lanes) * lanes)
    }

    func close() async {
        await context.close()
    }
}

private func prepare(
    _ context: isolated ScriptContext, controller: UserContentController, url: String, body: PageScripts.Body, probe: RunProbe
) throws {
    try BridgeInstallation.install(controller, world: .page, frame: FrameInfo(url: URL(string: url)!), in: context)
    try context.run("var window = globalThis;")
    let done = unsafe context.makeFunction { context, call in
        unsafe probe.finish(sum: try context.scriptValue(call[0]).numberValue ?? -1)
        return nil
    }
    unsafe context.define(done, as: "__done")
    try context.run(PageScripts.source(body))
}

private func start(_ context: isolated ScriptContext, probe: RunProbe, n: Int, lanes: Int) async throws -> (Duration, Double) {
    try await withCheckedThrowingContinuation { continuation in
        probe.arm(continuation)
        do {
            try context.run("__run(\(n), \(lanes))")
        } catch {
            probe.fail(error)
        }
    }
}
