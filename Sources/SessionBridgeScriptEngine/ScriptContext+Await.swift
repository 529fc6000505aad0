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
        // Until the helper's call has it, the value lives in this async function's frame, on
        // the heap, where JavaScriptCore's conservative scan of the thread's stack does not
        // look; and no API lock is held in between, so the collector thread may finish a
        // collection meanwhile. A promise that already settled is referenced by nothing else:
        // unprotected, it was freed and its cell reused, and the caller got `undefined` or
        // another object's value. (Closing the context releases what it protects.)
        if let value = unsafe value { unsafe protect(value) }
        defer { if let value = unsafe value, !isClosed { unsafe unprotect(value) } }
        let helper = try unsafe awaitHelper()
        if collectsGarbageBeforeAwaiting { await collectGarbageInAJobOfItsOwn() }
        let id = nextAwaitID
        nextAwaitID += 1
        // Entering `resumingHere` is a suspension point (the task executor preference is set by
        // a hop): jobs queued meanwhile run first, and one of them may close this context, a
        // navigation replacing the document. `close()` resumes only the waits it finds, so a
        // wait registered after it would never end: its timeout is not scheduled on a closed
        // context either.
        let result: Result<ScriptValue, ScriptError> = await thread.resumingHere {
            await withCheckedContinuation { continuation in
                guard !isClosed else {
                    continuation.resume(returning: .failure(.contextClosed))
                    return
                }
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
        }
        return try result.get()
    }

    /// A full, synchronous garbage collection, from a job of its own (nothing of the caller's
    /// frame is on the thread's stack then).
    private func collectGarbageInAJobOfItsOwn() async {
        await withCheckedContinuation { continuation in
            // On the thread, not as the context's timer: a context closed meanwhile skips its
            // timers, and the wait must end all the same.
            thread.schedule(after: .zero) { [weak self] in
                self?.assumeIsolated { context in if !context.isClosed { context.collectGarbage() } }
                continuation.resume()
            }
        }
    }

    func finishAwait(_ id: Int, _ result: Result<ScriptValue, ScriptError>) {
        awaiting.removeValue(forKey: id)?.resume(returning: result)
    }

    /// Makes what ``evaluateAsync(_:sourceURL:timeout:)`` needs ahead of its first call (a page
    /// prepares its next document this way, off the path of the app's first call into it).
    package func prepareAwaiting() {
        _ = try? unsafe awaitHelper()
    }

    private func awaitHelper() throws(ScriptError) -> JSObjectRef {
        if let helper = unsafe awaitHelperFunction { return unsafe helper }
        let settle = unsafe makeFunction { context, call in
            guard let id = unsafe Int(javaScriptNumber: JSValueToNumber(call.ctx, call[0], nil)) else { return nil }
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
        // Made from the built-ins captured with the context: a page that replaced `then`,
        // `Promise.resolve` or `Function.prototype.call` since cannot see the app's results or
        // keep its calls from settling.
        let factory = try unsafe evaluateRaw(Self.awaitHelperFactory)
        var exception: JSValueRef? = nil
        guard let builtins = unsafe pristineBuiltins, let factory = unsafe factory,
            let factoryObject = unsafe JSValueToObject(ctx, factory, nil),
            let helperValue = unsafe callFunction(
                ctx, factoryObject, this: nil, [settle, builtins, JSValueMakeNumber(ctx, Double(PristineBuiltins.awaitFirst))],
                exception: &exception),
            let helper = unsafe JSValueToObject(ctx, helperValue, nil)
        else {
            throw ScriptError(kind: .exception, name: "Error", message: "could not install the await helper")
        }
        unsafe protect(helper)
        unsafe awaitHelperFunction = unsafe helper
        return unsafe helper
    }

    /// The await helper's factory (``awaitHelper()``).
    private static let awaitHelperFactory = ScriptSource(
        """
        (function (settle, builtins, at) {
          const apply = builtins[at], P = builtins[at + 1], resolve = builtins[at + 2], then = builtins[at + 3];
          return function (value, id) {
            apply(then, apply(resolve, P, [value]), [v => settle(id, true, v), e => settle(id, false, e)]);
          };
        })
        """, sourceURL: "sessionbridge://prelude/await.js")
}
