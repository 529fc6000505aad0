import CJavaScriptCore

/// A pending `setTimeout` or `setInterval`.
@safe  // its JavaScriptCore references are used only on its context's engine thread, while the context lives
struct ScriptTimer {
    /// The function to call, or nil for a timer given code (``code``).
    let callback: JSObjectRef?
    /// What a timer given something other than a function runs: that value's text, evaluated as
    /// a script of the global scope each time the timer fires, as HTML's timers evaluate it.
    let code: String?
    let arguments: [JSValueRef]
    let interval: Duration?

    var protectedValues: [JSValueRef] { unsafe (callback.map { unsafe [$0] } ?? []) + arguments }
}

extension ScriptContext {
    /// Installs `setTimeout`, `setInterval`, `clearTimeout`, `clearInterval` and
    /// `queueMicrotask`, driven by the engine thread, and reports what a `FinalizationRegistry`
    /// callback throws.
    func installTimers() {
        unsafe define(makeFunction { context, call in try unsafe context.addTimer(call, repeating: false) }, as: "setTimeout")
        unsafe define(makeFunction { context, call in try unsafe context.addTimer(call, repeating: true) }, as: "setInterval")
        let clear = unsafe makeFunction { context, call in
            // Any number a page passes, `NaN` and `1e300` included: only a timer's id clears one.
            if let id = unsafe call[0], unsafe JSValueIsNumber(call.ctx, id),
                let timer = unsafe Int(javaScriptNumber: JSValueToNumber(call.ctx, id, nil))
            {
                context.removeTimer(timer)
            }
            return nil
        }
        unsafe define(clear, as: "clearTimeout")
        unsafe define(clear, as: "clearInterval")
        // A microtask through the engine's own promise jobs; errors are reported like a browser's.
        let report = unsafe makeFunction { context, call in
            unsafe context.reportUncaught(call[0] ?? JSValueMakeUndefined(call.ctx)!)
            return nil
        }
        // Throws once the context is closed, as every native function of it does.
        let open = unsafe makeFunction { _, _ in nil }
        let install = try? unsafe evaluateRaw(Self.timersInstaller)
        if let install = unsafe install, let installer = unsafe JSValueToObject(ctx, install, nil) {
            let arguments: [JSValueRef?] = unsafe [report, open]
            if let function = unsafe JSObjectCallAsFunction(ctx, installer, nil, 2, arguments, nil) {
                unsafe define(function, as: "queueMicrotask")
            }
        }
    }

    private func addTimer(_ call: RawCall, repeating: Bool) throws -> JSValueRef? {
        guard let handler = unsafe call[0] else { throw ScriptThrow("TypeError", "Not enough arguments") }
        // A function is called; anything else is converted to text now and run as a script when
        // the timer fires (`setTimeout("render()", 10)`), as in a browser.
        var callback: JSObjectRef? = nil
        var code: String? = nil
        if let object = unsafe JSValueToObject(call.ctx, handler, nil), unsafe JSObjectIsFunction(call.ctx, object) {
            unsafe callback = unsafe object
        } else {
            var exception: JSValueRef? = nil
            let text = unsafe JSValueToStringCopy(call.ctx, handler, &exception)
            guard let text = unsafe text else {
                // A `toString` that threw, or a symbol: the page sees that error's name and message.
                let error = unsafe exception.map { unsafe scriptError(from: $0) }
                throw ScriptThrow(error?.name ?? "TypeError", error?.message ?? "the handler cannot be converted to a string")
            }
            code = unsafe swiftString(text)
            unsafe JSStringRelease(text)
            // Refused by the page's policy: nothing runs, and the id is 0, as in WebKit.
            if !compilesCodeFromStrings, let code {
                refusedTimerCode?(self, code)
                return unsafe JSValueMakeNumber(call.ctx, 0)
            }
        }
        let milliseconds = Self.timeout(unsafe call[1].map { unsafe JSValueToNumber(call.ctx, $0, nil) } ?? 0)
        let delay = Duration.milliseconds(milliseconds)
        if let callback = unsafe callback { unsafe protect(callback) }
        var arguments: [JSValueRef] = unsafe []
        // Code is run with no arguments; a function is called with the ones after the delay.
        for index in unsafe 2..<max(2, callback == nil ? 0 : call.arguments.count) {
            if let argument = unsafe call[index] {
                unsafe protect(argument)
                unsafe arguments.append(argument)
            }
        }
        let id = nextTimerID
        nextTimerID += 1
        timers[id] = unsafe ScriptTimer(
            callback: callback, code: code, arguments: arguments, interval: repeating ? max(delay, .milliseconds(1)) : nil)
        scheduleTimer(id, after: delay)
        return unsafe JSValueMakeNumber(call.ctx, Double(id))
    }

