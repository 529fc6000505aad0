import Foundation
import Logging
package import SessionBridgeScriptEngine
import Synchronization

/// The bridge for engines that receive messages themselves (WebKit's own
/// `window.webkit.messageHandlers`): the same registrations, allow-lists, timeouts, handler
/// kinds, error mapping and message log as the headless engine's installation.
extension UserContentController {
    /// How a dispatched message ended.
    package enum DispatchOutcome: Sendable {
        /// A handler without reply received it.
        case delivered
        /// The page's promise resolves with this value.
        case replied(ScriptValue)
        /// The page's promise rejects with this error (already public: no detail of the handler's own error).
        case rejected(ScriptMessageError)
    }

    /// Whether the handler `name` of `world` replies (`nil` when there is none).
    package func handlerReplies(name: String, in world: ContentWorld) -> Bool? {
        guard let registration = registration(named: name, in: world) else { return nil }
        if case .noReply = registration.kind { return false }
        return true
    }

    /// Answers `message` without suspending when that is possible: a refusal (no such
    /// handler, origin not allowed), a handler without reply, or an immediate handler that
    /// answered. `nil` means the async ``dispatch(_:started:)`` must run (nothing was recorded).
    package func dispatchImmediately(_ message: ScriptMessage, started: ContinuousClock.Instant = .now) -> DispatchOutcome? {
        guard let registration = registration(named: message.name, in: message.world) else {
            return refuse(message, .removed, started: started)
        }
        if let refusal = registration.options.refusal(for: message.frameInfo, handler: message.name) {
            return refuse(message, refusal, started: started)
        }
        switch registration.kind {
        case .noReply(let noReply):
            noReply.userContentController(self, didReceive: message)
            log?.record(message.route, body: message.body, outcome: .delivered, started: started)
            return .delivered
        case .immediate(let immediate):
            do {
                guard let value = try immediate.immediateReply(to: message) else { return nil }
                log?.record(
                    message.route, body: message.body, outcome: .replied(value), started: started
                )
                return .replied(value)
            } catch {
                return reject(message, publicScriptMessageError(error, handler: message.name), started: started)
            }
        case .reply, .replyHandler:
            return nil
        }
    }

    /// Delivers `message` as the engine attested it (its frame and world, never the body's
    /// claims): checks the registration and the frame's allow-list, runs the handler within its
    /// timeout, maps its error to what the page may see, and records the call in the log.
    ///
    /// Runs on the caller's executor (`nonisolated(nonsending)`), and so does the handler until
    /// it suspends, and where it resumes: an engine calls it from the page's thread, as the
    /// headless engine runs its handlers (a plain async function would hop to the concurrency
    /// pool and back for a handler that never suspends).
    package nonisolated(nonsending) func dispatch(
        _ message: ScriptMessage, started: ContinuousClock.Instant = .now
    ) async -> DispatchOutcome {
        guard let registration = registration(named: message.name, in: message.world) else {
            return refuse(message, .removed, started: started)
        }
        if let refusal = registration.options.refusal(for: message.frameInfo, handler: message.name) {
            return refuse(message, refusal, started: started)
        }
        let handler: any ScriptMessageHandlerWithReply
        switch registration.kind {
        case .noReply(let noReply):
            noReply.userContentController(self, didReceive: message)
            log?.record(message.route, body: message.body, outcome: .delivered, started: started)
            return .delivered
        case .immediate(let immediate):
            do {
                if let value = try immediate.immediateReply(to: message) {
                    log?.record(
                        message.route, body: message.body, outcome: .replied(value),
                        started: started)
                    return .replied(value)
                }
            } catch {
                return reject(message, publicScriptMessageError(error, handler: message.name), started: started)
            }
            handler = immediate
        case .reply(let reply):
            handler = reply
        case .replyHandler(let replyHandler):
            handler = ReplyHandlerAdapter(handler: replyHandler)
        }
        let timeout = registration.options.timeout ?? limits.defaultTimeout
        let result = await Self.run(handler, message, controller: self, timeout: timeout)
        switch result {
        case .success(let value):
            log?.record(message.route, body: message.body, outcome: .replied(value), started: started)
            return .replied(value)
        case .failure(let error):
            return reject(message, publicScriptMessageError(error, handler: message.name), started: started)
        }
    }

