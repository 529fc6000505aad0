import Foundation
import Logging
import SessionBridgeScriptEngine
import Synchronization

@testable import SessionBridgeMessaging

/// A document with the bridge installed, as a page would have it.
func makeDocument(
    _ controller: UserContentController, url: String = "https://app.example/home", world: ContentWorld = .page,
    isMainFrame: Bool = true, thread: EngineThread? = nil
) async throws -> ScriptContext {
    let context = await ScriptContext(thread: thread ?? EnginePool.shared.nextThread(), name: url)
    try await install(controller, world: world, frame: FrameInfo(url: URL(string: url)!, isMainFrame: isMainFrame), in: context)
    try await context.run("var window = globalThis;")
    return context
}

private func install(_ controller: UserContentController, world: ContentWorld, frame: FrameInfo, in context: isolated ScriptContext) throws
{
    try BridgeInstallation.install(controller, world: world, frame: frame, in: context)
}

/// Runs an async page script and returns what it resolved with (or throws its rejection).
func awaitScript(_ context: ScriptContext, _ source: String, timeout: Duration = .seconds(10)) async throws -> ScriptValue {
    try await context.run(
        """
        globalThis.__done = false; globalThis.__result = undefined; globalThis.__error = undefined;
        (async () => { \(source) })().then(v => { __result = v; __done = true }, e => { __error = {name: e.name, message: e.message, code: e.code, retryable: e.retryable, data: e.data}; __done = true });
        """)
    _ = await context.runUntilQuiescent(timeout: timeout)
    if try await context.evaluate("__error") != .undefined {
        throw PageRejection(value: try await context.evaluate("__error"))
    }
    return try await context.evaluate("__result === undefined ? null : __result")
}

struct PageRejection: Error {
    let value: ScriptValue
}

/// Counts calls, safely from any thread.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

/// A handler without reply that remembers what it got.
final class Recorder: ScriptMessageHandler {
    let messages = Mutex<[ScriptMessage]>([])
    func userContentController(_ controller: UserContentController, didReceive message: ScriptMessage) {
        messages.withLock { $0.append(message) }
    }
}

/// Deadlines the bridge still tracks in a document (settled calls must not linger).
func pendingDeadlines(in context: isolated ScriptContext) -> Int {
    context.attachment(BridgeInstallation.self)?.pendingDeadlines ?? -1
}

/// Waits until `condition` holds or `timeout` passes (for effects that land on another thread).
func eventually(_ timeout: Duration = .seconds(30), _ condition: () async -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}

extension SecurityOrigin {
    /// The origin of the documents ``makeDocument(_:url:world:isMainFrame:thread:)`` makes by default.
    static let appExample = SecurityOrigin("https://app.example")!
}

extension HandlerOptions {
    /// Allows the default test document's origin only.
    static let appExample = HandlerOptions(allowedOrigins: [.appExample])
}

/// Every line a logger writes, with its metadata.
final class LogLines: Sendable {
    let lines = Mutex<[String]>([])

    struct Handler: LogHandler {
        let collector: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            collector.lines.withLock { $0.append("\(event.message) \(event.metadata ?? [:])") }
        }
    }

    var logger: Logger { Logger(label: "test") { _ in Handler(collector: self) } }
}
