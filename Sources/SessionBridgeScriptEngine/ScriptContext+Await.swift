import CJavaScriptCore

extension ScriptContext {
    /// Evaluates `source` and, when its value is a promise (or any thenable), waits for it to
    /// settle, letting timers and replies run meanwhile.
    ///
    /// ```swift
    /// let user = try await context.evaluateAsync("fetch('/api/me').then(r => r.json())")
    /// ```
    /// - Throws: the script's exception, the promise's rejection as ``ScriptError``, or
    ///   ``ScriptError/Kind/timeLimitExceeded`` when it does not settle within `timeout`.
    public func evaluateAsync(
        _ source: String, sourceURL: String? = nil, timeout: Duration = .seconds(30)
    ) async throws(ScriptError) -> ScriptValue {
        let value = try unsafe evaluateRaw(source, sourceURL: sourceURL)
        let helper = try unsafe awaitHelper()
        let id = nextAwaitID
        nextAwaitID += 1
        let result: Result<ScriptValue, ScriptError> = await withCheckedContinuation { continuation in
            awaiting[id] = continuation
            var arguments: [JSValueRef?] = unsafe [value ?? JSValueMakeUndefined(ctx), JSValueMakeNumber(ctx, Double(id))]
            var exception: JSValueRef? = nil
            enterJavaScript()
            unsafe arguments.withUnsafeMutableBufferPointer { buffer in
                _ = unsafe JSObjectCallAsFunction(ctx, helper, nil, buffer.count, buffer.baseAddress, &exception)
            }
            if let exception = unsafe exception { unsafe finishAwait(id, .failure(scriptError(from: exception))) }
            leaveJavaScript()
            schedule(after: timeout) { context in
                context.finishAwait(
                    id,
                    .failure(
                        ScriptError(
                            kind: .timeLimitExceeded, name: "TimeoutError", message: "the promise did not settle within \(timeout)")))
            }
        }
        return try result.get()
    }

    func finishAwait(_ id: Int, _ result: Result<ScriptValue, ScriptError>) {
        awaiting.removeValue(forKey: id)?.resume(returning: result)
    }

    private func awaitHelper() throws(ScriptError) -> JSObjectRef {
        if let helper = unsafe awaitHelperFunction { return unsafe helper }
        let settle = unsafe makeFunction { context, call in
            let id = unsafe Int(JSValueToNumber(call.ctx, call[0], nil))
            let fulfilled = unsafe JSValueToBoolean(call.ctx, call[1])
            let value = unsafe call[2] ?? JSValueMakeUndefined(call.ctx)
            if fulfilled {
                do throws(ScriptError) {
                    unsafe context.finishAwait(id, .success(try context.scriptValue(value)))
                } catch {
                    context.finishAwait(id, .failure(error))
                }
            } else {
                unsafe context.finishAwait(id, .failure(context.scriptError(from: value!)))
            }
            return nil
        }
        let factory = try unsafe evaluateRaw(
            """
            (function (settle) {
              const resolve = Promise.resolve.bind(Promise), then = Promise.prototype.then;
              return function (value, id) { then.call(resolve(value), v => settle(id, true, v), e => settle(id, false, e)); };
            })
            """, sourceURL: "sessionbridge://prelude/await.js")
        var argument: JSValueRef? = unsafe settle
        guard let factory = unsafe factory, let factoryObject = unsafe JSValueToObject(ctx, factory, nil),
            let helperValue = unsafe JSObjectCallAsFunction(ctx, factoryObject, nil, 1, &argument, nil),
            let helper = unsafe JSValueToObject(ctx, helperValue, nil)
        else {
            throw ScriptError(kind: .exception, name: "Error", message: "could not install the await helper")
        }
        unsafe protect(helper)
        unsafe awaitHelperFunction = unsafe helper
        return unsafe helper
    }
}
