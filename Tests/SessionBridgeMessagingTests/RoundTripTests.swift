import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Synchronization
import Testing

@testable import SessionBridgeMessaging

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct RoundTripTests {
    static let values: [ScriptValue] = [
        .null, true, 42, -0.5, "text with \u{1F511}", [1, "two", [3]], ["a": 1, "nested": ["b": [true]]], .bytes([1, 2, 3]),
    ]

    @Test(arguments: values)
    func asyncHandlerResolvesWithEveryValueKind(value: ScriptValue) async throws {
        let controller = UserContentController()
        controller.addScriptMessageHandler(
            ClosureMessageHandler { message in
                try await Task.sleep(for: .milliseconds(1))
                return message.body
            }, name: "echo", options: .appExample)
        let page = try await makeDocument(controller)
        try await page.run("var sent = \(jsLiteral(value))")
        let reply = try await awaitScript(page, "return await window.webkit.messageHandlers.echo.postMessage(sent)")
        #expect(reply == (value == .undefined ? .null : value))
        await page.close()
    }

    @Test func immediateHandlerRepliesInline() async throws {
        let controller = UserContentController()
        controller.addScriptMessageHandler(
            ImmediateClosureMessageHandler { message in
                ["ok": true, "got": message.body["n"] ?? .null]
            }, name: "fast", options: .appExample)
        let page = try await makeDocument(controller)
        let reply = try await awaitScript(
            page, "const p = webkit.messageHandlers.fast.postMessage({n: 7}); return [p instanceof Promise, await p]")
        #expect(reply == [true, ["ok": true, "got": 7]])
        await page.close()
    }

    @Test func handlerWithoutReplyReturnsUndefined() async throws {
        let controller = UserContentController()
        let recorder = Recorder()
        controller.add(recorder, name: "notify", options: .appExample)
        let page = try await makeDocument(controller)
        #expect(try await page.evaluate("typeof webkit.messageHandlers.notify.postMessage({event: 'x'})") == "undefined")
        let messages = recorder.messages.withLock { $0 }
        #expect(messages.count == 1)
        #expect(messages.first?.body == ["event": "x"])
        #expect(messages.first?.frameInfo.securityOrigin?.description == "https://app.example")
        #expect(messages.first?.world == .page)
        await page.close()
    }

    @Test func publicErrorsRejectWithTheirCodeAndPrivateErrorsStayPrivate() async throws {
        struct Secret: Error { let detail = "db password is hunter2" }
        let logs = LogLines()
        let controller = UserContentController(logger: logs.logger)
        controller.addScriptMessageHandler(
            ClosureMessageHandler { message in
                if message.body == "public" {
                    throw ScriptMessageError(code: "invalid_grant", message: "sign in again", retryable: false, data: ["hint": "login"])
                }
                throw Secret()
            }, name: "session", options: .appExample)
        let page = try await makeDocument(controller)
        do {
            _ = try await awaitScript(page, "return await webkit.messageHandlers.session.postMessage('public')")
            Issue.record("expected a rejection")
        } catch let rejection as PageRejection {
            #expect(
                rejection.value == [
                    "name": "Error", "message": "sign in again", "code": "invalid_grant", "retryable": false, "data": ["hint": "login"],
                ])
        }
        do {
            _ = try await awaitScript(page, "return await webkit.messageHandlers.session.postMessage('private')")
            Issue.record("expected a rejection")
        } catch let rejection as PageRejection {
            #expect(rejection.value["code"] == "internal_error")
            #expect(rejection.value["message"] == "the handler failed")
            #expect(!"\(rejection.value)".contains("hunter2"))
        }
        // The app's error is logged by its type: its description may carry a secret.
        let lines = logs.lines.withLock { $0 }
        #expect(lines.contains { $0.contains("message handler failed") && $0.contains("Secret") })
        #expect(!lines.contains { $0.contains("hunter2") })
        await page.close()
    }

    @Test func unknownHandlersAreUndefinedAndOnlyRegisteredNamesAreListed() async throws {
        let controller = UserContentController()
        controller.addScriptMessageHandler(ClosureMessageHandler { _ in .null }, name: "a", options: .appExample)
        controller.add(Recorder(), name: "b", options: .appExample)
        let page = try await makeDocument(controller)
        #expect(try await page.evaluate("typeof webkit.messageHandlers.missing") == "undefined")
        #expect(try await page.evaluate("Object.getOwnPropertyNames(webkit.messageHandlers)") == ["a", "b"])
        await page.close()
    }

    @Test(arguments: [
        "() => {}", "Symbol('x')", "(() => { const a = {}; a.a = a; return a })()",
        "(() => { let v = 1; for (let i = 0; i < 100; i++) v = [v]; return v })()",
        "'x'.repeat(2 * 1024 * 1024)", "({ get bad() { throw new Error('nope') } })", "NaN", "10n",
    ])
    func nonCloneableBodiesThrowSynchronouslyAndReachNothing(body: String) async throws {
        let controller = UserContentController()
        let calls = Counter()
        controller.addScriptMessageHandler(
            ClosureMessageHandler { _ in
                calls.increment(); return .null
            }, name: "h", options: .appExample)
        let page = try await makeDocument(controller)
        let result = try await page.evaluate(
            """
            (() => { try { webkit.messageHandlers.h.postMessage(\(body)); return 'no throw' } catch (e) { return e.name } })()
            """)
        #expect(result == "DataCloneError")
        _ = await page.runUntilQuiescent(timeout: .seconds(2))
        #expect(calls.count == 0)
        await page.close()
    }

    @Test func messageLogRedactsSecrets() async throws {
        let log = MessageLog(redaction: RedactionPolicy(secretPrefixes: ["sbrt_"]))
        let controller = UserContentController(log: log)
        controller.addScriptMessageHandler(
            ImmediateClosureMessageHandler { _ in ["access_token": "abc", "ok": true, "note": "sbrt_leak"] }, name: "h",
            options: .appExample)
        let page = try await makeDocument(controller)
        _ = try await awaitScript(page, "return await webkit.messageHandlers.h.postMessage({password: 'hunter2', user: 'demo'})")
        let entry = try #require(log.entries.last)
        #expect(entry.body == ["password": "<redacted>", "user": "demo"])
        #expect(entry.outcome == .replied(["access_token": "<redacted>", "ok": true, "note": "<redacted>"]))
        #expect(entry.origin == "https://app.example")
        #expect(entry.name == "h")
        await page.close()
    }

    /// Every handler's `postMessage` function and name survives the collections that making
    /// the next ones can cause while a document installs them (a collection is forced after
    /// each here).
    @Test func everyInstalledHandlerSurvivesCollectionsDuringTheInstallation() async throws {
        let controller = UserContentController()
        let names = (0..<40).map { "handler_\($0)_" + String(repeating: "x", count: 40) }
        for name in names {
            controller.addScriptMessageHandler(
                ImmediateClosureMessageHandler { message in .string(message.name) }, name: name, options: .appExample)
        }
        controller.collectsGarbageWhileInstalling = true
        let page = try await makeDocument(controller)
        controller.collectsGarbageWhileInstalling = false
        let listed = try await page.evaluate("Object.getOwnPropertyNames(webkit.messageHandlers)")
        #expect(listed == .array(names.map { .string($0) }))
        let replies = try await awaitScript(
            page,
            "const r = []; for (const n of Object.getOwnPropertyNames(webkit.messageHandlers)) r.push(await webkit.messageHandlers[n].postMessage(1)); return r;"
        )
        #expect(replies == .array(names.map { .string($0) }))
        await page.close()
    }

    /// The log keeps records and makes each entry's date when it is read: dates must still be
    /// the calls' wall-clock times, durations cover the handler's time, observers see the same
    /// entries, and the oldest go first.
    @Test func messageLogEntriesCarryTheirCallsTimesAndTheOldestGoFirst() async throws {
        let log = MessageLog(capacity: 3)
        let observed = Mutex<[MessageLog.Entry]>([])
        log.observe { entry in observed.withLock { $0.append(entry) } }
        let controller = UserContentController(log: log)
        controller.addScriptMessageHandler(
            ImmediateClosureMessageHandler { message in
                if message.body == "slow" { Thread.sleep(forTimeInterval: 0.05) }
                return message.body
            }, contentWorld: .world(name: "tools"), name: "h", options: .appExample)
        let page = try await makeDocument(controller, world: .world(name: "tools"))
        let before = Date()
        for body in ["a", "slow", "b", "c"] {
            _ = try await awaitScript(page, "return await webkit.messageHandlers.h.postMessage('\(body)')")
        }
        let after = Date()
        let entries = log.entries
        #expect(entries.map(\.body) == ["slow", "b", "c"])
        #expect(log.totalCount == 4)
        #expect(observed.withLock { $0 }.map(\.body) == ["a", "slow", "b", "c"])
        #expect(observed.withLock { Array($0.suffix(3)) } == entries)
        for entry in entries {
            #expect(entry.started >= before.addingTimeInterval(-0.01) && entry.started <= after.addingTimeInterval(0.01))
            #expect(entry.name == "h" && entry.world == .world(name: "tools") && entry.origin == "https://app.example")
        }
        #expect(entries[0].duration >= .milliseconds(50))
        #expect(entries[0].started <= entries[1].started && entries[1].started <= entries[2].started)
        await page.close()
    }

    /// The log keeps its newest records in a ring: over many laps, and at every capacity, the
    /// entries are the last calls, oldest first, and the count covers them all.
    @Test(arguments: [1, 2, 3, 7])
    func aLogKeepsItsNewestCallsInOrderOverManyLaps(capacity: Int) {
        let log = MessageLog(capacity: capacity)
        let route = ScriptMessage.Route(name: "h", frameInfo: FrameInfo(url: URL(string: "https://app.example/")!), world: .page)
        for call in 0..<(capacity * 5 + 2) {
            log.record(route, body: .number(Double(call)), outcome: .delivered, started: .now)
            let expected = (max(0, call + 1 - capacity)...call).map { ScriptValue.number(Double($0)) }
            #expect(log.entries.map(\.body) == expected)
        }
        #expect(log.totalCount == capacity * 5 + 2)
    }

    /// A log that keeps nothing still counts every call and tells its observers; a negative
    /// capacity is taken as none (it used to stop the process at the first call).
    @Test(arguments: [0, -5])
    func aLogWithoutCapacityKeepsNothingAndStillCounts(capacity: Int) async throws {
        let log = MessageLog(capacity: capacity)
        #expect(log.capacity == 0)
        let observed = Mutex(0)
        log.observe { _ in observed.withLock { $0 += 1 } }
        let controller = UserContentController(log: log)
        controller.addScriptMessageHandler(ImmediateClosureMessageHandler { $0.body }, name: "h", options: .appExample)
        let page = try await makeDocument(controller)
        for body in ["a", "b"] {
            #expect(try await awaitScript(page, "return await webkit.messageHandlers.h.postMessage('\(body)')") == .string(body))
        }
        #expect(log.entries.isEmpty)
        #expect(log.totalCount == 2)
        #expect(observed.withLock { $0 } == 2)
        await page.close()
    }
}

/// The JavaScript source for a value.
func jsLiteral(_ value: ScriptValue) -> String {
    switch value {
    case .bytes(let bytes): return "new Uint8Array([\(bytes.map(String.init).joined(separator: ","))])"
    case .array(let elements): return "[" + elements.map(jsLiteral).joined(separator: ",") + "]"
    case .object(let members):
        return "({" + members.map { "\(ScriptValue.string($0.key)): \(jsLiteral($0.value))" }.joined(separator: ",") + "})"
    default: return value.description
    }
}