    /// Records a call refused before it reached a handler (a body that could not be cloned,
    /// too many calls in flight) and returns the error for the page.
    package func refuse(
        _ message: ScriptMessage, _ error: ScriptMessageError, started: ContinuousClock.Instant
    ) -> DispatchOutcome {
        log?.record(
            message.route, body: message.body,
            outcome: .refused(code: error.code, message: error.message), started: started)
        return .rejected(error)
    }

    private func reject(
        _ message: ScriptMessage, _ error: ScriptMessageError, started: ContinuousClock.Instant
    ) -> DispatchOutcome {
        log?.record(
            message.route, body: message.body,
            outcome: .rejected(code: error.code, message: error.message), started: started)
        return .rejected(error)
    }

    /// What the page may see of a handler's error: a ``ScriptMessageError`` as it is, any other
    /// error as ``ScriptMessageError/internalError``. The other error is logged by its type only:
    /// an app's error may carry a secret in its description (the app logs its own errors).
    package func publicScriptMessageError(_ error: any Error, handler: String) -> ScriptMessageError {
        if let error = error as? ScriptMessageError { return error }
        if error is CancellationError { return .aborted }
        logger.error("message handler failed", metadata: ["handler": "\(handler)", "error": "\(String(reflecting: type(of: error)))"])
        return .internalError
    }

    /// Runs the handler, giving up (and cancelling it) after `timeout`, or when the caller's
    /// task is cancelled (the engine's call went away with its document); a handler that
    /// ignores cancellation holds nobody.
    ///
    /// The handler's task starts at once on the caller's executor (`isolation`) and resumes
    /// there; the timer is made only when the handler suspended (most answer at once).
    private static func run(
        _ handler: any ScriptMessageHandlerWithReply, _ message: ScriptMessage, controller: UserContentController, timeout: Duration,
        isolation: isolated (any Actor)? = #isolation
    ) async -> Result<ScriptValue, any Error> {
        let race = HandlerRace()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                race.start(continuation)
                let work = Task.immediate {
                    _ = isolation
                    do {
                        race.settle(.success(try await handler.userContentController(controller, didReceive: message)))
                    } catch {
                        race.settle(.failure(error))
                    }
                }
                race.watch(work, timeout: timeout)
            }
        } onCancel: {
            race.cancel()
        }
    }
}

/// A handler's run against its timeout: whichever ends first answers the page.
private final class HandlerRace: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<ScriptValue, any Error>, Never>?
        var timer: Task<Void, Never>?
        var work: Task<Void, Never>?
        var cancelled = false
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<Result<ScriptValue, any Error>, Never>) {
        let cancelled = state.withLock { state in
            state.continuation = continuation
            return state.cancelled
        }
        if cancelled { settle(.failure(ScriptMessageError.navigation)) }
    }

    func settle(_ result: Result<ScriptValue, any Error>) {
        let (continuation, timer) = state.withLock { state in
            defer { (state.continuation, state.timer) = (nil, nil) }
            return (state.continuation, state.timer)
        }
        timer?.cancel()
        continuation?.resume(returning: result)
    }

    /// The caller's task was cancelled, as an engine cancels a call whose document went away:
    /// the handler is cancelled and the call answered now, with ``ScriptMessageError/navigation``
    /// (what the page and the log are told).
    func cancel() {
        let work = state.withLock { state in
            state.cancelled = true
            return state.work
        }
        work?.cancel()
        settle(.failure(ScriptMessageError.navigation))
    }

    func watch(_ work: Task<Void, Never>, timeout: Duration) {
        let cancelled = state.withLock { state in
            state.work = work
            return state.cancelled
        }
        if cancelled { work.cancel() }
        // A handler that answered while it was started needs no timer.
        guard state.withLock({ $0.continuation != nil }) else { return }
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self.settle(.failure(ScriptMessageError.timeout))
            work.cancel()
        }
        let settled = state.withLock { state in
            guard state.continuation != nil else { return true }
            state.timer = timer
            return false
        }
        if settled { timer.cancel() }
    }
}
