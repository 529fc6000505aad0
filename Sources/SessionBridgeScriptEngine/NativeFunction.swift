package import CJavaScriptCore
import Synchronization

/// A native function's body: runs on the context's thread, inside JavaScript's call.
/// Throw ``ScriptThrow`` to throw a specific error in JavaScript; any other error is thrown as a
/// generic `Error` whose message is the error's description.
public typealias NativeFunction = @Sendable (_ context: isolated ScriptContext, _ arguments: [ScriptValue]) throws -> ScriptValue

/// The raw form of a native function, for layers that work with JavaScriptCore values directly
/// (`SessionBridgeMessaging`, `SessionBridgeHeadless`): no conversion of arguments or result.
package typealias RawNativeFunction = (_ context: isolated ScriptContext, _ call: RawCall) throws -> JSValueRef?

/// The JavaScriptCore values of one native call.
@safe  // its JavaScriptCore references are used only on its context's engine thread, while the context lives
package struct RawCall {
    /// The execution context of the call; use it for every C API call made while handling it.
    package let ctx: JSContextRef
    package let this: JSObjectRef?
    package let arguments: UnsafeBufferPointer<JSValueRef?>

    package subscript(index: Int) -> JSValueRef? {
        unsafe index < arguments.count ? arguments[index] : nil
    }
}

/// Keeps a native function's body alive for as long as its context.
///
/// Two owners hold it: its context (``ScriptContext/nativeFunctions``) and its JavaScript
/// function object, released by the object's finalizer once the collector has freed it. A
/// function object can outlive its context, and even be called then: JavaScriptCore's deferred
/// work (a WebAssembly compilation finishing) may run a released document's code. So the box
/// stays valid for every call, finds its context's functions closed (``functions``), and throws
/// without touching the context, which is held unretained and lent to each open call without a
/// retain. When its context closes, the body is dropped (``dropBody()``), so that a finalizer
/// frees nothing but the box.
@safe  // its JavaScriptCore references are used only on its context's engine thread, while the context lives
final class NativeFunctionBox {
    /// Unretained, as `unowned(unsafe)`, and lent to each call without a retain
    /// (``nativeFunctionTrampoline``). Reading an `unowned(unsafe)` reference into a constant
    /// retained it, and a context has a weak reference's side table (its timers and observers
    /// hold it weakly), so that retain and its release took the slow path: 2.5% of a round
    /// trip's samples.
    let context: Unmanaged<ScriptContext>
    /// The same context, for calls made from JavaScriptCore's deferred work, which no entry holds
    /// it for (``nativeFunctionTrampoline``).
    weak var weakContext: ScriptContext?
    /// The lane its thread runs (the thread itself may be gone when the box is).
    let running: RunningLane
    /// The body as an ordinary function of the context, called after the trampoline checked
    /// the thread (see ``nativeFunctionTrampoline``).
    private(set) var body: (_ context: ScriptContext, _ call: RawCall) throws -> JSValueRef?
    /// The context's ``ScriptContext/functionsAreOpen``: a closed context's functions throw,
    /// and none reaches a context being torn down.
    let functions: OpenFlag

    init(context: ScriptContext, body: @escaping RawNativeFunction) {
        unsafe self.context = Unmanaged.passUnretained(context)
        self.weakContext = context
        self.running = context.thread.hostThread.running
        self.functions = context.functionsAreOpen
        // The same function without `isolated` on its parameter (the same calling convention;
        // `Actor.assumeIsolated` makes this cast too): the trampoline calls it only on the
        // context's thread, which is the isolation the body was written for.
        unsafe self.body = unsafe unsafeBitCast(body, to: ((ScriptContext, RawCall) throws -> JSValueRef?).self)
    }

    /// Lets go of the body and what it captured, on the context's thread, once the context's
    /// functions are closed: no call runs it from then on.
    func dropBody() {
        unsafe body = { _, _ in nil }
    }
}

/// A context's native functions' boxes (``NativeFunctionBox``): the context's reference to them.
///
/// `@unchecked Sendable` is safe: its list is read and written only by its context, in the
/// context's isolated methods on its thread, and in the context's deinit, which runs when
/// nothing else refers to the context.
final class NativeFunctionBoxes: @unchecked Sendable {
    var boxes: [NativeFunctionBox] = []

    /// Drops every body (``NativeFunctionBox/dropBody()``) and lets go of the boxes, once the
    /// context's functions are closed: a box a function object still holds is freed by its
    /// finalizer, with nothing left to free but itself.
    func dropBodies() {
        for box in boxes { box.dropBody() }
        boxes.removeAll()
    }
}

/// Whether a context's native functions may still run (see ``ScriptContext/functionsAreOpen``);
/// its functions share it with the context.
final class OpenFlag: Sendable {
    private let open = Atomic<Bool>(true)

    var isOpen: Bool { open.load(ordering: .acquiring) }

    func close() { open.store(false, ordering: .releasing) }
}

