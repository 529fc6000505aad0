public import SessionBridgeScriptEngine

/// A handler for messages that need no reply; `postMessage` returns `undefined`.
/// (WebKit's `WKScriptMessageHandler`.)
public protocol ScriptMessageHandler: Sendable {
    func userContentController(_ controller: UserContentController, didReceive message: ScriptMessage)
}

/// A handler whose reply resolves the page's promise; a thrown error rejects it.
/// (WebKit's `WKScriptMessageHandlerWithReply`.)
///
/// ```swift
/// struct Echo: ScriptMessageHandlerWithReply {
///     func userContentController(_ controller: UserContentController, didReceive message: ScriptMessage) async throws -> ScriptValue {
///         ["echo": message.body]
///     }
/// }
/// controller.addScriptMessageHandler(Echo(), name: "echo",
///     options: HandlerOptions(allowedOrigins: [SecurityOrigin("https://app.example")!]))
/// ```
public protocol ScriptMessageHandlerWithReply: Sendable {
    /// Runs on the page's thread (the page's engine thread, or the main loop of a WebKit view)
    /// until it awaits something elsewhere, and resumes there (it is `nonisolated(nonsending)`),
    /// so a handler that never suspends replies without a thread hop.
    ///
    /// What it awaits decides the hops: a `nonisolated(nonsending)` function that waits for a
    /// callback (a continuation resumed by another thread) is resumed on the page's thread
    /// directly; a `@concurrent` one (what a plain `nonisolated` async function is without
    /// Swift 6.2's `NonisolatedNonsendingByDefault`) waits on the concurrency pool and then hops
    /// back, two more thread wake-ups per call. A handler that answers from a callback API
    /// without awaiting at all is a ``ScriptMessageHandlerWithReplyHandler``.
    nonisolated(nonsending) func userContentController(
        _ controller: UserContentController, didReceive message: ScriptMessage
    ) async throws -> ScriptValue
}

/// A reply handler that can often answer without suspending. The bridge asks it first, inside
/// the page's call, and resolves the promise at once; when it returns `nil` the async method runs.
///
/// This is the fast path: no task is created, and the round trip costs close to the raw
/// JavaScriptCore C API.
public protocol ImmediateScriptMessageHandler: ScriptMessageHandlerWithReply {
    /// The reply, or `nil` to continue with the async method.
    func immediateReply(to message: ScriptMessage) throws -> ScriptValue?
}

extension ImmediateScriptMessageHandler {
    nonisolated(nonsending) public func userContentController(
        _ controller: UserContentController, didReceive message: ScriptMessage
    ) async throws -> ScriptValue {
        try immediateReply(to: message) ?? .undefined
    }
}

/// A reply handler made from a closure.
public struct ClosureMessageHandler: ScriptMessageHandlerWithReply {
    let body: nonisolated(nonsending) @Sendable (ScriptMessage) async throws -> ScriptValue

    public init(_ body: nonisolated(nonsending) @escaping @Sendable (ScriptMessage) async throws -> ScriptValue) {
        self.body = body
    }

    nonisolated(nonsending) public func userContentController(
        _ controller: UserContentController, didReceive message: ScriptMessage
    ) async throws -> ScriptValue {
        try await body(message)
    }
}

/// An immediate reply handler made from a closure.
public struct ImmediateClosureMessageHandler: ImmediateScriptMessageHandler {
    let body: @Sendable (ScriptMessage) throws -> ScriptValue

    public init(_ body: @escaping @Sendable (ScriptMessage) throws -> ScriptValue) {
        self.body = body
    }

    public func immediateReply(to message: ScriptMessage) throws -> ScriptValue? {
        try body(message)
    }
}
