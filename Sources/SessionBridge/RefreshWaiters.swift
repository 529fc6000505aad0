import SessionBridgeMessaging
import Synchronization

/// The pages' calls waiting for one refresh: their replies, answered together where the
/// refresh ends.
///
/// A page's call that joins a refresh in flight leaves its reply here instead of starting a
/// task to wait: a hundred callers cost the page's thread no task, no executor switch and no
/// wake-up each, and their answers reach each page's thread together, settled in one job there
/// (through its reply inbox). A reply left after the refresh ended is answered at once, with
/// the same result.
final class RefreshWaiters: Sendable {
    private enum State {
        case waiting([ScriptMessageReply])
        case ended(Result<SessionStatus, SessionError>)
    }

    private let state = Mutex(State.waiting([]))

    /// Answers `reply` with the refresh's result, when it ends (or now, if it has).
    func add(_ reply: ScriptMessageReply) {
        let ended: Result<SessionStatus, SessionError>? = state.withLock { state in
            switch state {
            case .waiting(var replies):
                // Taken out of the state first, so that the append does not copy the array.
                state = .waiting([])
                replies.append(reply)
                state = .waiting(replies)
                return nil
            case .ended(let result):
                return result
            }
        }
        if let ended { Self.answer(reply, with: ended) }
    }

    /// Ends the wait: answers every reply left so far, and any left later, with `result`.
    func end(with result: Result<SessionStatus, SessionError>) {
        let replies: [ScriptMessageReply] = state.withLock { state in
            guard case .waiting(let replies) = state else { return [] }
            state = .ended(result)
            return replies
        }
        for reply in replies { Self.answer(reply, with: result) }
    }

    private static func answer(_ reply: ScriptMessageReply, with result: Result<SessionStatus, SessionError>) {
        switch result {
        case .success(let status): reply.reply(status.scriptValue)
        case .failure(let error): reply.reject(error.scriptMessageError)
        }
    }
}
