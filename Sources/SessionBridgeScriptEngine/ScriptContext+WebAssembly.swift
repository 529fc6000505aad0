import CJavaScriptCore

extension ScriptContext {
    /// The part of the microtask prelude (``installMicrotaskBound()``) that prepares the page's
    /// `WebAssembly`, in the scope of its `then`, `apply`, `define` and `check`.
    ///
    /// Made only once a page first reads `WebAssembly` (most pages never do): made up front, the
    /// wrappers and their native function cost about 16 KB a context. Two things happen then:
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
    ///
    /// The built-ins the checks use are taken before any page code runs, so a page cannot make
    /// them see other bytes than the compiler will. The constructors stay the ones the page's
    /// modules and memories are made by: `instanceof`, `constructor`, the statics and
    /// subclassing behave as before.
    static let webAssemblyInstaller = """
        const wasm = globalThis.WebAssembly;
        if (typeof wasm !== "object" || wasm === null) return;
        const construct = Reflect.construct, describe = Object.getOwnPropertyDescriptor, Bytes = Uint8Array, Trap = Proxy;
        const errors = [TypeError, wasm.CompileError];
        const typed = Object.getPrototypeOf(Uint8Array.prototype), data = DataView.prototype;
        const views = [describe(ArrayBuffer.prototype, "byteLength").get,
          describe(typed, "buffer").get, describe(typed, "byteOffset").get, describe(typed, "byteLength").get,
          describe(data, "buffer").get, describe(data, "byteOffset").get, describe(data, "byteLength").get];
        const place = value => define(globalThis, "WebAssembly", { value, writable: true, enumerable: false, configurable: true });
        define(globalThis, "WebAssembly", {
          get() {
            const hold = check(true);
            const settled = [value => { hold(-1); return value; }, error => { hold(-1); throw error; }];
            const [bufferLength, typedBuffer, typedOffset, typedLength, dataBuffer, dataOffset, dataLength] = views;
            const refusal = "shared memory is not available in this page";
            // The bytes of a BufferSource, or undefined for anything else (the compiler then
            // throws its own error).
            const bytesOf = source => {
              try { apply(bufferLength, source, []); return construct(Bytes, [source]); } catch {}
              try { return construct(Bytes, [apply(typedBuffer, source, []), apply(typedOffset, source, []), apply(typedLength, source, [])]); } catch {}
              try { return construct(Bytes, [apply(dataBuffer, source, []), apply(dataOffset, source, []), apply(dataLength, source, [])]); } catch {}
            };
            // Whether a module's bytes define or import a shared memory (its limits' flag 2).
            const sharesMemory = source => {
              const bytes = bytesOf(source);
              if (bytes === undefined) return false;
              const length = apply(typedLength, bytes, []);
              let at = 8;
              const skip = () => { while (at < length && bytes[at++] & 0x80); };
              const u32 = () => {
                let value = 0, scale = 1, byte;
                do { byte = bytes[at++]; value += (byte & 0x7f) * scale; scale *= 128; } while (byte & 0x80 && at < length);
                return value;
              };
              const limits = () => { const flags = bytes[at++]; skip(); if (flags & 1) skip(); if (flags & 8) skip(); return (flags & 2) !== 0; };
              const valueType = () => { const type = bytes[at++]; if (type === 0x63 || type === 0x64) skip(); };
              while (at < length) {
                const id = bytes[at++], size = u32(), end = at + size;
                if (id === 2) {
                  for (let count = u32(); count > 0 && at < end; count--) {
                    // The module's and the field's names (`at += u32()` would add to `at` as it was).
                    for (let name = 0; name < 2; name++) { const size = u32(); at += size; }
                    const kind = bytes[at++];
                    if (kind === 2) { if (limits()) return true; }
                    else if (kind === 0) skip();
                    else if (kind === 1) { valueType(); limits(); }
                    else if (kind === 3) { valueType(); at++; }
                    else if (kind === 4) { at++; skip(); }
                    else break;
                  }
                } else if (id === 5) {
                  for (let count = u32(); count > 0 && at < end; count--) if (limits()) return true;
                }
                at = end;
              }
              return false;
            };
            const notCompiled = () => construct(errors[1], [refusal]);
            for (const name of ["compile", "instantiate", "compileStreaming", "instantiateStreaming"]) {
              const original = wasm[name];
              if (typeof original !== "function") continue;
              const held = { [name](...args) {
                const promise = !name.endsWith("Streaming") && sharesMemory(args[0])
                  ? (async () => { throw notCompiled(); })()
                  : apply(original, wasm, args);
                hold(1);
                return apply(then, promise, settled);
              } }[name];
              define(held, "length", { value: original.length });
              define(wasm, name, { value: held, writable: true, enumerable: false, configurable: true });
            }
            const validate = wasm.validate;
            if (typeof validate === "function") {
              define(wasm, "validate", { value: { validate(...args) { return !sharesMemory(args[0]) && apply(validate, wasm, args); } }.validate,
                writable: true, enumerable: false, configurable: true });
              define(wasm.validate, "length", { value: validate.length });
            }
            const guard = (name, vet) => {
              const original = wasm[name];
              if (typeof original !== "function") return;
              const guarded = new Trap(original, { construct(target, args, newTarget) { return vet(args, () => construct(target, args, newTarget)); } });
              define(original.prototype, "constructor", { value: guarded, writable: true, enumerable: false, configurable: true });
              define(wasm, name, { value: guarded, writable: true, enumerable: false, configurable: true });
            };
            guard("Module", (args, make) => { if (sharesMemory(args[0])) throw notCompiled(); return make(); });
            const memoryBuffer = typeof wasm.Memory === "function" ? describe(wasm.Memory.prototype, "buffer")?.get : undefined;
            if (memoryBuffer) guard("Memory", (args, make) => {
              const memory = make();
              // Only a shared memory's buffer is not an ArrayBuffer.
              try { apply(bufferLength, apply(memoryBuffer, memory, []), []); } catch { throw construct(errors[0], [refusal]); }
              return memory;
            });
            place(wasm);
            return wasm;
          },
          set: place, enumerable: false, configurable: true });
        """

    /// The function a context's WebAssembly wrappers call with `1` as a compilation starts and
    /// `-1` as it settles (see ``webAssemblyInstaller``).
    func makeWebAssemblyHold() -> JSObjectRef {
        unsafe makeFunction { context, call in
            guard let delta = unsafe call[0], unsafe JSValueToNumber(call.ctx, delta, nil) < 0 else {
                context.hold()
                return nil
            }
            context.release()
            return nil
        }
    }
}
