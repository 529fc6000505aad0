import Dispatch
import Foundation
import OrderedCollections
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import Synchronization

/// The fuzz body of `fuzz-script-value`: the input (UTF-8, lossy) is evaluated as JavaScript in
/// one long-lived document with the bridge installed, and the completion value is converted to a
/// ``ScriptValue`` with the bridge's body limits and with the default limits, and posted through
/// `window.webkit.messageHandlers.fuzz.postMessage`. Conversion may fail with a `ScriptError`;
/// it must never crash, run past the time limit, or leave a value protected.
///
/// ## Driving the actor from a synchronous callback
///
/// libFuzzer calls `LLVMFuzzerTestOneInput` on its own thread and wants the input done when the
/// call returns. The document is a `ScriptContext` actor whose executor is its `EngineThread`, so
/// every input is handed to that thread as a task isolated to the context
/// (`Task.immediate { await body(context) }`: it starts on the caller and goes straight to the
/// engine thread), and the caller blocks on a `DispatchSemaphore` until the body signals. The
/// caller is never the engine thread, so the wait cannot deadlock; the engine thread spins for
/// new work briefly, so the hand-over costs microseconds. `assumeIsolated` is not an option:
/// the callback never runs on the engine thread.
enum ScriptValueFuzz {
    /// How long one entry into JavaScript may run (the evaluation, and each getter or Proxy
    /// trap that a conversion calls).
    static let timeLimit: Duration = .milliseconds(50)
    /// Wall-clock bound on converting and posting one input's value; beyond it the input
    /// counts as a hang.
    static let hangLimit: Duration = .seconds(5)
    /// Wall-clock bound on evaluating one input. JavaScriptCore's time limit stops scripts, not
    /// a built-in that is already running: `"x".repeat(1 << 30)` makes a 2 GB string in one call
    /// (2 s here, most of it the kernel mapping the pages; longer under AddressSanitizer on a
    /// loaded machine), which no limit can interrupt. The bound is for a real hang.
    static let evaluationHangLimit: Duration = .seconds(60)

    /// The long-lived document, created on first use.
    static let document: ScriptContext = blocking { await makeDocument() }