    /// A timer's delay as HTML reads it: a WebIDL `long` (the number truncated and wrapped
    /// modulo 2³², as `ToInt32` does), then 0 when negative. A delay past 2³¹ − 1 ms (a token's
    /// expiry 30 days away) wraps and fires at once, in every browser.
    static func timeout(_ number: Double) -> Int64 {
        guard number.isFinite else { return 0 }
        let wrapped = number.rounded(.towardZero).truncatingRemainder(dividingBy: 4_294_967_296)
        let unsigned = wrapped < 0 ? wrapped + 4_294_967_296 : wrapped
        let signed = unsigned >= 2_147_483_648 ? unsigned - 4_294_967_296 : unsigned
        return max(0, Int64(signed))
    }

    private func scheduleTimer(_ id: Int, after delay: Duration) {
        thread.schedule(after: delay) { [weak self] in
            self?.assumeIsolated { $0.fireTimer(id) }
        }
    }

    private func removeTimer(_ id: Int) {
        guard let timer = timers.removeValue(forKey: id) else { return }
        unsafe timer.protectedValues.forEach(unprotect)
        checkQuiescence()
    }

    private func fireTimer(_ id: Int) {
        guard !isClosed, let timer = timers[id] else { return }
        if timer.interval == nil { timers[id] = nil }
        var exception: JSValueRef? = nil
        enterJavaScript()
        if let callback = unsafe timer.callback {
            _ = unsafe callFunction(ctx, callback, this: nil, timer.arguments.map { unsafe Optional($0) }, exception: &exception)
        } else if let code = timer.code {
            let script = unsafe makeJSString(code)
            let url = unsafe timerCodeURL.map { unsafe makeJSString($0) }
            _ = unsafe JSEvaluateScript(ctx, script, nil, url, 1, &exception)
            unsafe JSStringRelease(script)
            if let url = unsafe url { unsafe JSStringRelease(url) }
        }
        if let exception = unsafe exception, !isClosed { unsafe reportUncaught(exception) }
        leaveJavaScript()
        guard !isClosed else { return }
        if let interval = timer.interval {
            if timers[id] != nil { scheduleTimer(id, after: interval) }
        } else {
            unsafe timer.protectedValues.forEach(unprotect)
            checkQuiescence()
        }
    }
}

extension ScriptContext {
    /// Bounds chains of microtasks as a whole.
    ///
    /// JavaScriptCore times each microtask as an entry of its own, so a chain of short ones
    /// (`function f() { Promise.resolve().then(f) } f()`) never meets the time limit and keeps
    /// the thread forever. Every `then` (which `catch`, `finally`, `Promise.all` and
    /// `queueMicrotask` go through) first checks how long the current entry has run, and stops
    /// it past the limit.
    ///
    /// The same script prepares the page's `WebAssembly` (``webAssemblyInstaller``), made when a
    /// page first reads it.
    func installMicrotaskBound() {
        let check = unsafe makeFunction { context, call in
            // `check(true)`, from the first read of `WebAssembly`: its installer, and the
            // function that holds and releases the context as compilations start and settle.
            if unsafe call.arguments.count == 1 { return try unsafe context.makeWebAssemblyInstaller() }
            context.checkEntryTime()
            if context.stoppedInThisEntry { context.reportStopInDeferredWork() }
            return nil
        }
        let install = try? unsafe evaluateRaw(Self.microtaskBoundInstallerScript)
        if let install = unsafe install, let installer = unsafe JSValueToObject(ctx, install, nil) {
            var argument: JSValueRef? = unsafe check
            _ = unsafe JSObjectCallAsFunction(ctx, installer, nil, 1, &argument, nil)
        }
    }

