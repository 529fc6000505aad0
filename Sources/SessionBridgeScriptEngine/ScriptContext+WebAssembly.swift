import CJavaScriptCore

extension ScriptContext {
    /// A function that installs the page's `WebAssembly`, given it, built-ins the microtask
    /// prelude (``installMicrotaskBound()``) took before any page code ran, and the native
    /// functions of ``makeWebAssemblyInstaller()``.
    ///
    /// Evaluated and run only once a page first reads `WebAssembly` (most pages never do): made
    /// up front, the wrappers and their native functions cost about 16 KB a context. Then:
    ///
    /// - **A compilation in flight is pending work.** Until its promise settles (JavaScriptCore's
    ///   deferred work, run by the engine thread), the context is not quiescent, as a browser's
    ///   page is not idle while it compiles a module. The promise a page gets settles as the
    ///   compilation's does, so a rejection nobody handles is still reported.
    /// - **There is no shared memory**, as in a browser's page that is not cross-origin isolated
    ///   (`SharedArrayBuffer` is not defined here either). Shared memory is the only way to a
    ///   wait that blocks: `Atomics.wait`, or WebAssembly's `memory.atomic.wait32`, on a shared
    ///   memory blocks the engine thread in the kernel, where the time limit (which counts the
    ///   thread's CPU time) never ends it, and no other agent (there are no workers) could
    ///   wake it. So `WebAssembly.Memory` refuses `shared: true` with a `TypeError`, and a
    ///   module that defines or imports a shared memory does not compile (`CompileError`;
    ///   `WebAssembly.validate` answers `false`). On a memory that is not shared, both waits
    ///   fail at once, as the standard has them.
    /// - **The time limit reaches WebAssembly.** A module is compiled with checks
    ///   (``WebAssemblyStopChecks``) that call out to a function of the context's once enough of
    ///   its code has run; past the limit that function waits in a loop, where JavaScriptCore
    ///   meets the stop. An instance is given the function with the page's imports (in an object
    ///   that inherits them), and `WebAssembly.Module.imports` leaves its import out. A module
    ///   the checks cannot be added to (an instruction this reader does not know) does not
    ///   compile (`CompileError`; `validate` answers `false`).
    ///
    /// A module's bytes are read through the C API and the compiler is given that copy, so what
    /// was checked is what compiles, whatever getters a page replaced. The wrappers use only
    /// built-ins taken before the page ran, or none a page could reach before it (the page's
    /// `WebAssembly` itself). The constructors in place of `Module` and `Memory` make the
    /// originals' instances: `instanceof`, `constructor`, the statics and subclassing behave as
    /// before, and the originals stay out of the page's reach.
    static let webAssemblyInstallerScript = ScriptSource(webAssemblyInstaller, sourceURL: "sessionbridge://prelude/webassembly.js")

