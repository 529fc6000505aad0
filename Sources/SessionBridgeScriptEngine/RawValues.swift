package import CJavaScriptCore

/// A JavaScript value as the engine hands it to the layers above, valid while its context
/// lives. Only ScriptEngine calls JavaScriptCore: the layers above pass these along and read
/// them through ``RawCall`` and ``ScriptContext``.
package typealias RawValue = JSValueRef

/// A JavaScript object (a function, a promise) as ``RawValue`` is a value.
package typealias RawObject = JSObjectRef

extension RawCall {
    /// Argument `index` converted to a number (`NaN` when it is missing or not numeric).
    package func number(at index: Int) -> Double {
        unsafe JSValueToNumber(ctx, self[index], nil)
    }

    /// A number in this call's context.
    package func makeNumber(_ number: Double) -> RawValue {
        unsafe JSValueMakeNumber(ctx, number)
    }

    /// The property `name` of argument `index`, when the argument is an object and the
    /// property's value is one too. Runs the page's getter, if it defined one.
    package func objectProperty(_ name: PropertyName, ofArgument index: Int) -> RawValue? {
        guard let argument = unsafe self[index], unsafe JSValueIsObject(ctx, argument),
            let object = unsafe JSValueToObject(ctx, argument, nil),
            let value = unsafe JSObjectGetProperty(ctx, object, name.ref, nil), unsafe JSValueIsObject(ctx, value)
        else { return nil }
        return unsafe value
    }

    /// The property `name` of `value` converted to a boolean (`false` when `value` is not an
    /// object). Runs the page's getter, if it defined one.
    package func bool(_ name: PropertyName, of value: RawValue) -> Bool {
        guard let object = unsafe JSValueToObject(ctx, value, nil) else { return false }
        return unsafe JSValueToBoolean(ctx, JSObjectGetProperty(ctx, object, name.ref, nil))
    }

    /// Calls `function` with `arguments`, ignoring its result and any exception it throws.
    package func callIgnoringResult(_ function: RawObject, _ arguments: [RawValue?]) {
        var arguments = unsafe arguments
        unsafe arguments.withUnsafeMutableBufferPointer { buffer in
            _ = unsafe JSObjectCallAsFunction(ctx, function, nil, buffer.count, buffer.baseAddress, nil)
        }
    }

    /// A promise already resolved (or rejected) with `value`: a deferred promise settled at
    /// once, which is two C API calls and no call into JavaScript.
    package func settledPromise(resolving: Bool, with value: RawValue) -> RawValue? {
        var resolve: JSObjectRef? = nil
        var reject: JSObjectRef? = nil
        guard let promise = unsafe JSObjectMakeDeferredPromise(ctx, &resolve, &reject, nil),
            let settle = unsafe resolving ? resolve : reject
        else { return nil }
        var argument: JSValueRef? = unsafe value
        unsafe JSObjectCallAsFunction(ctx, settle, nil, 1, &argument, nil)
        return unsafe promise
    }

    /// A page-visible `Error` for `error`, as ``makeError(in:_:)`` makes it.
    package func makeError(_ error: any Error) -> RawValue {
        unsafe SessionBridgeScriptEngine.makeError(in: ctx, error)
    }
}

extension ScriptContext {
    /// The function stored as property `name` of `value`, protected from collection until
    /// ``unprotect(_:)``; throws when `value` is not an object or the property not a function.
    package func protectedFunction(_ name: String, of value: RawValue?) throws(ScriptError) -> RawObject {
        let key = unsafe makeJSString(name)
        defer { unsafe JSStringRelease(key) }
        guard let value = unsafe value, let object = unsafe JSValueToObject(ctx, value, nil),
            let member = unsafe JSObjectGetProperty(ctx, object, key, nil), let function = unsafe JSValueToObject(ctx, member, nil),
            unsafe JSObjectIsFunction(ctx, function)
        else {
            throw ScriptError(kind: .exception, name: "TypeError", message: "'\(name)' is not a function")
        }
        unsafe protect(function)
        return unsafe function
    }

    /// `value` as a function, `nil` when it is not one.
    package func function(_ value: RawValue?) -> RawObject? {
        guard let value = unsafe value, let object = unsafe JSValueToObject(ctx, value, nil), unsafe JSObjectIsFunction(ctx, object) else {
            return nil
        }
        return unsafe object
    }

    /// Calls `function` with `arguments` (no `this`); a thrown exception becomes the error.
    @discardableResult
    package func call(_ function: RawObject, _ arguments: [RawValue?]) throws(ScriptError) -> RawValue? {
        var arguments = unsafe arguments
        let ctx = unsafe self.ctx
        let (result, exception) = unsafe arguments.withUnsafeMutableBufferPointer { buffer -> (JSValueRef?, JSValueRef?) in
            var exception: JSValueRef? = nil
            let result = unsafe JSObjectCallAsFunction(ctx, function, nil, buffer.count, buffer.baseAddress, &exception)
            return unsafe (result, exception)
        }
        if let exception = unsafe exception { throw unsafe scriptError(from: exception) }
        return unsafe result
    }