    static func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        let source = unsafe String(decoding: bytes, as: UTF8.self)
        let context = document
        blocking { await body(source, in: context) }
    }

    /// Runs `work` to completion from synchronous code (never from the engine thread).
    static func blocking<T: Sendable>(_ work: sending @escaping @isolated(any) () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<T?>(nil)
        Task.immediate {
            let value = await work()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    // MARK: The document

    /// What the fuzz body needs from inside the document; only touched on its engine thread.
    @safe  // its JavaScriptCore references are used only on the document's engine thread, while the document lives
    final class Harness {
        /// `run(source)`: indirect `eval` of the source, in global scope.
        let run: RawObject
        /// `post(value)`: `webkit.messageHandlers.fuzz.postMessage(value)`, true when it did not throw.
        let post: RawObject

        init(run: RawObject, post: RawObject) {
            unsafe self.run = unsafe run
            unsafe self.post = unsafe post
        }
    }

    /// The bridge's handler: counts what it is given.
    final class Sink: ScriptMessageHandler {
        let received = Atomic<Int>(0)
        func userContentController(_ controller: UserContentController, didReceive message: ScriptMessage) {
            received.add(1, ordering: .relaxed)
        }
    }

    static let sink = Sink()
    static let controller: UserContentController = {
        let controller = UserContentController(limits: BridgeLimits(), log: nil)
        controller.add(sink, name: "fuzz")
        return controller
    }()

    static func makeDocument() async -> ScriptContext {
        let configuration = ScriptContext.Configuration(timeLimit: timeLimit, eventBufferSize: 16)
        let context = await ScriptContext(
            thread: EngineThread(name: "fuzz-script-value"), name: "https://app.example/fuzz",
            configuration: configuration)
        await setUp(context)
        return context
    }

    static func setUp(_ context: isolated ScriptContext) {
        do {
            let frame = FrameInfo(url: URL(string: "https://app.example/fuzz")!, isMainFrame: true)
            try BridgeInstallation.install(controller, world: .page, frame: frame, in: context)
            // Timers and microtasks are removed so that an input cannot leave work (and protected
            // callbacks) behind that runs during, and changes the outcome of, later inputs.
            let value = try unsafe context.evaluateRaw(
                """
                (function () {
                  "use strict";
                  const indirectEval = eval, post = globalThis.webkit.messageHandlers.fuzz.postMessage;
                  globalThis.window = globalThis;
                  for (const name of ["setTimeout", "setInterval", "queueMicrotask"]) delete globalThis[name];
                  return {
                    run(source) { return indirectEval(source); },
                    post(value) { try { post(value); return true; } catch (e) { return false; } },
                  };
                })()
                """, sourceURL: "sessionbridge://fuzz/harness.js")
            // Both functions are held for the life of the process.
            func function(_ name: String) -> RawObject {
                do { return try unsafe context.protectedFunction(name, of: value) } catch { fatalError("fuzz harness has no \(name)") }
            }
            unsafe context.attach(Harness(run: function("run"), post: function("post")))
        } catch {
            fatalError("fuzz document setup failed: \(error)")
        }
    }

    // MARK: One input

    static func body(_ source: String, in context: isolated ScriptContext) {
        guard let harness = context.attachment(Harness.self) else { fatalError("fuzz harness missing") }
        let started = ContinuousClock.now

        context.enterJavaScript()
        let value: RawValue?
        do {
            // A thrown error also clears a time-limit stop.
            unsafe value = try unsafe context.call(harness.run, [context.jsValue(.string(source))])
        } catch {
            checkTime(started, "evaluation", limit: evaluationHangLimit)
            return
        }
        checkTime(started, "evaluation", limit: evaluationHangLimit)
        let evaluated = ContinuousClock.now

        let protected = context.protectedCount
        let processProtected = ScriptEngineStatistics.protectedValueCount
        let bridgeBody = Result { () throws(ScriptError) in try unsafe context.scriptValue(value, limits: controller.limits.body) }
        let full = Result { () throws(ScriptError) in try unsafe context.scriptValue(value, limits: .default) }
        precondition(context.protectedCount == protected, "conversion left \(context.protectedCount - protected) value(s) protected")
        precondition(ScriptEngineStatistics.protectedValueCount == processProtected, "conversion changed the process's protected count")

        if case .success(let converted) = bridgeBody {
            check(converted, within: controller.limits.body)
            checkRoundTrip(converted, in: context)
        }
        if case .success(let converted) = full {
            check(converted, within: .default)
        }

        context.enterJavaScript()
        _ = try? unsafe context.call(harness.post, [value])
        precondition(context.protectedCount == protected, "postMessage left \(context.protectedCount - protected) value(s) protected")
        checkTime(evaluated, "conversion", limit: hangLimit)
    }

    static func checkTime(_ started: ContinuousClock.Instant, _ what: String, limit: Duration) {
        let elapsed = ContinuousClock.now - started
        precondition(elapsed < limit, "\(what) ran \(elapsed), past the \(limit) bound")
    }

    /// A converted value respects the limits it was converted with.
    static func check(_ value: ScriptValue, within limits: ConversionLimits) {
        var nodes = 0
        func walk(_ value: ScriptValue, depth: Int) {
            nodes += 1
            precondition(depth <= limits.maxDepth, "converted value deeper than \(limits.maxDepth)")
            switch value {
            case .number(let number):
                precondition(number.isFinite || limits.allowsNonFiniteNumbers, "a non-finite number crossed")
            case .array(let elements):
                for element in elements { walk(element, depth: depth + 1) }
            case .object(let members):
                for member in members.values { walk(member, depth: depth + 1) }
            case .bytes(let bytes):
                precondition(bytes.count <= limits.maxBytes, "byte array larger than \(limits.maxBytes)")
            default:
                break
            }
        }
        walk(value, depth: 0)
        precondition(nodes <= limits.maxNodes, "converted value has \(nodes) nodes, more than \(limits.maxNodes)")
    }

    /// A value that crossed once crosses back and forth unchanged.
    static func checkRoundTrip(_ value: ScriptValue, in context: isolated ScriptContext) {
        guard !containsProtoKey(value) else { return }  // see `containsProtoKey`
        let back = Result { () throws(ScriptError) in try unsafe context.scriptValue(context.jsValue(value), limits: .default) }
        guard case .success(let again) = back else {
            preconditionFailure("a converted value does not convert again: \(back)")
        }
        precondition(equivalent(value, again), "round trip changed the value: \(value) became \(again)")
    }

    /// Whether an object in `value` has an own `__proto__` key. Making the JavaScript object sets
    /// members with `JSObjectSetProperty`, which runs the `__proto__` setter instead of defining
    /// an own property, so such a key does not survive the trip (reported, not fixed here).
    static func containsProtoKey(_ value: ScriptValue) -> Bool {
        switch value {
        case .array(let elements): return elements.contains(where: containsProtoKey)
        case .object(let members): return members.keys.contains("__proto__") || members.values.contains(where: containsProtoKey)
        default: return false
        }
    }

    /// Equality, with NaN equal to itself.
    static func equivalent(_ a: ScriptValue, _ b: ScriptValue) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)): return x == y || (x.isNaN && y.isNaN)
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(equivalent)
        case (.object(let x), .object(let y)):
            return x.keys == y.keys && zip(x.values, y.values).allSatisfy(equivalent)
        default: return a == b
        }
    }
}
