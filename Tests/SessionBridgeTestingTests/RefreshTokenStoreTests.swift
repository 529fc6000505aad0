import Foundation
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeTesting

/// Rotation and reuse in the server's token store, with times chosen by the test.
@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct RefreshTokenStoreTests {
    /// A request reads the clock before it takes the server's lock, so its time can precede a
    /// rotation another request made meanwhile: without a grace that is still reuse.
    @Test func aRequestTimedBeforeTheRotationIsReuseOnAStrictServer() {
        var store = RefreshTokenStore()
        let now = Date()
        let (_, first) = store.startSession(username: "demo", lifetime: .seconds(60), now: now)
        guard case .rotated = store.use(first, lifetime: .seconds(60), now: now) else {
            Issue.record("the first use must rotate")
            return
        }
        #expect(store.use(first, lifetime: .seconds(60), now: now.addingTimeInterval(-0.001)) == .reuse)
    }

    @Test func withAGraceTheSameRequestGetsTheSameSuccessor() {
        var store = RefreshTokenStore()
        let now = Date()
        let (_, first) = store.startSession(username: "demo", lifetime: .seconds(60), now: now)
        guard case .rotated(let second, _, _) = store.use(first, lifetime: .seconds(60), reuseGrace: .seconds(5), now: now) else {
            Issue.record("the first use must rotate")
            return
        }
        guard
            case .replayed(let again, _, _) = store.use(
                first, lifetime: .seconds(60), reuseGrace: .seconds(5), now: now.addingTimeInterval(-0.001))
        else {
            Issue.record("a repeat within the grace must be replayed")
            return
        }
        #expect(again == second)
    }
}
