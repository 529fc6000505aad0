package import CJavaScriptCore
package import DequeModule
import Dispatch
import Synchronization

/// A JavaScript global context bound to one ``EngineThread``.
///
/// The context is an actor whose executor is its engine thread, so every use of JavaScript is
/// isolated by the compiler. Scripts get `console`, timers and `queueMicrotask`; uncaught errors
/// and unhandled rejections are reported as ``ScriptEvent``s; a runaway script is ended by the
/// execution time limit.
///
/// ```swift
/// let context = await ScriptContext()
/// await context.defineFunction("add") { _, arguments in
///     .number((arguments.first?.numberValue ?? 0) + (arguments.last?.numberValue ?? 0))
/// }
/// let sum = try await context.evaluate("add(2, 3)")   // .number(5)
/// ```
@safe  // its JavaScriptCore references are used only on its context's engine thread, while the context lives
public actor ScriptContext {
    /// Settings of a context.
    public struct Configuration: Sendable {
        /// How long one entry into JavaScript may run before it is ended with
        /// ``ScriptError/Kind/timeLimitExceeded``; `nil` for no limit.
        public var timeLimit: Duration?
        /// Bounds on values converted from JavaScript.
        public var conversionLimits: ConversionLimits
        /// How many recent events `recentEvents` keeps.
        public var eventBufferSize: Int
        /// The process's resident memory past which a script of this context is ended with
        /// ``ScriptError/Kind/memoryLimitExceeded``; `nil` for no limit. Contexts may share
        /// one (``MemoryLimit``): it is read at each entry.
        ///
        /// Contexts run in the app's process, so the figure is the process's (as WebKit's
        /// memory pressure settings measure a web process): set it above what the app itself
        /// holds. It is read every 100 ms of a script's CPU time and at most every 100 ms
        /// between scripts. Ending the script frees nothing the page still references: from
        /// then on every entry of the context is stopped before it runs, as nothing of a web
        /// process WebKit ended runs again: close the context (``memoryLimitExceeded``). A
        /// headless page does, and collects what the document held at once.
        public var memoryLimit: MemoryLimit?
        /// Called on the context's thread when the first of its scripts is ended for
        /// ``memoryLimit`` (the later ones are entries of an ended context).
        public var memoryLimitExceeded: (@Sendable (ScriptContext) -> Void)?
        /// What stops this context's scripts from outside, if anything (shared with others).
        public var interruption: ScriptInterruption?

        public init(
            timeLimit: Duration? = .seconds(10), conversionLimits: ConversionLimits = .default, eventBufferSize: Int = 1000,
            memoryLimit: MemoryLimit? = nil, memoryLimitExceeded: (@Sendable (ScriptContext) -> Void)? = nil,
            interruption: ScriptInterruption? = nil
        ) {
            self.timeLimit = timeLimit
            self.conversionLimits = conversionLimits
            self.eventBufferSize = eventBufferSize
            self.memoryLimit = memoryLimit
            self.memoryLimitExceeded = memoryLimitExceeded
            self.interruption = interruption
        }
    }

    /// The thread this context runs on.
    public nonisolated let thread: EngineThread
    /// A name for logs (usually the document URL).
    public nonisolated let name: String
    public let configuration: Configuration

    nonisolated let globalContext: GlobalContext
    let timeLimitSeconds: Double
    /// Whether one of this context's scripts was ended for ``Configuration/memoryLimit``: from
    /// then on every entry of the context is stopped before it runs, as nothing of a web process
    /// WebKit ended runs again, until the context is closed.
    package private(set) var endedForMemory = false
    /// Whether that stop was reported (``firstMemoryStopReport()``).
    private var memoryStopReported = false
    /// The page's side of an uncaught exception or rejection (``reportUncaught(_:rejectionOf:)``),
    /// called with `(value, isRejection, promise)`. Set by the layer that makes the page;
    /// protected by it.
    package var uncaughtHook: JSObjectRef?
    /// Whether ``uncaughtHook`` is running.
    private var reportingUncaught = false
    /// Where the code a timer was given runs, as its errors report it: its document's URL, as
    /// browsers have it (set by the layer that makes the document).
    package var timerCodeURL: String?
    /// Whether `eval`, `Function` and a timer's code may compile code (``refuseCodeFromStrings(message:onTimerCode:)``).
    package internal(set) var compilesCodeFromStrings = true
    /// Told of a timer given code while ``compilesCodeFromStrings`` is off: the code (which does not run).
    package var refusedTimerCode: ((isolated ScriptContext, String) -> Void)?
    /// Values this context protects from garbage collection right now (see ``protect(_:)``).
    package internal(set) var protectedCount = 0
    /// Whether ``close()`` was called; a closed context runs nothing.
    public private(set) var isClosed = false

    nonisolated let nativeFunctions = NativeFunctionBoxes()
    /// Whether this context's native functions may run: cleared by ``close()`` and by the
    /// deinit, before the global context is released (the functions hold the context unowned).
    nonisolated let functionsAreOpen = OpenFlag()
    var timers: [Int: ScriptTimer] = [:]
    var nextTimerID = 1
    var deferreds: [Int: Deferred] = [:]
    var nextDeferredID = 1
    var tasks: [Int: Task<Void, Never>] = [:]
    /// The ``tasks`` a close leaves running (``startTask(settling:outlivingTheContext:_:)``).
    var tasksOutlivingTheContext: Set<Int> = []
    var nextTaskID = 1
    /// Where the tasks of ``startTask(settling:_:)`` send their results (made with the first).
    lazy var taskResults = ScriptContextInbox<TaskResult>(for: self) { context, ended in Self.taskEnded(ended, in: context) }
    var holds = 0
    var quiescenceWaiters: [Int: CheckedContinuation<Bool, Never>] = [:]
    var nextWaiterID = 1
    /// The waiters for the quiet last resumed together, by id, in the order they were resumed.
    /// (When each then runs is the concurrency runtime's: a resumed task is queued on this
    /// context's thread, but under load one was seen to run after the others.)
    package internal(set) var lastResumedQuiescenceWaiters: [Int] = []
    var eventHandler: (@Sendable (ScriptEvent) -> Void)?
    var attachments: [ObjectIdentifier: AnyObject] = [:]
    var awaiting: [Int: CheckedContinuation<Result<ScriptValue, ScriptError>, Never>] = [:]
    var nextAwaitID = 1
    var awaitHelperFunction: JSObjectRef?
    /// For tests: ``evaluateAsync(_:sourceURL:timeout:)`` runs a full, synchronous garbage
    /// collection between evaluating the script and starting to wait for its value, where the
    /// value is held only by native code.
    package var collectsGarbageBeforeAwaiting = false
    /// Whether the current entry into JavaScript on this context's thread was stopped.
    var stoppedInThisEntry: Bool { thread.entryStopped.load(ordering: .relaxed) }
    /// Whether the current entry's stop was already handed to the caller as an error.
    var stopTold = false
    /// The pristine `Object.keys`, captured before any page script ran (entry 0 of
    /// ``pristineBuiltins``, which keeps it).
    var objectKeys: JSObjectRef?
    /// The pristine `Object.prototype`, `ArrayBuffer.isView` and `Object.getPrototypeOf`, kept
    /// by ``pristineBuiltins``.
    var objectPrototype: JSObjectRef?
    var isView: JSObjectRef?
    var prototypeOf: JSObjectRef?
    /// The record in which the walkers keep the objects they read, for the reader to check
    /// (``ValueWalker``), kept by ``pristineBuiltins``.
    var walkedObjects: JSObjectRef?
    /// The built-ins captured before any page script ran (``PristineBuiltins``): the value
    /// walker and the await helper are made from them when first needed.
    var pristineBuiltins: JSObjectRef?
    /// Makes a ``ValueWalker`` for a set of limits, from ``pristineBuiltins`` (which keeps it).
    var walkerFactory: JSObjectRef?
    /// How many values this context has read part by part inside objects
    /// (``scriptValue(_:limits:reader:)``): past ``ObjectReader/nodesBeforeWalker`` it reads
    /// objects with its walker.
    var nodesReadPartByPart = 0
    /// The walkers made so far, by their limits (a context uses one or two); the factory keeps
    /// them alive.
    var walkers: [ConversionLimits: JSObjectRef] = unsafe [:]
    /// The native function in which an object is read when no entry is running
    /// (``scriptValue(_:limits:reader:)``), made with the context and protected until it closes.
    var entryReader: JSObjectRef?
    /// What ``entryReader`` is asked to read with, and what it read.
    var entryRead: (limits: ConversionLimits?, reader: ObjectReader, result: Result<ScriptValue, ScriptError>?)?
    /// The realm's `Function.prototype`, which native functions inherit from: read once, before
    /// any page script ran (a page can rebind the global `Function`). The global object keeps it
    /// alive for as long as the context lives.
    var functionPrototype: JSObjectRef?
    /// The native function that runs the microtask checkpoint inside an entry (``MicrotaskCheckpoint``),
    /// when JavaScriptCore exports what the checkpoint needs.
    var checkpointFunction: JSObjectRef?
    /// Whether the current outermost entry holds the VM's API lock, for ``leaveJavaScript()`` to run
    /// the checkpoint and release it.
    var holdsEntryLock = false
    /// Whether the current outermost entry runs the checkpoint in its own call
    /// (``enterJavaScriptWithCheckpoint()``): ``leaveJavaScript()`` then only releases the lock.
    var entryRunsItsCheckpoint = false
    /// Whether the current outermost entry is the platform's own work (a document's stage, an
    /// event it fires), whose callbacks each end with a microtask checkpoint
    /// (``runMicrotasksBetweenCallbacks()``); cleared as the entry ends.
    package private(set) var platformEntry = false
    /// Whether ``runMicrotasksBetweenCallbacks()`` is running the queue.
    private var drainingBetweenCallbacks = false
    var closeHandlers: [(isolated ScriptContext) -> Void] = []
    /// The most recent events, oldest first (bounded by ``Configuration/eventBufferSize``).
    package private(set) var recentEvents = Deque<ScriptEvent>()
    private var recentEventBytes = 0

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        unsafe thread.asUnownedSerialExecutor()
    }

    /// Creates a context on `thread`, with `console`, timers and `queueMicrotask` installed.
    public init(
        thread: EngineThread = EnginePool.shared.nextThread(), name: String = "about:blank", configuration: Configuration = .init()
    ) async {
        let made = await thread.makeGlobalContextOnItsThread()
        self.init(onCallingThread: thread, name: name, configuration: configuration, made: made)
        setUp()
    }

    /// Creates a context on `thread` from code already running there (an actor that shares the
    /// thread's executor): no hop to the thread and back, and the global object is made on the
    /// thread that will run it.
    package init(onCurrentThread thread: EngineThread, name: String, configuration: Configuration) {
        precondition(thread.isIsolatingCurrentContext() == true, "ScriptContext(onCurrentThread:) called off \(thread.name)")
        self.init(onCallingThread: thread, name: name, configuration: configuration)
        assumeIsolated { $0.setUp() }
    }

    /// The stored parts, with the global object `made` on the thread
    /// (``EngineThread/makeGlobalContextOnItsThread()``), or made on the calling thread, which
    /// is the context's; ``setUp()`` follows.
    private init(onCallingThread thread: EngineThread, name: String, configuration: Configuration, made: UInt = 0) {
        self.thread = thread
        self.name = name
        self.configuration = configuration
        self.timeLimitSeconds = configuration.timeLimit.map { $0 / .seconds(1) } ?? .infinity
        let ref: JSGlobalContextRef = unsafe OpaquePointer(bitPattern: made) ?? JSGlobalContextCreateInGroup(thread.group.ref, nil)
        self.globalContext = unsafe GlobalContext(ref, rejectionSink: thread.rejectionSink())
    }

    /// What every new context gets: the checkpoint, the pristine built-ins, `console`, timers,
    /// `queueMicrotask` and rejection tracking.
    private func setUp() {
        ScriptEngineStatistics.liveContexts.add(1, ordering: .relaxed)
        if MicrotaskCheckpoint.functions != nil {
            if let function = unsafe JSObjectMakeFunctionWithCallback(ctx, nil, MicrotaskCheckpoint.callback) {
                unsafe protect(function)
                unsafe checkpointFunction = unsafe function
            }
        }
        unsafe functionPrototype = unsafe realmFunctionPrototype()
        makeEntryReader()
        capturePristineBuiltins()
        installConsole()
        installMicrotaskBound()
        installTimers()
        installRejectionTracking()
    }

    deinit {
        // The global context and every value still protected are released by `globalContext`'s
        // own deinit, which runs right after this one when no other reference remains. Its
        // native functions, which hold it unowned, throw from now on, as after close().
        functionsAreOpen.close()
        nativeFunctions.dropBodies()
        for (id, task) in tasks where !tasksOutlivingTheContext.contains(id) { task.cancel() }
        if !isClosed { ScriptEngineStatistics.liveContexts.subtract(1, ordering: .relaxed) }  // close() counted it
    }

    /// The raw global context, for the layers above that call the C API directly.
    package var ctx: JSGlobalContextRef { unsafe globalContext.ref }

    // MARK: Evaluating

    /// Evaluates a script and returns its completion value.
    /// - Throws: ``ScriptError``: the script's exception (with source URL, line, column and
    ///   stack), a time-limit stop, or a conversion error when the value cannot cross.
    @discardableResult
    public func evaluate(_ source: String, sourceURL: String? = nil, startingLine: Int = 1) throws(ScriptError) -> ScriptValue {
        let value = try unsafe evaluateRaw(source, sourceURL: sourceURL, startingLine: startingLine)
        return try unsafe scriptValue(value)
    }

    /// Runs a script for its effects, discarding its completion value.
    public func run(_ source: String, sourceURL: String? = nil, startingLine: Int = 1) throws(ScriptError) {
        _ = try unsafe evaluateRaw(source, sourceURL: sourceURL, startingLine: startingLine)
    }

    /// Runs a page's script as a browser runs a `<script>`: an exception it throws is reported
    /// (``reportUncaught(_:rejectionOf:)``: first to the page, as its `error` event), not
    /// thrown; only a stop (or a closed context) is.
    package func runPageScript(_ source: String, sourceURL: String? = nil, startingLine: Int = 1) throws(ScriptError) {
        _ = try unsafe evaluateRaw(source, sourceURL: sourceURL, startingLine: startingLine, reportingExceptions: true)
    }

    /// Evaluates a script and returns the raw completion value.
    package func evaluateRaw(
        _ source: String, sourceURL: String? = nil, startingLine: Int = 1, reportingExceptions: Bool = false
    ) throws(ScriptError) -> JSValueRef? {
        guard !isClosed else { throw .contextClosed }
        let script = unsafe makeJSString(source)
        defer { unsafe JSStringRelease(script) }
        let url = unsafe sourceURL.map(makeJSString)
        defer { unsafe url.map(JSStringRelease) }
        var exception: JSValueRef? = nil
        enterJavaScript()
        let value = unsafe JSEvaluateScript(ctx, script, nil, url, Int32(clamping: startingLine), &exception)
        return try unsafe finishEvaluation(value, exception, reportingExceptions: reportingExceptions)
    }

    /// Evaluates a script this context's VM keeps parsed (``ScriptSource``) and returns the
    /// raw completion value: as ``evaluateRaw(_:sourceURL:startingLine:reportingExceptions:)``
    /// with its text, without handing the text to JavaScriptCore again.
    package func evaluateRaw(_ source: ScriptSource, reportingExceptions: Bool = false) throws(ScriptError) -> JSValueRef? {
        guard !isClosed else { throw .contextClosed }
        guard let script = unsafe thread.script(for: source) else {
            return try unsafe evaluateRaw(source.text, sourceURL: source.sourceURL, reportingExceptions: reportingExceptions)
        }
        var exception: JSValueRef? = nil
        enterJavaScript()
        var value = unsafe JSScriptEvaluate(ctx, script, nil, &exception)
        // JSEvaluateScript's completion value when there is none (a script of `;`).
        if unsafe value == nil && exception == nil { unsafe value = unsafe JSValueMakeUndefined(ctx) }
        return try unsafe finishEvaluation(value, exception, reportingExceptions: reportingExceptions)
    }

    /// The end of an evaluation's entry: its exception reported or thrown, a stop thrown, or
    /// its value returned.
    private func finishEvaluation(
        _ value: JSValueRef?, _ exception: JSValueRef?, reportingExceptions: Bool
    ) throws(ScriptError) -> JSValueRef? {
        if reportingExceptions, let thrown = unsafe exception, !stoppedInThisEntry, !thread.watchdogFired.load(ordering: .relaxed),
            unsafe !isTermination(thrown)
        {
            // Reported there, a stop in the page's listeners too (told once: the entry absorbs it).
            unsafe reportUncaught(thrown)
            leaveJavaScript()
            return nil
        }
        if let exception = unsafe exception {
            let error = unsafe scriptError(from: exception)
            leaveJavaScript()
            throw error
        }
        // A stop the script caught (JavaScriptCore's termination can be caught once it has
        // crossed WebAssembly's frames) still ends the entry as stopped.
        if stoppedInThisEntry {
            let error = stopReported()
            leaveJavaScript()
            throw error
        }
        leaveJavaScript()
        return unsafe value
    }

    /// Calls the global function at `path` (such as `"app.start"`) with `arguments`.
    ///
    /// The lookup along `path` is part of the call's entry: a getter the page defined there runs
    /// under the time limit, as the function does.
    @discardableResult
    public func call(_ path: String, _ arguments: [ScriptValue] = []) throws(ScriptError) -> ScriptValue {
        guard !isClosed else { throw .contextClosed }
        // Each argument is kept alive from the moment it is made until the call has them.
        var held = holdArguments()
        for argument in arguments { unsafe hold(makeJSValue(argument, in: ctx), in: &held) }
        defer { release(held) }
        enterJavaScript()
        let result: Result<JSValueRef?, ScriptError> = unsafe callEntry(path, values(of: held))
        // A stop the function caught (JavaScriptCore's termination can be caught once it has
        // crossed WebAssembly's frames) still ends the entry as stopped.
        if case .success = unsafe result, stoppedInThisEntry {
            let error = stopReported()
            leaveJavaScript()
            throw error
        }
        leaveJavaScript()
        return try unsafe scriptValue(result.get())
    }

    /// The body of ``call(_:_:)``'s entry: the function found along `path` and called.
    private func callEntry(_ path: String, _ values: [JSValueRef?]) -> Result<JSValueRef?, ScriptError> {
        var this: JSObjectRef? = nil
        var target: JSObjectRef = unsafe JSContextGetGlobalObject(ctx)
        var exception: JSValueRef? = nil
        let notAFunction = ScriptError(kind: .exception, name: "TypeError", message: "\(path) is not a function")
        for component in path.split(separator: ".") {
            let name = unsafe makeJSString(String(component))
            let value = unsafe JSObjectGetProperty(ctx, target, name, &exception)
            unsafe JSStringRelease(name)
            if let exception = unsafe exception { return unsafe .failure(scriptError(from: exception)) }
            guard let value = unsafe value, unsafe JSValueIsObject(ctx, value), let object = unsafe JSValueToObject(ctx, value, nil) else {
                return unsafe .failure(notAFunction)
            }
            unsafe this = unsafe target
            unsafe target = unsafe object
        }
        guard unsafe JSObjectIsFunction(ctx, target) else { return unsafe .failure(notAFunction) }
        let result = unsafe callFunction(ctx, target, this: this, values, exception: &exception)
        if let exception = unsafe exception { return unsafe .failure(scriptError(from: exception)) }
        return unsafe .success(result)
    }

    // MARK: Native functions

    /// Defines a native function as a global (or as a member of the object at `objectPath`,
    /// created when missing).
    public func defineFunction(_ name: String, in objectPath: String? = nil, _ body: @escaping NativeFunction) {
        let function = unsafe makeFunction { context, call in
            let arguments = try unsafe call.arguments.map { argument throws(ScriptError) in try unsafe context.scriptValue(argument) }
            return unsafe makeJSValue(try body(context, arguments), in: call.ctx)
        }
        unsafe define(function, as: name, in: objectPath)
    }

    /// Defines a native function that returns a promise, settled when `body` finishes.
    ///
    /// The body runs as a task on the concurrency pool; it is cancelled when the context
    /// closes, and its result is dropped if it arrives after that.
    public func defineAsyncFunction(
        _ name: String, in objectPath: String? = nil, _ body: @escaping @Sendable ([ScriptValue]) async throws -> ScriptValue
    ) {
        let function = unsafe makeFunction { context, call in
            let arguments = try unsafe call.arguments.map { argument throws(ScriptError) in try unsafe context.scriptValue(argument) }
            let (promise, deferred) = unsafe try context.makeDeferredPromise()
            context.startTask(settling: deferred) {
                do { return .success(try await body(arguments)) } catch { return .failure(error) }
            }
            return unsafe promise
        }
        unsafe define(function, as: name, in: objectPath)
    }

    /// Makes a native function object from a raw body.
    package func makeFunction(_ body: @escaping RawNativeFunction) -> JSObjectRef {
        let box = unsafe NativeFunctionBox(context: self, body: body)
        nativeFunctions.boxes.append(box)
        // The function object's own reference, released by its finalizer (``NativeFunctionBox``).
        let function = unsafe JSObjectMake(ctx, NativeFunctionClass.shared.ref, Unmanaged.passRetained(box).toOpaque())!
        unsafe JSObjectSetPrototype(ctx, function, functionPrototype)
        return unsafe function
    }

    /// Sets `value` as `name` on the object at `objectPath` (created when missing) or on the
    /// global object; read-only and non-configurable when `locked`.
    package func define(_ value: JSValueRef, as name: String, in objectPath: String? = nil, locked: Bool = false) {
        var target = unsafe JSContextGetGlobalObject(ctx)!
        for component in objectPath?.split(separator: ".") ?? [] {
            let key = unsafe makeJSString(String(component))
            defer { unsafe JSStringRelease(key) }
            if let existing = unsafe JSObjectGetProperty(ctx, target, key, nil), unsafe JSValueIsObject(ctx, existing),
                let object = unsafe JSValueToObject(ctx, existing, nil)
            {
                unsafe target = unsafe object
            } else {
                let object = unsafe JSObjectMake(ctx, nil, nil)!
                unsafe JSObjectSetProperty(ctx, target, key, object, JSPropertyAttributes(kJSPropertyAttributeDontEnum), nil)
                unsafe target = unsafe object
            }
        }
        let key = unsafe makeJSString(name)
        defer { unsafe JSStringRelease(key) }
        let attributes = locked ? kJSPropertyAttributeReadOnly | kJSPropertyAttributeDontDelete : kJSPropertyAttributeNone
        unsafe JSObjectSetProperty(ctx, target, key, value, JSPropertyAttributes(attributes), nil)
    }

    /// Captures ``PristineBuiltins`` in one evaluation, before any page script runs.
    private func capturePristineBuiltins() {
        guard let builtins = try? unsafe evaluateRaw(PristineBuiltins.script),
            let list = unsafe JSValueToObject(ctx, builtins, nil)
        else { return }
        unsafe protect(list)
        unsafe pristineBuiltins = unsafe list
        // Entry 0 is `Object.keys`; the protected list keeps it alive.
        unsafe objectKeys = unsafe JSValueToObject(ctx, JSObjectGetPropertyAtIndex(ctx, list, 0, nil), nil)
        unsafe objectPrototype = unsafe JSValueToObject(
            ctx, JSObjectGetPropertyAtIndex(ctx, list, UInt32(PristineBuiltins.objectPrototype), nil), nil)
        unsafe isView = unsafe JSValueToObject(ctx, JSObjectGetPropertyAtIndex(ctx, list, UInt32(PristineBuiltins.isView), nil), nil)
        unsafe prototypeOf = unsafe JSValueToObject(
            ctx, JSObjectGetPropertyAtIndex(ctx, list, UInt32(PristineBuiltins.prototypeOf), nil), nil)
    }

    /// The walker factory, made from the captured built-ins on first use (its source refers to
    /// nothing else, so a page that ran meanwhile cannot change what it does).
    private func madeWalkerFactory() -> JSObjectRef? {
        if let factory = unsafe walkerFactory { return unsafe factory }
        guard let list = unsafe pristineBuiltins,
            let source = try? unsafe evaluateRaw(ValueWalker.script),
            let function = unsafe JSValueToObject(ctx, source, nil)
        else { return nil }
        let builtins: [JSValueRef?] = unsafe (0..<PristineBuiltins.walkerCount).map {
            unsafe JSObjectGetPropertyAtIndex(ctx, list, UInt32($0), nil)
        }
        guard let walked = unsafe JSValueToObject(ctx, JSObjectGetPropertyAtIndex(ctx, list, UInt32(PristineBuiltins.walked), nil), nil)
        else { return nil }
        unsafe walkedObjects = unsafe walked
        var exception: JSValueRef? = nil
        guard let made = unsafe callFunction(ctx, function, this: nil, builtins + [walked], exception: &exception),
            let factory = unsafe JSValueToObject(ctx, made, nil)
        else { return nil }
        // Kept alive by the protected list (a null-prototype record: no page-defined setter can
        // see it), so reading a first object protects nothing more.
        unsafe JSObjectSetPropertyAtIndex(ctx, list, UInt32(PristineBuiltins.walkerFactory), factory, nil)
        unsafe walkerFactory = unsafe factory
        return unsafe factory
    }

    /// The walker for `limits`, made on first use.
    private func walker(for limits: ConversionLimits) -> JSObjectRef? {
        if let walker = unsafe walkers[limits] { return unsafe walker }
        guard unsafe walkers.count < 8, let factory = unsafe madeWalkerFactory() else { return nil }
        let arguments: [JSValueRef?] = unsafe [
            JSValueMakeNumber(ctx, Double(limits.maxDepth)), JSValueMakeNumber(ctx, Double(limits.maxNodes)),
            JSValueMakeNumber(ctx, Double(limits.maxBytes)), JSValueMakeBoolean(ctx, limits.allowsNonFiniteNumbers),
        ]
        var exception: JSValueRef? = nil
        guard let made = unsafe callFunction(ctx, factory, this: nil, arguments, exception: &exception),
            let walker = unsafe JSValueToObject(ctx, made, nil)
        else { return nil }
        unsafe walkers[limits] = unsafe walker
        return unsafe walker
    }

    private func realmFunctionPrototype() -> JSObjectRef? {
        let function = unsafe JSObjectGetProperty(ctx, JSContextGetGlobalObject(ctx), PropertyName("Function").ref, nil)
        let prototype = unsafe JSObjectGetProperty(ctx, JSValueToObject(ctx, function, nil), PropertyName.prototype.ref, nil)
        return unsafe JSValueToObject(ctx, prototype, nil)
    }

    // MARK: Values and errors

    /// Converts a raw value with this context's limits.
    ///
    /// A conversion can run page code (getters, Proxy traps, `valueOf`); when the time limit
    /// stops it there, the whole entry is stopped (``stopEntry()``) and the conversion throws
    /// ``ScriptError/Kind/timeLimitExceeded``, whatever the reader made of the stop.
    ///
    /// A context reads its first objects through the C API part by part; once they add up to
    /// ``ObjectReader/nodesBeforeWalker`` values, it reads the next in one call into JavaScript
    /// (``ValueWalker``), whose making and first runs the first reads do not repay. `reader`
    /// forces one way (the two agree; tests compare them).
    ///
    /// Outside a call into JavaScript (a script's result, an awaited promise's value), an object
    /// is read inside one entry of its own (``readInOneEntry(_:limits:reader:)``), under the
    /// context's time limit: JavaScriptCore would time each getter the reader meets on its own,
    /// and a page could make a result of thousands of getters, each just short of the limit.
    package func scriptValue(
        _ value: JSValueRef?, limits: ConversionLimits? = nil, reader kind: ObjectReader = .automatic
    ) throws(ScriptError)
        -> ScriptValue
    {
        if stoppedInThisEntry { throw stopError() }
        if thread.nativeDepth.load(ordering: .relaxed) == 0, let object = unsafe value, unsafe JSValueIsObject(ctx, object) {
            return try unsafe readInOneEntry(object, limits: limits, reader: kind)
        }
        let limits = limits ?? configuration.conversionLimits
        var reader = unsafe ValueReader(
            ctx: ctx, limits: limits, ownKeys: objectKeys, objectPrototype: objectPrototype, isView: isView,
            prototypeOf: prototypeOf)
        let result = Result { () throws(ScriptError) in
            // A primitive costs a call or two through the C API.
            if kind != .partByPart, let value = unsafe value, unsafe JSValueIsObject(ctx, value) {
                if kind == .oneCall || nodesReadPartByPart >= ObjectReader.nodesBeforeWalker, let walker = unsafe walker(for: limits),
                    let walked = unsafe walkedObjects
                {
                    return try unsafe reader.read(value, walkingWith: walker, walked: walked)
                }
                defer { nodesReadPartByPart += reader.nodesRead }
                return try unsafe reader.read(value)
            }
            return try unsafe reader.read(value)
        }
        var stopped = thread.watchdogFired.exchange(false, ordering: .relaxed) || stoppedInThisEntry
        if case .failure(let error) = result, error.isStop { stopped = true }
        if stopped {
            stopEntry()
            throw stopError()
        }
        return try result.get()
    }

    /// Reads `object` in one entry into JavaScript: a call of ``entryReader``, which reads it
    /// as a native function reads its arguments, so that the getters, traps and `toJSON`s the
    /// reading runs are timed together, from the entry's start.
    private func readInOneEntry(
        _ object: JSValueRef, limits: ConversionLimits?, reader kind: ObjectReader
    ) throws(ScriptError)
        -> ScriptValue
    {
        guard !isClosed, let reader = unsafe entryReader else { throw .contextClosed }
        entryRead = (limits, kind, nil)
        defer { entryRead = nil }
        enterJavaScript()
        var exception: JSValueRef? = nil
        _ = unsafe callFunction(ctx, reader, this: nil, [object], exception: &exception)
        let result = entryRead?.result ?? .failure(stoppedInThisEntry ? stopError() : .contextClosed)
        if case .failure(let error) = result, error.isStop {
            _ = stopReported()
        }
        leaveJavaScript()
        return try result.get()
    }

    /// Makes ``entryReader``, kept protected until the context closes.
    private func makeEntryReader() {
        let reader = unsafe makeFunction { context, call in
            guard let request = context.entryRead else { return nil }
            context.entryRead?.result = Result { () throws(ScriptError) in
                try unsafe context.scriptValue(call[0], limits: request.limits, reader: request.reader)
            }
            return nil
        }
        unsafe protect(reader)
        unsafe entryReader = unsafe reader
    }

    /// Whether `value` is a `Proxy` (see ``ValueReader``'s refusal of one; a proxy whose
    /// handler answers `null` to `Object.getPrototypeOf` is not told apart). Asking may run the
    /// proxy's `getPrototypeOf` trap.
    package func isProxy(_ value: JSValueRef?) -> Bool {
        guard let value = unsafe value, unsafe JSValueIsObject(ctx, value), let prototypeOf = unsafe prototypeOf,
            let object = unsafe JSValueToObject(ctx, value, nil), unsafe JSValueIsNull(ctx, JSObjectGetPrototype(ctx, object))
        else { return false }
        return unsafe isProxyWithoutOwnPrototype(object, prototypeOf: prototypeOf, in: ctx)
    }

    /// Makes the raw value for a ``ScriptValue``.
    package func jsValue(_ value: ScriptValue) -> JSValueRef {
        unsafe makeJSValue(value, in: ctx)
    }

    /// Turns a thrown JavaScript value into a ``ScriptError``.
    ///
    /// Reading an error's `name` or `message` can run page code (getters); once the entry is
    /// stopped nothing more is read, and a stop during a read stops the entry.
    package func scriptError(from exception: JSValueRef) -> ScriptError {
        if unsafe thread.watchdogFired.exchange(false, ordering: .relaxed) || isTermination(exception) {
            stopEntry()
            return stopReported()
        }
        if stoppedInThisEntry { return stopReported() }
        guard unsafe JSValueIsObject(ctx, exception), let object = unsafe JSValueToObject(ctx, exception, nil) else {
            return unsafe ScriptError(kind: .exception, name: "Error", message: stringOf(ctx, exception) ?? "unknown exception")
        }
        var stopped = false
        // Outside a call into JavaScript each read is an entry of its own, which JavaScriptCore
        // would time from zero: each is given what is left of the entry's time (and at least a
        // stopped entry's few milliseconds), so that a thrown object's getters and `toString`s
        // run under one limit together, not one limit each.
        let bounded = thread.nativeDepth.load(ordering: .relaxed) == 0 && timeLimitSeconds.isFinite
        func bound() {
            guard bounded else { return }
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds &- thread.entryStart.load(ordering: .relaxed)) * 1e-9
            thread.ensureTimeLimit(max(timeLimitSeconds - elapsed, Self.stoppedEntryLimitSeconds), force: true)
        }
        func text(_ name: PropertyName) -> String? {
            guard !stopped else { return nil }
            bound()
            let text = unsafe property(ctx, object, name).flatMap { unsafe JSValueIsUndefined(ctx, $0) ? nil : stringOf(ctx, $0) }
            if thread.watchdogFired.exchange(false, ordering: .relaxed) { stopped = true }
            return stopped ? nil : text
        }
        func number(_ name: PropertyName) -> Int? {
            guard !stopped else { return nil }
            bound()
            defer { if thread.watchdogFired.exchange(false, ordering: .relaxed) { stopped = true } }
            guard let value = unsafe property(ctx, object, name), unsafe JSValueIsNumber(ctx, value) else { return nil }
            // A thrown object's `line` and `column` are the page's to choose.
            return unsafe Int(javaScriptNumber: JSValueToNumber(ctx, value, nil))
        }
        /// The thrown object as its `toString` describes it.
        func described() -> String? {
            guard !stopped else { return nil }
            bound()
            let text = unsafe stringOf(ctx, exception)
            if thread.watchdogFired.exchange(false, ordering: .relaxed) { stopped = true }
            return stopped ? nil : text
        }
        let error = ScriptError(
            kind: .exception,
            name: text(.name) ?? "Error",
            message: text(.message) ?? described() ?? "",
            sourceURL: text(.sourceURL), line: number(.line), column: number(.column), stack: text(.stack))
        if stopped {
            stopEntry()
            return stopReported()
        }
        return error
    }

    /// The error of a stop, which the caller of an outermost entry throws or reports.
    private func stopReported() -> ScriptError {
        if thread.nativeDepth.load(ordering: .relaxed) == 0 { stopTold = true }
        return stopError()
    }

    /// The error of the current entry's stop: for the memory limit when the watchdog or the
    /// check between scripts found the process past it, else for the time limit. The first
    /// memory stop ends the context (``endedForMemory``) and is handed to
    /// ``Configuration/memoryLimitExceeded``.
    func stopError() -> ScriptError {
        guard configuration.memoryLimit != nil, thread.memoryLimitFired.load(ordering: .relaxed) else { return .timeLimitExceeded }
        if !endedForMemory {
            endedForMemory = true
            configuration.memoryLimitExceeded?(self)
        }
        return .memoryLimitExceeded
    }

    /// Whether a memory stop about to be reported is the context's first: the later ones
    /// (entries of an ended document, each stopped before it runs) are not reported again.
    package func firstMemoryStopReport() -> Bool {
        defer { memoryStopReported = true }
        return !memoryStopReported
    }

    /// Reports an exception no script caught, or the reason of a promise rejected with no
    /// handler (`promise`), as a browser does: first to the page, through ``uncaughtHook`` (an
    /// `error` or `unhandledrejection` event at the window), then as a ``ScriptEvent``. It is
    /// reported even when a listener cancelled it: the app hears of every error, as the
    /// runner's transcript on WebKit does. An exception while the hook runs (a listener of the
    /// event that throws) is reported without it, as browsers report an error inside their
    /// error handling.
    package func reportUncaught(_ value: JSValueRef, rejectionOf promise: JSValueRef? = nil) {
        if let hook = unsafe uncaughtHook, !isClosed, !reportingUncaught, !stoppedInThisEntry,
            !thread.watchdogFired.load(ordering: .relaxed), unsafe !isTermination(value)
        {
            reportingUncaught = true
            defer { reportingUncaught = false }
            var arguments: [JSValueRef?] = unsafe [value, JSValueMakeBoolean(ctx, promise != nil), promise ?? JSValueMakeUndefined(ctx)]
            unsafe JSObjectCallAsFunction(ctx, hook, nil, 3, &arguments, nil)
        }
        let error = unsafe scriptError(from: value)
        unsafe report(promise != nil && !error.isStop ? .unhandledRejection(error) : .uncaughtError(error))
    }

    /// Whether `exception` is JavaScriptCore's termination of a stopped script.
    private func isTermination(_ exception: JSValueRef) -> Bool {
        unsafe JSValueIsString(ctx, exception) && stringLength(ctx, exception) == terminationMessage.utf16.count
            && stringOf(ctx, exception) == terminationMessage
    }

    /// The limit that ends every further loop or microtask of a stopped entry.
    ///
    /// Short, but not tiny: each entry under a limit starts a watchdog timer, and with a limit
    /// of 100 µs a stopped chain of microtasks started thousands a second, at which rate
    /// JavaScriptCore 2.50 now and then aborted the process in its trap thread
    /// (`VMTraps::requestThreadStopIfNeeded`). A stopped entry's native callbacks refuse to run
    /// whatever the limit, so 5 ms bounds only pure JavaScript.
    static let stoppedEntryLimitSeconds = 0.005

    /// Makes a stop terminal for the current entry into JavaScript, wherever it landed.
    ///
    /// JavaScriptCore's watchdog ends a script once, with an exception that page code cannot
    /// catch; but when the stop lands inside a native call (a conversion, a getter it read, a
    /// `toJSON`), the C API hands that exception to the native code, and the watchdog is then
    /// disarmed for the rest of the entry. Here the entry is marked stopped, so every native
    /// callback refuses to run and throws JavaScriptCore's termination instead, and the
    /// watchdog is re-armed with a tiny limit for the rest of the entry, so every further
    /// loop iteration, call or microtask of it is ended as well.
    package nonisolated func stopEntry() {
        thread.entryStopped.store(true, ordering: .relaxed)
        thread.ensureTimeLimit(Self.stoppedEntryLimitSeconds, force: true)
    }

    /// Call before every entry into JavaScript from outside a JavaScript call.
    ///
    /// Inside a native callback (a nested entry) it does nothing: the outer entry's limit and
    /// stop hold.
    @inline(__always)
    package func enterJavaScript() {
        guard thread.nativeDepth.load(ordering: .relaxed) == 0 else { return }
        // A stop left pending by an earlier entry (reported already, or its context closed).
        if thread.watchdogFired.load(ordering: .relaxed) || stoppedInThisEntry { absorbStop(reporting: false) }
        thread.entryStopped.store(false, ordering: .relaxed)
        stopTold = false
        let start = DispatchTime.now().uptimeNanoseconds
        thread.entryStart.store(start, ordering: .relaxed)
        let memoryLimit = configuration.memoryLimit.map { UInt64($0.bytes) } ?? 0
        thread.setMemoryLimit(memoryLimit)
        thread.ensureTimeLimit(timeLimitSeconds)
        if memoryLimit != 0 {
            // Ended, or past the limit already: the entry is stopped before it runs anything.
            thread.memoryLimitFired.store(endedForMemory, ordering: .relaxed)
            if endedForMemory || thread.memoryLimitPassed(now: start) { stopEntry() }
        }
        thread.enter(configuration.interruption)
        if configuration.interruption?.isInterrupted == true { stopEntry() }
        if unsafe checkpointFunction != nil, !holdsEntryLock, let functions = MicrotaskCheckpoint.functions {
            unsafe functions.lock(ctx)
            holdsEntryLock = true
        }
    }

    /// ``enterJavaScript()`` for an entry made of one call to ``checkpointFunction`` with a
    /// function and its argument, which runs the function, then the checkpoint (see
    /// ``MicrotaskCheckpoint``): `true` when this is such an entry (outermost, the API lock
    /// taken); the checkpoint then ran once the call returned, and ``leaveJavaScript()`` does not
    /// run it again. `false`: make the call as usual.
    package func enterJavaScriptWithCheckpoint() -> Bool {
        let outermost = thread.nativeDepth.load(ordering: .relaxed) == 0 && !holdsEntryLock
        enterJavaScript()
        guard outermost, holdsEntryLock, unsafe checkpointFunction != nil, !isClosed else { return false }
        // The call that follows runs the checkpoint; what is left of it is the lock's release.
        holdsEntryLock = false
        entryRunsItsCheckpoint = true
        return true
    }

    /// Call after every entry into JavaScript from outside a JavaScript call has returned.
    ///
    /// JavaScriptCore runs the microtasks an entry queued (promise reactions, `await`
    /// continuations) as the entry's API call returns. When the watchdog stops one of them,
    /// nobody is told, and the VM keeps the stop pending: the next entry on this thread, from
    /// any context, would be ended at once. Here such a stop is reported as this context's
    /// uncaught ``ScriptError/Kind/timeLimitExceeded`` and absorbed by a throwaway entry, in
    /// which every leftover job of the stopped entry is ended at once.
    ///
    /// The entry's microtasks run here, inside the entry, at a microtask checkpoint
    /// (``MicrotaskCheckpoint``), so that the time limit covers them too, and so that they are
    /// not each an entry of their own.
    @inline(__always)
    package func leaveJavaScript() {
        guard thread.nativeDepth.load(ordering: .relaxed) == 0 else { return }
        platformEntry = false
        thread.leaveInterruption()
        if holdsEntryLock { runMicrotaskCheckpoint() }
        if entryRunsItsCheckpoint {
            entryRunsItsCheckpoint = false
            if let functions = MicrotaskCheckpoint.functions { unsafe functions.unlock(ctx) }
        }
        guard thread.watchdogFired.load(ordering: .relaxed) || stoppedInThisEntry else { return }
        absorbStop(reporting: !stopTold)
    }

    /// Marks the current entry as the platform's own work (``platformEntry``): called by the
    /// platform's code at the bottom of an outermost entry (no native call below the caller's),
    /// and ignored anywhere else, where a page's script may be on the stack.
    package func markPlatformEntry(nativeCallsBelow: Int = 0) {
        guard thread.nativeDepth.load(ordering: .relaxed) == nativeCallsBelow, holdsEntryLock else { return }
        platformEntry = true
    }

    /// Runs the microtask checkpoint between two callbacks of an event the platform
    /// dispatches, as HTML runs one after each callback that leaves no script on the stack
    /// (what a `load` listener's `await` continues with runs before the next listener, as in
    /// WebKit): only in a platform entry, called straight from the platform's dispatch (the
    /// native call making it the only one on the stack), and not inside a checkpoint already.
    /// The microtasks run inside the entry, under its time limit; native calls they make see
    /// no native call below them, as at the entry's own checkpoint.
    package func runMicrotasksBetweenCallbacks() {
        guard platformEntry, !drainingBetweenCallbacks, !stoppedInThisEntry, !isClosed,
            thread.nativeDepth.load(ordering: .relaxed) == 1, let functions = MicrotaskCheckpoint.functions
        else { return }
        drainingBetweenCallbacks = true
        thread.nativeDepth.store(0, ordering: .relaxed)
        unsafe functions.lock(ctx)
        unsafe functions.drain(JSContextGetGroup(ctx))
        unsafe functions.unlock(ctx)
        thread.nativeDepth.store(1, ordering: .relaxed)
        drainingBetweenCallbacks = false
    }

    /// Runs the microtasks the entry queued inside a call of ``checkpointFunction``, under what is
    /// left of the entry's time limit, then releases the API lock ``enterJavaScript()`` took.
    private func runMicrotaskCheckpoint() {
        holdsEntryLock = false
        guard let functions = MicrotaskCheckpoint.functions else { return }
        if let function = unsafe checkpointFunction, !isClosed {
            if !stoppedInThisEntry {
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds &- thread.entryStart.load(ordering: .relaxed)) * 1e-9
                let remaining = timeLimitSeconds - elapsed
                // Setting a limit starts a timer, so only an entry that used much of its time pays for it.
                if remaining < timeLimitSeconds / 2 {
                    thread.ensureTimeLimit(max(remaining, Self.stoppedEntryLimitSeconds), force: true)
                }
            }
            // A stop inside the checkpoint comes back as JavaScriptCore's termination; the
            // watchdog's flag reports it below, as for any other stop.
            var exception: JSValueRef? = nil
            unsafe JSObjectCallAsFunction(ctx, function, nil, 0, nil, &exception)
        }
        unsafe functions.unlock(ctx)
    }

    private func absorbStop(reporting: Bool) {
        if reporting { report(.uncaughtError(stopError())) }
        stopTold = false
        var rounds = 0
        repeat {
            guard !isClosed else { break }
            rounds += 1
            // The stopped entry's leftover jobs run in this entry: each is ended at once, and
            // the native functions they call refuse to run.
            stopEntry()
            let script = unsafe makeJSString("void 0")
            var exception: JSValueRef? = nil
            unsafe JSEvaluateScript(ctx, script, nil, nil, 1, &exception)
            unsafe JSStringRelease(script)
        } while rounds < 4 && thread.watchdogFired.exchange(false, ordering: .relaxed)
        thread.watchdogFired.store(false, ordering: .relaxed)
        thread.entryStopped.store(false, ordering: .relaxed)
        thread.ensureTimeLimit(timeLimitSeconds, force: true)
    }

    /// Reports the current entry's stop when that entry is JavaScriptCore's deferred work (a
    /// promise reaction after a WebAssembly compilation settled, a `FinalizationRegistry`
    /// callback), where no call of the context's hands it to a caller, so that it was ended
    /// silently. Called by this context's own native functions that found the stop (the
    /// microtask bound, WebAssembly's checks), so it is this context's code that ran; the next
    /// entry then absorbs the stop without reporting it again.
    func reportStopInDeferredWork() {
        guard !stopTold, thread.hostThread.running.isMainContextWork else { return }
        stopTold = true
        report(.uncaughtError(stopError()))
    }

    /// Stops the current entry when it has run past this context's time limit. Called from
    /// the promise machinery, so that a chain of short microtasks (each of which JavaScriptCore
    /// times on its own) is bounded as a whole.
    func checkEntryTime() {
        guard timeLimitSeconds.isFinite, !stoppedInThisEntry else { return }
        let elapsed = DispatchTime.now().uptimeNanoseconds &- thread.entryStart.load(ordering: .relaxed)
        if Double(elapsed) * 1e-9 > timeLimitSeconds { stopEntry() }
    }

    /// Forces a full garbage collection of this context's VM (tests and benchmarks).
    public func collectGarbage() {
        guard !isClosed else { return }
        unsafe JSSynchronousGarbageCollectForDebugging(ctx)
    }

    /// What this context's VM holds after a full garbage collection: its global objects (every
    /// context not yet collected, this one included) and its heap's size in bytes (tests and
    /// benchmarks). `nil` once the context is closed.
    package func collectedHeap() -> (globalObjects: Int, bytes: Int)? {
        guard !isClosed else { return nil }
        collectGarbage()
        guard let statistics = unsafe JSGetMemoryUsageStatistics(ctx) else { return nil }
        func number(_ name: String) -> Int {
            let value = unsafe PropertyNames.with(name) { unsafe JSObjectGetProperty(ctx, statistics, $0, nil) }
            return Int(javaScriptNumber: unsafe JSValueToNumber(ctx, value, nil)) ?? -1
        }
        return (number("globalObjectCount"), number("heapSize"))
    }

    // MARK: Events

    /// Receives every event from now on, on this context's thread.
    public func setEventHandler(_ handler: (@Sendable (ScriptEvent) -> Void)?) {
        eventHandler = handler
    }

    /// Records an event and passes it to the event handler.
    ///
    /// The handler sees every event whole; `recentEvents` keeps at most
    /// ``Configuration/eventBufferSize`` of them and ``recentEventsMaxBytes`` of console text,
    /// so a page that logs a large string many times does not keep it alive.
    package func report(_ event: ScriptEvent) {
        if case .uncaughtError(let error) = event, error.kind == .memoryLimitExceeded, !firstMemoryStopReport() { return }
        // A stop that was asked for is no error of the script's.
        if case .uncaughtError(let error) = event, error.isStop, configuration.interruption?.isInterrupted == true { return }
        if recentEvents.count >= configuration.eventBufferSize, let first = recentEvents.popFirst() {
            recentEventBytes -= Self.retainedBytes(first)
        }
        recentEvents.append(event)
        recentEventBytes += Self.retainedBytes(event)
        while recentEventBytes > Self.recentEventsMaxBytes, recentEvents.count > 1, let first = recentEvents.popFirst() {
            recentEventBytes -= Self.retainedBytes(first)
        }
        eventHandler?(event)
    }

    /// The most console text `recentEvents` keeps.
    static let recentEventsMaxBytes = 4 << 20

    private static func retainedBytes(_ event: ScriptEvent) -> Int {
        if case .console(let message) = event { return message.text.utf8.count }
        return 0
    }

    // MARK: Attachments

    /// The object of type `T` that a layer above attached to this context.
    package func attachment<T: AnyObject>(_ type: T.Type) -> T? {
        attachments[ObjectIdentifier(type)] as? T
    }

    /// Attaches an object that lives as long as the context (one per type).
    package func attach<T: AnyObject>(_ object: T) {
        attachments[ObjectIdentifier(T.self)] = object
    }

    /// Removes the object of type `T`, if one was attached.
    package func detach<T: AnyObject>(_ type: T.Type) {
        attachments[ObjectIdentifier(type)] = nil
    }

    /// Runs `handler` at the start of ``close()``, while JavaScript can still observe what it does.
    package func onClose(_ handler: @escaping (isolated ScriptContext) -> Void) {
        closeHandlers.append(handler)
    }

    /// Runs `body` on this context after `delay` (`.zero`: after the work queued before it),
    /// unless the context is closed by then; callable from any thread.
    package nonisolated func schedule(after delay: Duration, _ body: @escaping @Sendable (isolated ScriptContext) -> Void) {
        thread.schedule(after: delay) { [weak self] in
            guard let self else { return }
            self.assumeIsolated { context in
                if !context.isClosed { body(context) }
            }
        }
    }

    // MARK: Teardown

    /// Closes the context: pending timers never fire, pending promises never settle, running
    /// async functions are cancelled and their late results dropped, native functions throw.
    public func close() {
        close(releasingLater: false)
    }

    /// Closes the context as ``close()`` does; with `releasingLater`, its global object is
    /// released in a later job on its thread, after the work queued before it (a navigation's
    /// commit closes the old document so: freeing it took 20-40 µs of the new document's way to
    /// `load`). Nothing of the context runs in between: it is closed.
    package func close(releasingLater: Bool) {
        guard !isClosed else { return }
        let handlers = closeHandlers
        closeHandlers.removeAll()
        for handler in handlers { handler(self) }
        isClosed = true
        if let helper = unsafe awaitHelperFunction { unsafe unprotect(helper) }
        unsafe awaitHelperFunction = nil
        unsafe objectKeys = nil
        unsafe objectPrototype = nil
        unsafe isView = nil
        unsafe prototypeOf = nil
        unsafe walkedObjects = nil
        unsafe walkerFactory = nil
        if let list = unsafe pristineBuiltins { unsafe unprotect(list) }
        unsafe pristineBuiltins = nil
        unsafe walkers.removeAll()
        if let checkpoint = unsafe checkpointFunction { unsafe unprotect(checkpoint) }
        unsafe checkpointFunction = nil
        if let reader = unsafe entryReader { unsafe unprotect(reader) }
        unsafe entryReader = nil
        for waiter in awaiting.values { waiter.resume(returning: .failure(.contextClosed)) }
        awaiting.removeAll()
        for timer in timers.values { unsafe timer.protectedValues.forEach(unprotect) }
        timers.removeAll()
        for deferred in deferreds.values { unsafe deferred.protectedValues.forEach(unprotect) }
        deferreds.removeAll()
        for (id, task) in tasks where !tasksOutlivingTheContext.contains(id) { task.cancel() }
        tasks.removeAll()
        tasksOutlivingTheContext.removeAll()
        functionsAreOpen.close()
        nativeFunctions.dropBodies()
        eventHandler = nil
        attachments.removeAll()
        resumeQuiescenceWaiters()
        if releasingLater {
            let global = globalContext
            thread.schedule(after: .zero) { global.release() }
        } else {
            globalContext.release()
        }
        ScriptEngineStatistics.liveContexts.subtract(1, ordering: .relaxed)
    }
}

