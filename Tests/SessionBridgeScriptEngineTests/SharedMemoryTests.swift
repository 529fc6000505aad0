import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeScriptEngine

/// A page has no shared memory, as a browser's page that is not cross-origin isolated: on a
/// shared memory, `Atomics.wait` and WebAssembly's `memory.atomic.wait32` block the engine thread
/// where no time limit ends them (a probe page held its thread until the process was ended).
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct SharedMemoryTests {
    /// `module(flags)`: the bytes of a module whose memory has limits `flags` (1: a maximum; 3:
    /// shared too) and whose export `wait` waits on it forever. `importing(flags)`: a module that
    /// imports such a memory.
    static let modules = """
        globalThis.module = flags => new Uint8Array([0,97,115,109,1,0,0,0, 1,5,1,96,0,1,127, 3,2,1,0, 5,4,1,flags,1,1,
          7,8,1,4,119,97,105,116,0,0, 10,14,1,12,0,65,0,65,0,66,127,254,1,2,0,11]);
        globalThis.importing = flags => new Uint8Array([0,97,115,109,1,0,0,0, 2,11,1,3,101,110,118,1,109,2,flags,1,1]);
        globalThis.outcome = make => { try { make(); return "made"; } catch (error) { return error.name + ": " + error.message; } };
        """

    static let refusal = "shared memory is not available in this page"

    static func context() async throws -> ScriptContext {
        let context = await ScriptContext(thread: EngineThread(name: "sb-shared-memory"))
        try await context.run(modules)
        return context
    }

    @Test func aSharedMemoryIsRefused() async throws {
        let context = try await Self.context()
        #expect(
            try await context.evaluate("outcome(() => new WebAssembly.Memory({initial: 1, maximum: 1, shared: true}))")
                == .string("TypeError: \(Self.refusal)"))
        let plain = try await context.evaluate(
            """
            const memory = new WebAssembly.Memory({initial: 1, maximum: 2});
            [memory instanceof WebAssembly.Memory, memory.constructor === WebAssembly.Memory,
             memory.buffer instanceof ArrayBuffer, memory.grow(1), memory.buffer.byteLength].join()
            """)
        #expect(plain == .string("true,true,true,1,131072"))
        await context.close()
    }

    @Test func aModuleThatDefinesOrImportsASharedMemoryDoesNotCompile() async throws {
        let context = try await Self.context()
        for bytes in ["module(3)", "importing(3)", "module(3).buffer", "new DataView(module(3).buffer)"] {
            #expect(
                try await context.evaluate("outcome(() => new WebAssembly.Module(\(bytes)))") == .string("CompileError: \(Self.refusal)"))
            #expect(try await context.evaluate("WebAssembly.validate(\(bytes))") == .bool(false))
            for name in ["compile", "instantiate"] {
                let rejected = try await context.evaluateAsync(
                    "WebAssembly.\(name)(\(bytes)).then(() => 'made', error => error.name + ': ' + error.message)", timeout: .seconds(10))
                #expect(rejected == .string("CompileError: \(Self.refusal)"), "\(name)(\(bytes))")
            }
        }
        // A view of the bytes from an offset reads the module where it starts.
        let offset = "new Uint8Array([9, 9, 9, ...module(3)]).subarray(3)"
        #expect(try await context.evaluate("outcome(() => new WebAssembly.Module(\(offset)))") == .string("CompileError: \(Self.refusal)"))
        await context.close()
    }

    /// The same modules without sharing compile, and their wait fails at once, as the standard has
    /// a wait on a memory that is not shared.
    @Test func theSameModulesWithoutSharingCompileAndTheirWaitFails() async throws {
        let context = try await Self.context()
        #expect(try await context.evaluate("WebAssembly.validate(module(1)) && WebAssembly.validate(importing(1))") == .bool(true))
        let waited = try await context.evaluate(
            "const instance = new WebAssembly.Instance(new WebAssembly.Module(module(1))); outcome(() => instance.exports.wait())")
        #expect(waited.stringValue?.hasPrefix("RuntimeError") == true)
        let compiled = try await context.evaluateAsync(
            """
            WebAssembly.compile(module(1)).then(compiled => {
              class Sub extends WebAssembly.Module {}
              const made = new WebAssembly.Module(module(1));
              return [compiled instanceof WebAssembly.Module, made instanceof WebAssembly.Module, made.constructor === WebAssembly.Module,
                new Sub(module(1)) instanceof Sub, WebAssembly.Module.exports(made).map(e => e.name + ":" + e.kind).join(" "),
                WebAssembly.Module.name, WebAssembly.Module.length, WebAssembly.validate.length].join();
            })
            """, timeout: .seconds(10))
        #expect(compiled == .string("true,true,true,true,wait:function,Module,1,1"))
        await context.close()
    }

    /// The checks use built-ins taken before the page ran: a page that replaces them first
    /// still gets no shared memory.
    @Test func aPageThatReplacesBuiltInsFirstStillGetsNoSharedMemory() async throws {
        let context = try await Self.context()
        try await context.run(
            """
            const bytes = module(3);
            globalThis.plain = module(1);
            Object.defineProperty(ArrayBuffer.prototype, "byteLength", { get() { return 0; } });
            const typed = Object.getPrototypeOf(Uint8Array.prototype);
            for (const name of ["buffer", "byteOffset", "byteLength", "length"])
              Object.defineProperty(typed, name, { get() { return name === "buffer" ? new ArrayBuffer(8) : 0; } });
            Object.defineProperty(ArrayBuffer, Symbol.hasInstance, { value: () => false });
            globalThis.Uint8Array = function () { return [0, 97, 115, 109, 1, 0, 0, 0]; };
            Reflect.construct = () => ({});
            Reflect.apply = () => 0;
            Object.getOwnPropertyDescriptor = () => undefined;
            globalThis.Proxy = function (target) { return target; };
            globalThis.TypeError = function () {};
            String.prototype.endsWith = () => true;
            // Traps a proxy's handler would inherit, handing the page the original constructor.
            for (const trap of ["get", "apply", "construct", "getPrototypeOf", "getOwnPropertyDescriptor"])
              Object.prototype[trap] = function (target) { globalThis.leaked = target; return Reflect.get(...arguments); };
            Array.prototype[Symbol.iterator] = function* () {};
            globalThis.tampered = bytes;
            """)
        #expect(try await context.evaluate("outcome(() => new WebAssembly.Module(tampered))") == .string("CompileError: \(Self.refusal)"))
        #expect(try await context.evaluate("WebAssembly.validate(tampered)") == .bool(false))
        let compiled = try await context.evaluateAsync(
            "WebAssembly.compile(tampered).then(() => 'made', error => error.message)", timeout: .seconds(10))
        #expect(compiled == .string(Self.refusal))
        let memory = try await context.evaluate("outcome(() => new WebAssembly.Memory({initial: 1, maximum: 1, shared: true}))")
        #expect(memory.stringValue?.hasSuffix(Self.refusal) == true)
        #expect(try await context.evaluate("WebAssembly.Module.exports(new WebAssembly.Module(plain)).length") == .number(1))
        #expect(try await context.evaluate("typeof leaked") == .string("undefined"))
        await context.close()
    }
}