    /// `value` as an object, `nil` when it is not one.
    package func object(_ value: RawValue?) -> RawObject? {
        guard let value = unsafe value, unsafe JSValueIsObject(ctx, value) else { return nil }
        return unsafe JSValueToObject(ctx, value, nil)
    }

    /// A new plain object, for native functions to be defined on.
    package func makeObject() -> RawObject {
        unsafe JSObjectMake(ctx, nil, nil)
    }

    /// Sets the property `name` of `object` to `value` (a plain data property).
    package func setProperty(_ value: RawValue, as name: String, on object: RawObject) {
        unsafe setProperty(value, as: name, on: object, attributes: kJSPropertyAttributeNone)
    }

    /// Defines `value` as the read-only property `name` of `object`.
    package func defineReadOnly(_ value: RawValue, as name: String, on object: RawObject) {
        unsafe setProperty(value, as: name, on: object, attributes: kJSPropertyAttributeReadOnly)
    }

    private func setProperty(_ value: RawValue, as name: String, on object: RawObject, attributes: Int) {
        unsafe PropertyNames.with(name) { key in
            unsafe JSObjectSetProperty(ctx, object, key, value, JSPropertyAttributes(attributes), nil)
        }
    }

    /// `undefined`.
    package var undefined: RawValue { unsafe JSValueMakeUndefined(ctx) }
}

/// Values made one after another for one call, each kept alive from the moment it is made
/// until the call has them.
///
/// A value held only in a Swift array sits on the heap, where JavaScriptCore's conservative scan
/// does not look: making the next one can collect it. Each is protected as it is made, until
/// ``ScriptContext/release(_:)``. (Not stored into a JavaScript array: a page that gave
/// `Array.prototype` an accessor of an index would be handed, and could replace, the values.)
@safe  // its JavaScriptCore references are used only on its context's engine thread, while the context lives
package struct HeldArguments {
    fileprivate var values: [RawValue?] = unsafe []
}

extension ScriptContext {
    /// An empty ``HeldArguments``; pass it to ``call(_:with:)``, which lets it go, or read it
    /// with ``values(of:)`` and let it go with ``release(_:)``.
    package func holdArguments() -> HeldArguments {
        HeldArguments()
    }

    /// Keeps `value` as the next argument.
    package func hold(_ value: RawValue?, in held: inout HeldArguments) {
        let value = unsafe value ?? JSValueMakeUndefined(ctx)!
        unsafe JSValueProtect(ctx, value)
        unsafe held.values.append(value)
    }

    /// The held values, in order.
    package func values(of held: HeldArguments) -> [RawValue?] {
        unsafe held.values
    }

    /// Lets the held values go.
    package func release(_ held: HeldArguments) {
        unsafe held.values.forEach { unsafe JSValueUnprotect(ctx, $0) }
    }

    /// Calls `function` with the held arguments (no `this`), then lets them go.
    @discardableResult
    package func call(_ function: RawObject, with held: HeldArguments) throws(ScriptError) -> RawValue? {
        defer { release(held) }
        return try unsafe call(function, values(of: held))
    }
}

extension ScriptContext {
    /// A function made from `body` and `parameters` as `Function` makes one (the body parsed on
    /// its own: it cannot close the function early), whatever ``refuseCodeFromStrings(message:onTimerCode:)``
    /// said: JavaScriptCore's C API skips that check. `nil`, with the exception (a `SyntaxError`)
    /// in `exception`, when the body does not parse. Nothing of the body runs.
    package func makeFunction(
        parameters: [String], body: String, sourceURL: String, startingLine: Int, exception: inout RawValue?
    ) -> RawObject? {
        guard !isClosed else { return nil }
        let names: [JSStringRef?] = unsafe parameters.map { unsafe makeJSString($0) }
        defer { unsafe names.forEach { unsafe JSStringRelease($0) } }
        let text = unsafe makeJSString(body)
        defer { unsafe JSStringRelease(text) }
        let url = unsafe makeJSString(sourceURL)
        defer { unsafe JSStringRelease(url) }
        var thrown: JSValueRef? = nil
        let function = unsafe JSObjectMakeFunction(
            ctx, nil, UInt32(names.count), names, text, url, Int32(clamping: startingLine), &thrown)
        unsafe exception = unsafe thrown
        return unsafe function
    }

    /// A function compiled from `body` with `parameters`, its lines numbered from `startingLine`
    /// of `sourceURL` (the body starts on the first line of the function's source). `nil`,
    /// with the exception (a `SyntaxError`, with its line) in `exception`, when the body does not
    /// parse. Nothing of the body runs.
    package func compileFunction(
        parameters: [String], body: String, sourceURL: String, startingLine: Int, exception: inout RawValue?
    ) -> RawObject? {
        guard !isClosed else { return nil }
        let source = unsafe makeJSString("(function (\(parameters.joined(separator: ", "))) {" + body + "\n})")
        defer { unsafe JSStringRelease(source) }
        let url = unsafe makeJSString(sourceURL)
        defer { unsafe JSStringRelease(url) }
        var thrown: JSValueRef? = nil
        let value = unsafe JSEvaluateScript(ctx, source, nil, url, Int32(clamping: startingLine), &thrown)
        unsafe exception = unsafe thrown
        return unsafe function(value)
    }
}