/// How ``ScriptContext/scriptValue(_:limits:reader:)`` reads an object.
package enum ObjectReader: Sendable {
    /// Part by part for a context's first objects, then in one call into JavaScript.
    case automatic
    /// In one call into JavaScript (``ValueWalker``).
    case oneCall
    /// Part by part through the C API.
    case partByPart

    /// Values a context reads part by part, inside objects, before it makes its walker.
    ///
    /// Making the walker costs about 90 µs (its source parsed into the document's global
    /// object), and in a new document the walker runs interpreted, no faster than the C API's
    /// part-by-part reads of small bodies; warm, it saves about 0.17 µs a value (figure 0: the
    /// realistic body, 2.4 against 3.4 µs). Counted in values, not objects: a hundred
    /// `{action: "refresh"}` bodies (300 values: each object, key and string) posted into a new
    /// document are read part by part, which took their calls' making from about 1.56 to 1.22
    /// ms (figure 6, a hundred callers; the switch at the 65th object had made the walker in
    /// every such document), while a page that keeps posting realistic bodies switches after a
    /// couple of hundred calls.
    static let nodesBeforeWalker = 2048
}

/// A JavaScriptCore global context and the values protected in it, released together.
///
/// `@unchecked Sendable` is safe: its mutable state (`protected`, `isReleased`) is only touched
/// from the owning ``ScriptContext``'s isolated methods, which all run on its engine thread, from
/// the job ``ScriptContext/close(releasingLater:)`` schedules on that same thread (after the
/// context closed, so nothing else of it runs concurrently), and from `init` and `deinit`, when no
/// other reference exists. Its other stored references are immutable. Every JavaScriptCore C API
/// call takes the VM's own lock, so releasing from `deinit` on another thread is also safe.
@safe  // its JavaScriptCore references are used only on its context's engine thread, while the context lives
final class GlobalContext: @unchecked Sendable {
    let ref: JSGlobalContextRef
    /// What the context's unhandled-rejection callback is set to when it is released
    /// (``EngineThread/rejectionSink()``): a function of the same VM that lives as long as it.
    private let rejectionSink: JSObjectRef?
    private var protected: [JSValueRef: Int] = unsafe [:]
    private(set) var isReleased = false