    static let webAssemblyInstaller = """
        (function (wasm, pristine, hold, vet, isShared, checks, expired) {
          "use strict";
          // Indexed reads: a page may have replaced the array iterator, but not an array's own elements.
          const then = pristine[0], apply = pristine[1], define = pristine[2], construct = pristine[3], describe = pristine[4];
          const CompileError = wasm.CompileError, settled = [value => { hold(-1); return value; }, error => { hold(-1); throw error; }];
          const refusal = "shared memory is not available in this page";
          const unchecked = "this module uses an instruction the page's time limit cannot be checked in";
          const property = value => ({ __proto__: null, value, writable: true, enumerable: false, configurable: true });
          const validate = wasm.validate, checkModule = checks[0];
          // What the compiler is given: a copy of a BufferSource's bytes with the time limit's
          // checks, or the argument as it is when it is none (the compiler then throws its own
          // error). Bytes the checks could not be added to compile only if they are no module
          // (the compiler's own error then).
          const checked = source => {
            const bytes = vet(source);
            if (bytes === undefined) return source;
            if (bytes === false) throw construct(CompileError, [refusal]);
            if (bytes[1] || typeof validate !== "function" || !apply(validate, wasm, [bytes[0]])) return bytes[0];
            throw construct(CompileError, [unchecked]);
          };
          // The imports an instance is given: the page's, and the module's call to the checks. Past
          // the time limit it waits in a loop, where JavaScriptCore looks for the stop at every
          // turn, for the stop that `expired` has just made due.
          const supplied = { __proto__: null, [checks[1]]: function () { while (expired()) {} } };
          const imports = object => {
            if (object === undefined) return { __proto__: null, [checkModule]: supplied };
            if ((typeof object !== "object" && typeof object !== "function") || object === null) return object;
            return { __proto__: object, [checkModule]: supplied };
          };
          // The streaming forms read a response's bytes where no check sees them. This build of
          // JavaScriptCore has none (they need a host's fetch); one that did would lose them, and
          // pages fall back to `compile` and `instantiate`, as where a browser lacks them.
          delete wasm.compileStreaming;
          delete wasm.instantiateStreaming;
          const compilers = ["compile", "instantiate"];
          for (let index = 0; index < compilers.length; index++) {
            const name = compilers[index], original = wasm[name];
            if (typeof original !== "function") continue;
            const held = { [name](...args) {
              let promise;
              try {
                if (args.length > 0) args[0] = checked(args[0]);
                if (name === "instantiate") args[1] = imports(args[1]);
                promise = apply(original, wasm, args);
              } catch (error) {
                promise = (async () => { throw error; })();
              }
              hold(1);
              return apply(then, promise, settled);
            } }[name];
            define(held, "length", property(original.length));
            define(wasm, name, property(held));
          }
          if (typeof validate === "function") {
            const validating = { validate(...args) {
              const bytes = vet(args[0]);
              if (bytes === false) return false;
              if (bytes !== undefined) {
                if (!bytes[1]) return false;
                args[0] = bytes[0];
              }
              return apply(validate, wasm, args);
            } }.validate;
            define(validating, "length", property(validate.length));
            define(wasm, "validate", property(validating));
          }
          // A constructor whose instances are checked, in place of the original, which stays out
          // of the page's reach. Its instances, its subclasses' and those made elsewhere (a
          // compilation's modules, an instance's memories) share the original's prototype.
          const guard = (name, make) => {
            const original = wasm[name];
            if (typeof original !== "function") return;
            const guarded = { [name]: function (...args) {
              if (new.target === undefined) return apply(original, this, args);
              return make(args, new.target, original);
            } }[name];
            const statics = ["imports", "exports", "customSections"];
            for (let index = 0; index < statics.length; index++) {
              const own = describe(original, statics[index]);
              // A descriptor of the page's `Object.prototype` could inherit a `get` the page gave it.
              if (own !== undefined) define(guarded, statics[index], { __proto__: null, value: own.value, writable: own.writable,
                enumerable: own.enumerable, configurable: own.configurable });
            }
            define(guarded, "length", property(original.length));
            define(guarded, "prototype", { __proto__: null, value: original.prototype, writable: false, enumerable: false, configurable: false });
            define(original.prototype, "constructor", property(guarded));
            define(wasm, name, property(guarded));
          };
          guard("Module", (args, newTarget, original) => {
            if (args.length > 0) args[0] = checked(args[0]);
            return construct(original, args, newTarget);
          });
          guard("Instance", (args, newTarget, original) => {
            args[1] = imports(args[1]);
            return construct(original, args, newTarget);
          });
          // A module's imports as the page wrote them: the checks' import, always the last, left out.
          const listImports = typeof wasm.Module === "function" ? wasm.Module.imports : undefined;
          if (typeof listImports === "function") {
            const listing = { imports(module) {
              const list = apply(listImports, wasm.Module, [module]), last = list.length - 1;
              if (last >= 0 && list[last].module === checkModule) list.length = last;
              return list;
            } }.imports;
            define(listing, "length", property(listImports.length));
            define(wasm.Module, "imports", property(listing));
          }
          const memoryBuffer = typeof wasm.Memory === "function" ? describe(wasm.Memory.prototype, "buffer") : undefined;
          if (memoryBuffer !== undefined) guard("Memory", (args, newTarget, original) => {
            const memory = construct(original, args, newTarget);
            if (isShared(apply(memoryBuffer.get, memory, []))) {
              // JavaScriptCore's own TypeError, whatever the page made of the global one.
              try { null.memory; } catch (error) { define(error, "message", property(refusal)); throw error; }
            }
            return memory;
          });
        })
        """

