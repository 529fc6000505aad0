import CJavaScriptCore
import Testing

@testable import SessionBridgeScriptEngine

/// A native function outlives its context only as an object another context of the same
/// thread still holds: called then, it throws instead of reaching the closed context.
@Suite(.timeLimit(.minutes(1))) struct ClosedContextTests {
    @Test func aClosedContextsFunctionThrowsWhenAnotherContextCallsIt() async throws {
        let thread = EngineThread(name: "sb-closed-test")
        let owner = await ScriptContext(thread: thread)
        let caller = await ScriptContext(thread: thread)
        await owner.defineFunction("answer") { _, _ in 42 }
        let function = await owner.protectedGlobal("answer")
        #expect(await caller.call(function) == "42")
        await owner.close()
        #expect(await caller.call(function) == "threw Error: the script context is closed")
        await caller.close()
        thread.shutdown()
    }
}

extension ScriptContext {
    /// The global `name`, protected for the rest of the test (contexts of one thread share a VM).
    fileprivate func protectedGlobal(_ name: String) -> UInt {
        let value = unsafe JSObjectGetProperty(ctx, JSContextGetGlobalObject(ctx), PropertyName(name).ref, nil)!
        unsafe JSValueProtect(ctx, value)
        return UInt(bitPattern: value)
    }

    /// Calls the function `bits` from this context: its result or what it threw, as text.
    fileprivate func call(_ bits: UInt) -> String {
        let function = unsafe JSValueToObject(ctx, JSValueRef(bitPattern: bits), nil)!
        var exception: JSValueRef? = nil
        let result = unsafe JSObjectCallAsFunction(ctx, function, nil, 0, nil, &exception)
        if let exception = unsafe exception { return "threw " + (unsafe stringOf(ctx, exception) ?? "?") }
        return unsafe stringOf(ctx, result) ?? "?"
    }
}