/// The single JavaScriptCore class behind every native function.
///
/// `@unchecked Sendable` is safe: a `JSClassRef` is immutable once created and is retained for
/// the life of the process.
@safe  // its JavaScriptCore references are used only on its context's engine thread, while the context lives
struct NativeFunctionClass: @unchecked Sendable {
    let ref: JSClassRef

    static let shared: NativeFunctionClass = {
        var definition = unsafe kJSClassDefinitionEmpty
        unsafe definition.className = nil
        unsafe definition.callAsFunction = unsafe nativeFunctionTrampoline
        // The function object's reference to its box (see ``NativeFunctionBox``). A finalizer
        // must not call into JavaScriptCore: this releases a box whose body is gone, or one its
        // context still holds.
        unsafe definition.finalize = { object in
            guard let pointer = unsafe JSObjectGetPrivate(object) else { return }
            unsafe Unmanaged<NativeFunctionBox>.fromOpaque(pointer).release()
        }
        return unsafe NativeFunctionClass(ref: JSClassCreate(&definition))
    }()
}

/// Entered by JavaScriptCore for every call of a native function.
///
/// JavaScriptCore calls it only on the thread that runs the context's JavaScript, the context's
/// engine thread (or the thread hosting its lane): the thread check here is the isolation
/// check `assumeIsolated` would make through the task's executor, without its lookups, its
/// retain of the context and its non-escaping closure check, a sixth of a bare call's time.
private func nativeFunctionTrampoline(
    _ ctx: JSContextRef?, _ function: JSObjectRef?, _ this: JSObjectRef?,
    _ argumentCount: Int, _ arguments: UnsafePointer<JSValueRef?>?, _ exception: UnsafeMutablePointer<JSValueRef?>?
) -> JSValueRef? {
    guard let ctx = unsafe ctx, let function = unsafe function, let pointer = unsafe JSObjectGetPrivate(function) else { return nil }
    let box = unsafe Unmanaged<NativeFunctionBox>.fromOpaque(pointer).takeUnretainedValue()
    guard box.functions.isOpen else {
        unsafe exception?.pointee = unsafe makeError(in: ctx, name: "Error", message: "the script context is closed")
        return nil
    }
    // Lent for the call, not retained: the entry that runs this call's JavaScript holds the
    // context, and the open flag above keeps calls from one being torn down. JavaScriptCore's
    // deferred work is an entry nobody holds a context for: there the call holds it, so that
    // neither a body dropping the last reference nor another thread frees it under the call.
    if _slowPath(box.running.isMainContextWork) {
        // Its last reference may go meanwhile, on another thread: a weak load retains it only
        // while it is not being torn down.
        guard let held = box.weakContext else {
            unsafe exception?.pointee = unsafe makeError(in: ctx, name: "Error", message: "the script context is closed")
            return nil
        }
        return unsafe callBody(of: box, in: held, ctx, this, argumentCount, arguments, exception)
    }
    return unsafe box.context._withUnsafeGuaranteedRef { context in
        unsafe callBody(of: box, in: context, ctx, this, argumentCount, arguments, exception)
    }
}

/// The rest of ``nativeFunctionTrampoline``, with the context lent to it.
@inline(__always)
private func callBody(
    of box: NativeFunctionBox, in context: ScriptContext, _ ctx: JSContextRef, _ this: JSObjectRef?,
    _ argumentCount: Int, _ arguments: UnsafePointer<JSValueRef?>?, _ exception: UnsafeMutablePointer<JSValueRef?>?
) -> JSValueRef? {
    let thread = context.thread
    precondition(thread.isCurrent, "a native function of \(context.name) was called off its engine thread")
    // JavaScriptCore drops the VM's API lock around a native call, and every C API call the
    // body makes would take it and let it go again (a third of a structured call's time in
    // the C baselines); held here, those calls only count. Letting go does not drain
    // microtasks inside a native call.
    let lock = MicrotaskCheckpoint.functions
    unsafe lock?.lock(ctx)
    defer { unsafe lock?.unlock(ctx) }
    // A stopped entry runs no more native code, and a stop that happened inside this call
    // (a getter, `toJSON`, `valueOf` or `then` it ran) ends the entry: the call throws
    // JavaScriptCore's own termination, so the stop is never swallowed here.
    if thread.entryStopped.load(ordering: .relaxed) {
        unsafe exception?.pointee = unsafe makeTermination(in: ctx)
        return nil
    }
    let call = unsafe RawCall(ctx: ctx, this: this, arguments: UnsafeBufferPointer(start: arguments, count: argumentCount))
    // Both are only read and written on this thread: a plain load and store each, not the
    // locked read-modify-write an `add` or `exchange` costs (three of them were a tenth of a
    // bare native call).
    let depth = thread.nativeDepth.load(ordering: .relaxed)
    thread.nativeDepth.store(depth + 1, ordering: .relaxed)
    let outerLocking = thread.lockingContext.load(ordering: .relaxed)
    thread.lockingContext.store(lock == nil ? 0 : UInt(bitPattern: ctx), ordering: .relaxed)
    var result: JSValueRef? = nil
    var thrown: JSValueRef? = nil
    do {
        unsafe result = try unsafe box.body(context, call)
    } catch {
        unsafe thrown = unsafe makeError(in: ctx, error)
    }
    thread.nativeDepth.store(depth, ordering: .relaxed)
    thread.lockingContext.store(outerLocking, ordering: .relaxed)
    // The watchdog sets the flag from its own thread; it is cleared only once seen set.
    if thread.watchdogFired.load(ordering: .relaxed), thread.watchdogFired.exchange(false, ordering: .relaxed) { context.stopEntry() }
    if thread.entryStopped.load(ordering: .relaxed) { unsafe thrown = unsafe makeTermination(in: ctx) }
    if let thrown = unsafe thrown {
        unsafe exception?.pointee = unsafe thrown
        return nil
    }
    return unsafe result ?? JSValueMakeUndefined(ctx)
}

