internal import CJavaScriptCore
internal import Glibc

/// JavaScriptCore's microtask checkpoint, run inside the entry into JavaScript that queued the
/// microtasks, so that the execution time limit covers them.
///
/// Every context runs it, with a time limit or without: each job run outside an entry is an
/// outermost entry of its own, and on Linux JavaScriptCore resets its date and time-zone caches
/// at every outermost entry (`DateCache::resetIfNecessarySlow`: 4% of the samples of a bridge
/// round trip without a limit, and 6% of its C baseline's, whose jobs run that way; none once
/// the jobs run inside the entry).
///
/// JavaScriptCore runs a VM's microtasks (promise reactions, `await` continuations) when the
/// outermost holder of the VM's API lock lets go, which is after the entry has returned. Each
/// job then enters the VM on its own, and the watchdog times each one from zero: a chain of short
/// jobs, such as `for (;;) await 0`, is never stopped. Two steps put the jobs back under the
/// entry's limit:
/// - the engine holds the API lock across the entry (`JSLock`), so that the C API calls inside
///   it do not drain the queue when they return;
/// - when the entry is done, a native function, called as part of it, runs the queue
///   (`JSC::VM::drainMicrotasks()`), so that every job runs inside one entry, which the watchdog
///   times as a whole. When the watchdog ends a job, JavaScriptCore skips the rest of the queue.
///
/// The same lock functions let a native call hold the lock across the C API calls its body
/// makes (see the native function trampoline); ``EngineThread/runOthers(until:timeout:)`` lets
/// go of it while it waits.
///
/// `JSLock` and `JSUnlock` are declared in WebKit's private `JSLockRefPrivate.h`; the drain is
/// the C++ member that WebCore calls at its own checkpoints. libjavascriptcoregtk exports all
/// three, and they are looked up when first needed: where they are missing, ``functions`` is
/// `nil` and JavaScriptCore drains as it always does (the promise-level bound and the caller's
/// own deadline then stay the only bounds on a microtask chain).
enum MicrotaskCheckpoint {
    /// `JSLock` / `JSUnlock`: take or release one level of the VM's recursive API lock.
    typealias LockFunction = @convention(c) (JSContextRef?) -> Void
    /// `JSC::VM::drainMicrotasks()`, called with the VM as `this`, which a `JSContextGroupRef` is.
    typealias DrainFunction = @convention(c) (JSContextGroupRef?) -> Void

    @safe  // plain C function pointers into libjavascriptcoregtk, which stays loaded for the process's life
    struct Functions: Sendable {
        let lock: LockFunction
        let unlock: LockFunction
        let drain: DrainFunction
    }

    /// The three functions, or `nil` when this JavaScriptCore does not export them.
    static let functions: Functions? = {
        guard let process = unsafe dlopen(nil, RTLD_NOW) else { return nil }
        guard let lock = unsafe dlsym(process, "JSLock"), let unlock = unsafe dlsym(process, "JSUnlock"),
            let drain = unsafe dlsym(process, "_ZN3JSC2VM15drainMicrotasksEv")
        else { return nil }
        return unsafe Functions(
            lock: unsafeBitCast(lock, to: LockFunction.self), unlock: unsafeBitCast(unlock, to: LockFunction.self),
            drain: unsafeBitCast(drain, to: DrainFunction.self))
    }()

    /// The body of the native function that runs the checkpoint. It is called from an entry into
    /// JavaScript, where JavaScriptCore has dropped the API lock around the call; the drain needs
    /// it held.
    ///
    /// Called with a function and a value, it first calls the function with the value (a
    /// promise's `resolve` or `reject`, see ``ScriptContext/settle(_:resolving:_:)``), inside the
    /// same entry: settling a promise and running its checkpoint take one entry instead of two
    /// (each outermost entry starts the time limit's watchdog, which reads the thread's CPU
    /// time, a system call). An exception the function throws is the call's exception, once the
    /// checkpoint ran.
    static let callback: JSObjectCallAsFunctionCallback = { ctx, _, _, argumentCount, arguments, exception in
        guard let functions, let ctx = unsafe ctx else { return nil }
        var thrown: JSValueRef? = nil
        if argumentCount == 2, let arguments = unsafe arguments, let first = unsafe arguments[0],
            let settle = unsafe JSValueToObject(ctx, first, nil)
        {
            var argument = unsafe arguments[1]
            unsafe JSObjectCallAsFunction(ctx, settle, nil, 1, &argument, &thrown)
        }
        unsafe functions.lock(ctx)
        unsafe functions.drain(JSContextGetGroup(ctx))
        unsafe functions.unlock(ctx)
        if let thrown = unsafe thrown, let exception = unsafe exception { unsafe exception.pointee = thrown }
        return nil
    }
}
