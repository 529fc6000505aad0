public import SessionBridgeScriptEngine
import Synchronization

/// A handler that answers through a reply it may send later, from any thread: a callback API's
/// completion, a worker's result. (WebKit's `userContentController(_:didReceive:replyHandler:)`.)
///
/// ```swift
/// struct Lookup: ScriptMessageHandlerWithReplyHandler {
///     let queue: DispatchQueue
///     func userContentController(
///         _ controller: UserContentController, didReceive message: ScriptMessage, replyHandler: ScriptMessageReply
///     ) {
///         queue.async { replyHandler.reply(["found": true]) }
///     }
/// }
/// ```
///
/// The method runs on the page's thread and should return at once. A reply sent before it
/// returns settles the page's promise inside the page's call, as an immediate handler's does; a
/// later one reaches the page's thread directly, with no task, continuation or trip through
/// the concurrency pool on the way. The call's timeout, abort signal and navigation apply as
/// to any handler.
public protocol ScriptMessageHandlerWithReplyHandler: Sendable {
    /// Receives `message`; answer it through `replyHandler`, now or later, from any thread.
    func userContentController(_ controller: UserContentController, didReceive message: ScriptMessage, replyHandler: ScriptMessageReply)
}

/// The answer to one message (WebKit's `replyHandler`): the first ``reply(_:)`` or
/// ``reject(_:)`` settles the page's promise and later ones do nothing. A reply released
/// without either rejects the promise at once with ``ScriptMessageError/noReply``, instead of
/// leaving the page to its timeout.
public final class ScriptMessageReply: Sendable {
    private let deliver: @Sendable (Result<ScriptValue, any Error>) -> Void
    private let sent = Atomic<Bool>(false)

    package init(_ deliver: @escaping @Sendable (Result<ScriptValue, any Error>) -> Void) {
        self.deliver = deliver
    }

    deinit {
        if !sent.load(ordering: .acquiring) { deliver(.failure(ScriptMessageError.noReply)) }
    }

    /// Resolves the page's promise with `value`.
    public func reply(_ value: ScriptValue) {
        send(.success(value))
    }

    /// Rejects the page's promise: a ``ScriptMessageError`` as it is, any other error as
    /// ``ScriptMessageError/internalError`` (its description never reaches the page).
    public func reject(_ error: any Error) {
        send(.failure(error))
    }

    /// Whether the reply was sent.
    public var isSent: Bool { sent.load(ordering: .acquiring) }

    private func send(_ result: Result<ScriptValue, any Error>) {
        guard !sent.exchange(true, ordering: .acquiringAndReleasing) else { return }
        deliver(result)
    }
}

/// A reply-handler handler where an async one is needed (engines that dispatch through
/// ``UserContentController/dispatch(_:started:)``).
struct ReplyHandlerAdapter: ScriptMessageHandlerWithReply {
    let handler: any ScriptMessageHandlerWithReplyHandler

    nonisolated(nonsending) func userContentController(
        _ userContentController: UserContentController, didReceive message: ScriptMessage
    ) async throws -> ScriptValue {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<ScriptValue, any Error>, Never>) in
            handler.userContentController(
                userContentController, didReceive: message, replyHandler: ScriptMessageReply { continuation.resume(returning: $0) })
        }
        return try result.get()
    }
}
