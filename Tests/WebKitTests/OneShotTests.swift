import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeWebKit

/// The first outcome of a WebKit operation wins, whichever comes first: the continuation or
/// the outcome (a signal GLib emits while the operation is being started).
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct OneShotTests {
    @Test func anOutcomeBeforeTheContinuationIsKeptForIt() async {
        let once = OneShot<Int>()
        #expect(once.resume(.success(1)))
        #expect(!once.resume(.success(2)), "a second outcome decided again")
        // Waited for at most 5 s: without the kept outcome the continuation would never resume.
        let (outcomes, first) = AsyncStream<Int?>.makeStream()
        Task { first.yield(try? await withCheckedContinuation { once.install($0) }.get()) }
        Task {
            try? await Task.sleep(for: .seconds(5))
            first.yield(nil)
        }
        var iterator = outcomes.makeAsyncIterator()
        #expect(await iterator.next() == .some(1))
    }

    @Test func theFirstOutcomeAfterTheContinuationWins() async {
        let once = OneShot<Int>()
        let result = await withCheckedContinuation { continuation in
            once.install(continuation)
            #expect(once.resume(.failure(WebKitError(.timeout, "late"))))
            #expect(!once.resume(.success(3)))
        }
        #expect(result.failureCode == .timeout)
    }
}

extension Result where Failure == WebKitError {
    fileprivate var failureCode: WebKitError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