/// Makes a JavaScript error object for a Swift error.
package func makeError(in ctx: JSContextRef, _ error: any Error) -> JSValueRef {
    switch error {
    case let thrown as ScriptThrow:
        let object = unsafe makeError(in: ctx, name: thrown.name, message: thrown.message)
        guard !thrown.properties.isEmpty else { return unsafe object }
        // Its own members, even where a page froze `Error.prototype`.
        unsafe settingOwnMembers(of: object, in: ctx) {
            unsafe setMembers(thrown.properties.lazy.map { (key: $0.0, value: $0.1) }, on: object, in: ctx)
        }
        return unsafe object
    case let scriptError as ScriptError:
        return unsafe makeError(in: ctx, name: scriptError.name, message: scriptError.message)
    default:
        return unsafe makeError(in: ctx, name: "Error", message: String(describing: error))
    }
}

/// The message of JavaScriptCore's termination, the uncatchable exception that ends a script
/// stopped by its time limit.
let terminationMessage = "JavaScript execution terminated."

/// A value that, thrown from a native call, ends the calling script as JavaScriptCore's own
/// termination does: its next call or loop iteration is ended, and no native function runs.
func makeTermination(in ctx: JSContextRef) -> JSValueRef {
    let message = unsafe makeJSString(terminationMessage)
    defer { unsafe JSStringRelease(message) }
    return unsafe JSValueMakeString(ctx, message)
}

/// Makes a JavaScript `Error` with the given name and message.
package func makeError(in ctx: JSContextRef, name: String, message: String) -> JSObjectRef {
    let messageString = unsafe makeJSString(message)
    var argument: JSValueRef? = unsafe JSValueMakeString(ctx, messageString)
    unsafe JSStringRelease(messageString)
    // While JavaScriptCore is ending a script that ran past its time limit it refuses to make an
    // error; a plain object carries the name and message then.
    let error = unsafe JSObjectMakeError(ctx, 1, &argument, nil) ?? JSObjectMake(ctx, nil, nil)!
    // A `TypeError` is one (`instanceof TypeError`, as a failed `fetch`'s is in WebKit, which
    // libraries test to tell a network error), its name inherited as a native one's is.
    if name == "TypeError", let prototype = unsafe typeErrorPrototype(in: ctx) {
        unsafe JSObjectSetPrototype(ctx, error, prototype)
        return unsafe error
    }
    if name != "Error" {
        let nameString = unsafe makeJSString(name)
        // Its own `name`, even where a page froze `Error.prototype` (whose `name` would
        // otherwise be set, and stay "Error").
        unsafe settingOwnMembers(of: error, in: ctx) {
            unsafe JSObjectSetProperty(
                ctx, error, PropertyName.name.ref, JSValueMakeString(ctx, nameString),
                JSPropertyAttributes(kJSPropertyAttributeDontEnum), nil)
        }
        unsafe JSStringRelease(nameString)
    }
    return unsafe error
}

/// The realm's own `TypeError.prototype`: read from a `TypeError` JavaScriptCore throws itself
/// (`null` made an object), so that a page that replaced the global `TypeError` cannot change
/// it; nil while a script is being ended, when JavaScriptCore makes no error.
private func typeErrorPrototype(in ctx: JSContextRef) -> JSValueRef? {
    var exception: JSValueRef? = nil
    _ = unsafe JSValueToObject(ctx, JSValueMakeNull(ctx), &exception)
    guard let exception = unsafe exception, unsafe JSValueIsObject(ctx, exception),
        let thrown = unsafe JSValueToObject(ctx, exception, nil)
    else { return nil }
    return unsafe JSObjectGetPrototype(ctx, thrown)
}

/// Carries values that belong to one engine thread (JavaScriptCore values, objects a layer
/// attached to a context) into closures that the compiler cannot prove run there.
///
/// `@unchecked Sendable` is safe as used: it is only created on an engine thread and unwrapped
/// by code that runs on that same thread (a native callback or a timer of the same context,
/// which JavaScriptCore and ``EngineThread`` only ever invoke there), so the value never
/// changes threads.
package struct EngineThreadOnly<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
