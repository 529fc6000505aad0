import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Synchronization
import Testing

@testable import SessionBridgeMessaging

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct SafetyNetTests {
    @Test func originAllowListComesFromTheDocumentURL() async throws {
        let controller = UserContentController()
        let calls = Counter()
        controller.addScriptMessageHandler(
            ClosureMessageHandler { _ in
                calls.increment(); return "ok"
            }, name: "session",
            options: HandlerOptions(allowedOrigins: [SecurityOrigin("https://app.example")!]))
        let allowed = try await makeDocument(controller, url: "https://app.example/x")
        #expect(try await awaitScript(allowed, "return await webkit.messageHandlers.session.postMessage({})") == "ok")
        let other = try await makeDocument(controller, url: "https://evil.example/x")
        // What the script says about itself does not matter.
        try await other.run("globalThis.location = {origin: 'https://app.example'}; document = {domain: 'app.example'}")
        await #expect(throws: PageRejection.self) {
            try await awaitScript(other, "return await webkit.messageHandlers.session.postMessage({})")
        }
        #expect(try await other.evaluate("webkit.messageHandlers.session.postMessage({}).catch(e => e.name) instanceof Promise") == true)
        #expect(calls.count == 1)
        await allowed.close()
        await other.close()
    }

    @Test func mainFrameOnlyRefusesSubframes() async throws {
        let controller = UserContentController()
        controller.addScriptMessageHandler(
            ClosureMessageHandler { _ in "ok" }, name: "h", options: HandlerOptions(allowedOrigins: [.appExample], mainFrameOnly: true))
        let frame = try await makeDocument(controller, isMainFrame: false)
        do {
            _ = try await awaitScript(frame, "return await webkit.messageHandlers.h.postMessage(1)")
            Issue.record("expected refusal")
        } catch let rejection as PageRejection {
            #expect(rejection.value["name"] == "NotAllowedError")
        }
        await frame.close()
    }

    @Test func timeoutRejectsWithTimeoutError() async throws {
        let controller = UserContentController()
        let cancelled = Counter()
        controller.addScriptMessageHandler(
            ClosureMessageHandler { _ in
                do { try await Task.sleep(for: .seconds(30)) } catch { cancelled.increment(); throw error }
                return "late"
            }, name: "slow", options: HandlerOptions(allowedOrigins: [.appExample], timeout: .milliseconds(50)))
        let page = try await makeDocument(controller)
        let clock = ContinuousClock()
        let start = clock.now
        do {
            _ = try await awaitScript(page, "return await webkit.messageHandlers.slow.postMessage(1)")
            Issue.record("expected a timeout")
        } catch let rejection as PageRejection {
            #expect(rejection.value["name"] == "TimeoutError")
            #expect(rejection.value["code"] == "timeout")
        }
        #expect(clock.now - start < .seconds(120), "the call must end; the bound is generous for a busy machine")
        #expect(await eventually { cancelled.count == 1 }, "the handler's task was not cancelled")
        await page.close()
    }

    @Test func abortSignalRejectsAtOnceAndCancelsTheHandler() async throws {
        let controller = UserContentController()
        let cancelled = Counter()
        controller.addScriptMessageHandler(
            ClosureMessageHandler { _ in
                do { try await Task.sleep(for: .seconds(30)) } catch { cancelled.increment(); throw error }
                return "late"
            }, name: "slow", options: .appExample)
        let page = try await makeDocument(controller)
        let result = try await awaitScript(
            page,
            """
            const controller = new AbortController();
            const pending = webkit.messageHandlers.slow.postMessage(1, {signal: controller.signal});
            setTimeout(() => controller.abort(), 5);
            const early = new AbortController(); early.abort();
            const refused = await webkit.messageHandlers.slow.postMessage(2, {signal: early.signal}).catch(e => e.name);
            return [refused, await pending.catch(e => e.name)];
            """)
        #expect(result == ["AbortError", "AbortError"])
        #expect(await eventually { cancelled.count == 1 }, "the handler's task was not cancelled")
        await page.close()
    }

    @Test func overloadRejectsExcessCallsInsteadOfQueueing() async throws {
        let controller = UserContentController(limits: BridgeLimits(maxCallsInFlight: 4))
        controller.addScriptMessageHandler(
            ClosureMessageHandler { _ in
                try await Task.sleep(for: .milliseconds(30))
                return "done"
            }, name: "slow", options: .appExample)
        let page = try await makeDocument(controller)
        let result = try await awaitScript(
            page,
            """
            const calls = [];
            for (let i = 0; i < 10; i++) calls.push(webkit.messageHandlers.slow.postMessage(i).catch(e => e.code));
            return await Promise.all(calls);
            """)
        let values = (result.array ?? []).compactMap(\.stringValue)
        #expect(values.filter { $0 == "done" }.count == 4)
        #expect(values.filter { $0 == "overloaded" }.count == 6)
        await page.close()
    }

    /// Getters the page controls (`options.signal`, `signal.aborted`, the body's) post again
    /// from inside a call; the cap still holds.
    @Test(arguments: ["signal", "aborted", "body"])
    func capHoldsUnderReentry(through getter: String) async throws {
        let controller = UserContentController(limits: BridgeLimits(maxCallsInFlight: 4))
        let load = Mutex((running: 0, peak: 0))
        controller.addScriptMessageHandler(
            ClosureMessageHandler { _ in
                load.withLock {
                    $0.running += 1; $0.peak = max($0.peak, $0.running)
                }
                defer { load.withLock { $0.running -= 1 } }
                try await Task.sleep(for: .milliseconds(300))
                return "done"
            }, name: "slow", options: .appExample)
        let page = try await makeDocument(controller)
        let result = try await awaitScript(
            page,
            """
            const h = webkit.messageHandlers.slow, calls = [];
            let depth = 0;
            const again = () => { if (depth++ < 40) calls.push(post()); };
            const post = () => {
              const signal = { addEventListener() {}, get aborted() { if ("\(getter)" === "aborted") again(); return false; } };
              const options = { get signal() { if ("\(getter)" === "signal") again(); return signal; } };
              const body = { get n() { if ("\(getter)" === "body") again(); return depth; } };
              return h.postMessage(body, options).catch(e => e.code);
            };
            calls.push(post());
            while (calls.length < 41) await null;
            return await Promise.all(calls);
            """)
        let values = (result.array ?? []).compactMap(\.stringValue)
        #expect(values.count == 41)
        #expect(values.filter { $0 == "done" }.count == 4)
        #expect(values.filter { $0 == "overloaded" }.count == 37)
        #expect(load.withLock { $0.peak } <= 4)
        await page.close()
    }

    @Test func teardownRejectsPendingCallsWithNavigationErrorAndDropsLateReplies() async throws {
        let controller = UserContentController()
        let seen = Mutex<[String]>([])
        controller.addScriptMessageHandler(
            ClosureMessageHandler { _ in
                try? await Task.sleep(for: .milliseconds(100))
                return "late"
            }, name: "slow", options: .appExample)
        let page = try await makeDocument(controller)
        await page.defineFunction("record") { _, arguments in
            seen.withLock { $0.append(arguments.first?.stringValue ?? "?") }
            return .undefined
        }
        try await page.run(
            "for (let i = 0; i < 3; i++) webkit.messageHandlers.slow.postMessage(i).then(v => record('resolved ' + v), e => record(e.name))"
        )
        #expect(await page.pendingWork.promises == 3)
        await page.close()
        try await Task.sleep(for: .milliseconds(200))  // late replies arrive meanwhile and must be dropped
        #expect(seen.withLock { $0 } == ["NavigationError", "NavigationError", "NavigationError"])
        #expect(await page.protectedCount == 0)
    }

    @Test func isolatedWorldHandlersAreInvisibleToThePage() async throws {
        let controller = UserContentController()
        controller.addScriptMessageHandler(
            ClosureMessageHandler { _ in "secret-world reply" }, contentWorld: .defaultClient, name: "native", options: .appExample)
        controller.addScriptMessageHandler(ClosureMessageHandler { _ in "page reply" }, name: "public", options: .appExample)
        let thread = EngineThread(name: "worlds")
        let page = try await makeDocument(controller, world: .page, thread: thread)
        let client = try await makeDocument(controller, world: .defaultClient, thread: thread)
        #expect(try await page.evaluate("Object.getOwnPropertyNames(webkit.messageHandlers)") == ["public"])
        #expect(try await page.evaluate("'native' in webkit.messageHandlers") == false)
        #expect(try await awaitScript(client, "return await webkit.messageHandlers.native.postMessage(null)") == "secret-world reply")
        #expect(try await client.evaluate("Object.getOwnPropertyNames(webkit.messageHandlers)") == ["native"])
        await page.close()
        await client.close()
    }

    @Test func pageScriptsCannotReplaceOrWrapTheBridge() async throws {
        let controller = UserContentController()
        let calls = Counter()
        controller.addScriptMessageHandler(
            ImmediateClosureMessageHandler { _ in
                calls.increment(); return "native"
            }, name: "session", options: .appExample)
        let page = try await makeDocument(controller)
        let result = try await awaitScript(
            page,
            """
            "use strict";
            const attempts = [
              () => { window.webkit = {messageHandlers: {session: {postMessage: () => 'fake'}}} },
              () => { webkit.messageHandlers = {} },
              () => { webkit.messageHandlers.session = {postMessage: () => 'fake'} },
              () => { webkit.messageHandlers.session.postMessage = () => 'fake' },
              () => { delete window.webkit },
              () => { delete webkit.messageHandlers.session },
              () => { Object.defineProperty(webkit.messageHandlers.session, 'postMessage', {value: () => 'fake'}) },
              () => { Object.defineProperty(window, 'webkit', {value: {}}) },
              () => { webkit.messageHandlers.session.postMessage.secret = 1 },
              () => { Object.setPrototypeOf(webkit.messageHandlers, {session: 1}) },
            ];
            const failures = attempts.map(attempt => { try { attempt(); return 'changed' } catch (e) { return e.name } });
            const own = Object.getOwnPropertyNames(webkit.messageHandlers.session.postMessage);
            return [failures, await webkit.messageHandlers.session.postMessage(1), own];
            """)
        let failures = result.array?[0].array ?? []
        #expect(failures.count == 10)
        #expect(!failures.contains("changed"))
        #expect(result.array?[1] == "native")
        // Its own properties are a function's, WebKit's native postMessage's: nothing added.
        #expect(result.array?[2] == ["length", "name"])
        #expect(calls.count == 1)
        await page.close()
    }

    @Test func removedHandlersRejectLaterCalls() async throws {
        let controller = UserContentController()
        controller.addScriptMessageHandler(ImmediateClosureMessageHandler { _ in "ok" }, name: "h", options: .appExample)
        let page = try await makeDocument(controller)
        #expect(try await awaitScript(page, "globalThis.kept = webkit.messageHandlers.h; return await kept.postMessage(1)") == "ok")
        controller.removeScriptMessageHandler(forName: "h")
        // Gone from the namespace, as in WebKit; a reference the page kept rejects its calls.
        #expect(try await page.evaluate("typeof webkit.messageHandlers.h") == "undefined")
        #expect(try await awaitScript(page, "return await kept.postMessage(1).catch(e => e.code)") == "handler_removed")
        await page.close()
    }

    @Test func hundredThousandRoundTripsArriveInOrderAndLeakNothing() async throws {
        let controller = UserContentController(log: nil)
        controller.addScriptMessageHandler(ImmediateClosureMessageHandler { message in message.body }, name: "echo", options: .appExample)
        controller.addScriptMessageHandler(ClosureMessageHandler { message in message.body }, name: "async", options: .appExample)
        let page = try await makeDocument(controller)
        let protectedBefore = await page.protectedCount
        let result = try await awaitScript(
            page,
            """
            async function lane(name, lane, n) {
              let expected = 0;
              for (let i = 0; i < n; i++) {
                const reply = await webkit.messageHandlers[name].postMessage({lane, i});
                if (reply.lane !== lane || reply.i !== expected) return 'out of order in ' + lane;
                expected++;
              }
              return expected;
            }
            const lanes = [];
            for (let l = 0; l < 4; l++) lanes.push(lane('echo', l, 20000));
            for (let l = 4; l < 8; l++) lanes.push(lane('async', l, 5000));
            return await Promise.all(lanes);
            """, timeout: .seconds(120))
        #expect(result == [20000, 20000, 20000, 20000, 5000, 5000, 5000, 5000])
        #expect(await page.protectedCount == protectedBefore)
        #expect(await page.pendingWork.promises == 0)
        #expect(await pendingDeadlines(in: page) == 0, "settled calls left their timeouts behind")
        #expect(await page.pendingWork.timers == 0)
        await page.close()
    }
}

extension ScriptValue {
    var array: [ScriptValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}