    init(_ ref: JSGlobalContextRef, rejectionSink: JSObjectRef?) {
        unsafe self.ref = unsafe ref
        unsafe self.rejectionSink = unsafe rejectionSink
    }

    func protect(_ value: JSValueRef) {
        unsafe JSValueProtect(ref, value)
        unsafe protected[value, default: 0] += 1
    }

    func unprotect(_ value: JSValueRef) {
        guard let count = unsafe protected[value] else { return }
        unsafe JSValueUnprotect(ref, value)
        unsafe protected[value] = count > 1 ? count - 1 : nil
    }

    /// How many protections are outstanding.
    var protectedCount: Int { unsafe protected.values.reduce(0, +) }

    /// Unprotects everything still protected and releases the context (once).
    func release() {
        guard !isReleased else { return }
        isReleased = true
        for unsafe(value, count) in unsafe protected {
            for _ in 0..<count { unsafe JSValueUnprotect(ref, value) }
            ScriptEngineStatistics.protectedValues.subtract(count, ordering: .relaxed)
        }
        unsafe protected.removeAll()
        // JavaScriptCore holds the callback strongly (a root): left as the context's own
        // function, it would keep the released global object alive for the VM's life.
        if let sink = unsafe rejectionSink { _ = unsafe JSGlobalContextSetUnhandledRejectionCallback(ref, sink, nil) }
        unsafe JSGlobalContextRelease(ref)
    }

    deinit {
        release()
    }
}
