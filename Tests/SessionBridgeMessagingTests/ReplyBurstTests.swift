import Dispatch
import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Synchronization
import Testing

@testable import SessionBridgeMessaging

/// Replies sent together from another thread reach the document in one job (its reply inbox),
/// and still settle one at a time: each call's promise reactions, and the microtasks they
/// queue, run before the next call settles, as when each reply is a task of its own.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct ReplyBurstTests {
    /// Holds every reply until `count` calls arrived, then sends them all, back to back, from
    /// a queue, in the order the calls came.
    final class HoldThenReplyAll: ScriptMessageHandlerWithReplyHandler {
        let count: Int
        let held = Mutex<[(ScriptMessageReply, ScriptValue)]>([])
        let queue = DispatchQueue(label: "reply-burst")

        init(count: Int) { self.count = count }

        func userContentController(_ controller: UserContentController, didReceive message: ScriptMessage, replyHandler: ScriptMessageReply)
        {
            let all = held.withLock { held -> [(ScriptMessageReply, ScriptValue)]? in
                held.append((replyHandler, message.body))
                return held.count == count ? held : nil
            }
            guard let all else { return }
            queue.async {
                for (reply, body) in all { reply.reply(body) }
            }
        }
    }

    @Test func eachReplyOfABurstSettlesWithItsOwnMicrotaskCheckpoint() async throws {
        let controller = UserContentController()
        let handler = HoldThenReplyAll(count: 3)
        controller.addScriptMessageHandler(handler, name: "h", options: .appExample)
        let page = try await makeDocument(controller)
        let order = try await awaitScript(
            page,
            """
            const order = [];
            const ask = (name) => window.webkit.messageHandlers.h.postMessage(name).then((value) => {
              order.push(value);
              queueMicrotask(() => order.push("after " + value));
            });
            await Promise.all([ask("a"), ask("b"), ask("c")]);
            return order;
            """)
        #expect(order == ["a", "after a", "b", "after b", "c", "after c"])
        #expect(await pendingDeadlines(in: page) == 0)
        await page.close()
    }

    /// Sixty-four calls in flight, answered in bursts from a worker, each get their own value.
    @Test func sixtyFourCallsInFlightGetTheirOwnReplies() async throws {
        let controller = UserContentController()
        controller.addScriptMessageHandler(HoldThenReplyAll(count: 64), name: "h", options: .appExample)
        let page = try await makeDocument(controller)
        let sum = try await awaitScript(
            page,
            """
            const replies = await Promise.all(Array.from({length: 64}, (_, i) => window.webkit.messageHandlers.h.postMessage({i})));
            return replies.every((reply, i) => reply.i === i) ? replies.length : -1;
            """)
        #expect(sum == 64)
        await page.close()
    }
}