    /// The script of ``installMicrotaskBound()``: a function of the native `check`.
    ///
    /// It also puts a getter in place of `WebAssembly`, which installs the page's `WebAssembly`
    /// (``webAssemblyInstaller``) when a page first reads it, with built-ins taken before any
    /// page code ran. It takes none that JavaScriptCore makes only on first use: taking
    /// `Uint8Array`, `DataView` and their getters cost 22 KB a context (figure 7).
    private static let microtaskBoundInstallerScript = ScriptSource(
        microtaskBoundInstaller, sourceURL: "sessionbridge://prelude/microtasks.js")

    /// The installer of `queueMicrotask` and the wrapped `FinalizationRegistry` (see where it runs).
    private static let timersInstaller = ScriptSource(
        """
        (function (report, open) {
          const resolved = Promise.resolve();
          const then = Promise.prototype.then;
          // A FinalizationRegistry's callback runs in JavaScriptCore's deferred work, where an
          // exception it throws was only printed by JavaScriptCore to standard error: it is
          // reported like a browser's (the page's error event, the app), and a closed
          // context's callbacks, which the collector may still call, run none of its code.
          // The constructor keeps its name, length, prototype and text; only the callback is
          // wrapped. The handler has no prototype, so a page's Object.prototype adds no trap.
          if (typeof FinalizationRegistry === "function") {
            const Registry = FinalizationRegistry, construct = Reflect.construct, defineProperty = Object.defineProperty;
            const registry = new Proxy(Registry, {
              __proto__: null,
              construct(target, args, newTarget) {
                const callback = args[0];
                if (typeof callback !== "function") return construct(target, args, newTarget);
                return construct(target, [function (held) {
                  try { open(); } catch { return; }
                  try { callback(held); } catch (error) { report(error); }
                }], newTarget);
              },
            });
            defineProperty(Registry.prototype, "constructor", { value: registry, writable: true, enumerable: false, configurable: true });
            defineProperty(globalThis, "FinalizationRegistry", { value: registry, writable: true, enumerable: false, configurable: true });
          }
          return function queueMicrotask(callback) {
            if (typeof callback !== "function") throw new TypeError("queueMicrotask: argument is not a function");
            then.call(resolved, () => { try { callback(); } catch (error) { report(error); } });
          };
        })
        """, sourceURL: "sessionbridge://prelude/timers.js")

    private static let microtaskBoundInstaller = """
        (function (check) {
          "use strict";
          const then = Promise.prototype.then, apply = Reflect.apply, define = Object.defineProperty;
          const checked = { then(onFulfilled, onRejected) { check(); return apply(then, this, [onFulfilled, onRejected]); } }.then;
          define(Promise.prototype, "then", { value: checked, writable: true, enumerable: false, configurable: true });
          const wasm = globalThis.WebAssembly;
          if (typeof wasm !== "object" || wasm === null) return;
          const pristine = [then, apply, define, Reflect.construct, Object.getOwnPropertyDescriptor];
          const place = value => define(globalThis, "WebAssembly", { __proto__: null, value, writable: true, enumerable: false, configurable: true });
          define(globalThis, "WebAssembly", {
            get() {
              const made = check(true);
              made[0](wasm, pristine, made[1], made[2], made[3], made[4], made[5]);
              place(wasm);
              return wasm;
            },
            set: place, enumerable: false, configurable: true });
        })
        """
}
