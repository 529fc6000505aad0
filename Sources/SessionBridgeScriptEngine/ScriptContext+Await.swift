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
    public func evaluateAsync(_ source: String, sourceURL: String? = nil, timeout: Duration = .seconds(30)) async throws(ScriptError) -> ScriptValue {
        let value = try evaluateRaw(source, sourceURL: sourceURL)
        let helper = try awaitHelper()
        let id = nextAwaitID
        nextAwaitID += 1
        let result: Result<ScriptValue, ScriptError> = await withCheckedContinuation { continuation in
            awaiting[id] = continuation
            var arguments: [JSValueRef?] = [value ?? JSValueMakeUndefined(ctx), JSValueMakeNumber(ctx, Double(id))]
            var exception: JSValueRef? = nil
            enterJavaScript()
            arguments.withUnsafeMutableBufferPointer { buffer in
                _ = JSObjectCallAsFunction(ctx, helper, nil, buffer.count, buffer.baseAddress, &exception)
            }
            if let exception { finishAwait(id, .failure(scriptError(from: exception))) }
            leaveJavaScript()
            schedule(after: timeout) { context in
                context.finishAwait(id, .failure(ScriptError(
                    kind: .timeLimitExceeded, name: "TimeoutError", message: "the promise did not settle within \(timeout)")))
            }
        }
        return try result.get()
    }

    func finishAwait(_ id: Int, _ result: Result<ScriptValue, ScriptError>) {
        awaiting.removeValue(forKey: id)?.resume(returning: result)
    }

    private func awaitHelper() throws(ScriptError) -> JSObjectRef {
        if let helper = awaitHelperFunction { return helper }
        let settle = makeFunction { context, call in
            let id = Int(JSValueToNumber(call.ctx, call[0], nil))
            let fulfilled = JSValueToBoolean(call.ctx, call[1])
            let value = call[2] ?? JSValueMakeUndefined(call.ctx)
            if fulfilled {
                do throws(ScriptError) {
                    context.finishAwait(id, .success(try context.scriptValue(value)))
                } catch {
                    context.finishAwait(id, .failure(error))
                }
            } else {
                context.finishAwait(id, .failure(context.scriptError(from: value!)))
            }
            return nil
        }
        let factory = try evaluateRaw("""
            (function (settle) {
              const resolve = Promise.resolve.bind(Promise), then = Promise.prototype.then;
              return function (value, id) { then.call(resolve(value), v => settle(id, true, v), e => settle(id, false, e)); };
            })
            """, sourceURL: "sessionbridge://prelude/await.js")
        var argument: JSValueRef? = settle
        guard let factory, let factoryObject = JSValueToObject(ctx, factory, nil),
              let helperValue = JSObjectCallAsFunction(ctx, factoryObject, nil, 1, &argument, nil),
              let helper = JSValueToObject(ctx, helperValue, nil) else {
            throw ScriptError(kind: .exception, name: "Error", message: "could not install the await helper")
        }
        protect(helper)
        awaitHelperFunction = helper
        return helper
    }
}
