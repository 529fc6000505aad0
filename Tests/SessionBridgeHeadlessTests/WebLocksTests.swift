import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeHeadless

/// The data store's Web Locks, the registry alone: who is granted what, in which order, and
/// what a document's close and an abort give to those waiting.
@Suite(.timeLimit(.minutes(1))) struct WebLocksTests {
    /// A document, told apart by its identity.
    final class Client {
        var id: ObjectIdentifier { ObjectIdentifier(self) }
        let notices = Locked<[String]>([])
        init(_ locks: WebLocks, origin: String) {
            let notices = self.notices
            locks.join(id, origin: SecurityOrigin(url: URL(string: origin)!)!) { notice in
                switch notice {
                case .granted(let id): notices.update { $0.append("granted \(id)") }
                case .stolen(let id): notices.update { $0.append("stolen \(id)") }
                }
            }
        }
        func request(
            _ locks: WebLocks, _ id: Int, _ name: String, exclusive: Bool = true, ifAvailable: Bool = false, steal: Bool = false
        )
            -> WebLocks.Outcome
        {
            locks.request(
                WebLocks.Request(id: id, client: self.id, name: name, exclusive: exclusive), ifAvailable: ifAvailable, steal: steal)
        }
    }

    @Test func requestsOfANameAreGrantedInOrderAndSharedOnesTogether() {
        let locks = WebLocks()
        let one = Client(locks, origin: "https://app.example"), two = Client(locks, origin: "https://app.example")
        #expect(one.request(locks, 1, "r") == .granted)
        #expect(two.request(locks, 2, "r", exclusive: false) == .queued)
        #expect(two.request(locks, 3, "r", exclusive: false) == .queued)
        // A shared request that could join the shared ones still waits behind an exclusive one.
        #expect(one.request(locks, 4, "r") == .queued)
        #expect(one.request(locks, 5, "r", exclusive: false) == .queued)
        #expect(two.request(locks, 6, "r", ifAvailable: true) == .unavailable)
        locks.release(1, by: one.id)
        #expect(two.notices.value == ["granted 2", "granted 3"])
        #expect(locks.query(by: one.id).held.map(\.exclusive) == [false, false])
        locks.release(2, by: two.id)
        #expect(one.notices.value == [])
        locks.release(3, by: two.id)
        #expect(one.notices.value == ["granted 4"])
        // Another origin's lock of the same name is another lock.
        let elsewhere = Client(locks, origin: "https://other.example")
        #expect(elsewhere.request(locks, 7, "r") == .granted)
        #expect(locks.query(by: elsewhere.id).held.count == 1)
    }

    @Test func aClosedDocumentsLocksAndRequestsGoAndAStealTellsTheHolders() {
        let locks = WebLocks()
        let one = Client(locks, origin: "https://app.example"), two = Client(locks, origin: "https://app.example")
        #expect(one.request(locks, 1, "r") == .granted)
        #expect(one.request(locks, 2, "q") == .granted)
        #expect(two.request(locks, 3, "r") == .queued)
        #expect(one.request(locks, 4, "r") == .queued)
        #expect(locks.abort(3, by: two.id))
        #expect(!locks.abort(1, by: one.id))  // granted: not a waiting request
        #expect(two.request(locks, 5, "r") == .queued)
        locks.leave(one.id)
        #expect(two.notices.value == ["granted 5"])
        #expect(locks.query(by: two.id).pending.isEmpty)
        let three = Client(locks, origin: "https://app.example")
        #expect(three.request(locks, 6, "r", steal: true) == .granted)
        #expect(two.notices.value == ["granted 5", "stolen 5"])
        #expect(locks.query(by: three.id).held.map(\.name) == ["r"])
    }

    /// A document of an opaque origin has no Web Locks: its requests and queries are a
    /// `SecurityError`, and none reaches the data store's locks.
    @Test func anOpaqueOriginsRequestsAreASecurityError() async throws {
        let page = WebPage()
        try await page.loadHTMLString("<p>opaque</p>", baseURL: URL(string: "about:blank")!)
        let outcome = try await page.callAsyncJavaScript(
            """
            const outcome = async promise => { try { await promise; return "fulfilled"; } catch (error) { return error.name; } };
            return [await outcome(navigator.locks.request("a", () => {})), await outcome(navigator.locks.query())];
            """)
        #expect(outcome == ["SecurityError", "SecurityError"])
        await page.close()
    }
}