    /// The page's `WebAssembly` installer (``webAssemblyInstaller``) and what it takes, as an
    /// array of six: the installer, `hold`, `vet`, `isShared`, the module and field names of the
    /// import ``WebAssemblyStopChecks`` adds, and `expired`.
    ///
    /// - `hold(1)` and `hold(-1)`: a compilation started and settled.
    /// - `vet(source)`: for a BufferSource (an `ArrayBuffer`, a typed array, a `DataView`), an
    ///   array of two: a copy of its bytes as a `Uint8Array`, with the time limit's checks
    ///   (``WebAssemblyStopChecks``), which the compiler is given in its place, so that what was
    ///   checked is what compiles; and whether the checks are in it (`false`: bytes that are no
    ///   module this reader knows, copied as they are). `false` when they define or import a
    ///   shared memory; `undefined` for anything else. Read through the C API, as a bridge
    ///   body's bytes are: a page cannot make it see other bytes.
    /// - `expired()`: whether the current entry ran past the time limit; if it did, its stop is
    ///   made due (``stopEntry()``), as the microtask bound does.
    /// - `isShared(buffer)`: whether a memory's buffer is not an `ArrayBuffer` (its prototype is
    ///   not the one JavaScriptCore gives a new `ArrayBuffer` here).
    func makeWebAssemblyInstaller() throws(ScriptError) -> JSValueRef? {
        let installer = try unsafe evaluateRaw(Self.webAssemblyInstallerScript)
        let hold = unsafe makeFunction { context, call in
            guard let delta = unsafe call[0], unsafe JSValueToNumber(call.ctx, delta, nil) < 0 else {
                context.hold()
                return nil
            }
            context.release()
            return nil
        }
        let vet = unsafe makeFunction { context, call in
            guard let source = unsafe call[0], let bytes = try unsafe context.bufferSourceBytes(source) else { return nil }
            if WebAssemblyModuleScan.definesOrImportsSharedMemory(bytes) { return unsafe JSValueMakeBoolean(call.ctx, false) }
            let checked = WebAssemblyStopChecks.instrument(bytes)
            // Protected while the array is made: an array's elements on the heap are not scanned.
            let copy = unsafe makeJSValue(.bytes(checked ?? bytes), in: call.ctx)
            unsafe JSValueProtect(call.ctx, copy)
            defer { unsafe JSValueUnprotect(call.ctx, copy) }
            let parts: [JSValueRef?] = unsafe [copy, JSValueMakeBoolean(call.ctx, checked != nil)]
            return unsafe parts.withUnsafeBufferPointer { unsafe JSObjectMakeArray(call.ctx, parts.count, $0.baseAddress, nil) }
        }
        let isShared = unsafe makeFunction { _, call in
            let ctx = unsafe call.ctx
            guard let value = unsafe call[0], let buffer = unsafe JSValueToObject(ctx, value, nil),
                let plain = unsafe JSObjectMakeTypedArray(ctx, kJSTypedArrayTypeUint8Array, 0, nil),
                let plainBuffer = unsafe JSObjectGetTypedArrayBuffer(ctx, plain, nil)
            else { return unsafe JSValueMakeBoolean(ctx, true) }
            return unsafe JSValueMakeBoolean(ctx, JSObjectGetPrototype(ctx, buffer) != JSObjectGetPrototype(ctx, plainBuffer))
        }
        let checks = unsafe makeJSValue(
            .array([.string(WebAssemblyStopChecks.importModule), .string(WebAssemblyStopChecks.importName)]), in: ctx)
        let expired = unsafe makeFunction { context, call in
            context.checkEntryTime()
            guard context.stoppedInThisEntry else { return unsafe JSValueMakeBoolean(call.ctx, false) }
            context.reportStopInDeferredWork()
            return unsafe JSValueMakeBoolean(call.ctx, true)
        }
        let parts: [JSValueRef?] = unsafe [installer, hold, vet, isShared, checks, expired]
        return unsafe parts.withUnsafeBufferPointer { unsafe JSObjectMakeArray(ctx, parts.count, $0.baseAddress, nil) }
    }

    /// The bytes of a BufferSource (an `ArrayBuffer`, a typed array or a `DataView`), read through
    /// the C API; `nil` for any other value.
    func bufferSourceBytes(_ value: JSValueRef) throws(ScriptError) -> [UInt8]? {
        guard unsafe JSValueIsObject(ctx, value), let object = unsafe JSValueToObject(ctx, value, nil) else { return nil }
        let isBufferSource = unsafe JSValueGetTypedArrayType(ctx, object, nil) != kJSTypedArrayTypeNone || isArrayBufferView(object)
        guard isBufferSource else { return nil }
        let limits = ConversionLimits(maxDepth: 1, maxNodes: 1, maxBytes: Int.max)
        guard case .bytes(let bytes) = try unsafe scriptValue(value, limits: limits, reader: .partByPart) else { return nil }
        return bytes
    }

    /// Whether `object` is an `ArrayBuffer` view, by the pristine `ArrayBuffer.isView`.
    private func isArrayBufferView(_ object: JSObjectRef) -> Bool {
        guard let isView = unsafe isView else { return false }
        var argument: JSValueRef? = unsafe object
        guard let answer = unsafe JSObjectCallAsFunction(ctx, isView, nil, 1, &argument, nil) else { return false }
        return unsafe JSValueToBoolean(ctx, answer)
    }
}
