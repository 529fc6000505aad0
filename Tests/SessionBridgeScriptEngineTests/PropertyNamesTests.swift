import CJavaScriptCore
import OrderedCollections
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeScriptEngine

/// The property names of objects made for JavaScript are made once and kept
/// (``PropertyNames``): every object still gets exactly its own keys, whichever names are kept.
@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct PropertyNamesTests {
    @Test func aNameIsMadeOnceAndKept() {
        // Held while the name is asked for again, so a string made anew could not reuse its address.
        let first = unsafe PropertyNames.with("expiresAt") { unsafe JSStringRetain($0)! }
        defer { unsafe JSStringRelease(first) }
        let second = unsafe PropertyNames.with("expiresAt") { unsafe $0 }
        let same = first == second
        let text = unsafe swiftString(first)
        #expect(same)
        #expect(text == "expiresAt")
    }

    /// Names too long to keep, names holding a NUL or non-ASCII text, and more distinct names
    /// than are kept: each object has its keys, in order, as own properties of those names.
    @Test func everyObjectHasExactlyItsKeys() async throws {
        let long = String(repeating: "k", count: PropertyNames.maxLength + 1)
        var many = OrderedDictionary<String, ScriptValue>()
        for index in 0..<(PropertyNames.capacity + 50) { many["name-\(index)"] = .number(Double(index)) }
        let values: [ScriptValue] = [
            ["ok": true, "expiresAt": 7],
            [long: 1, "short": 2],
            ["nul\u{0}inside": 1, "nul": 2, "é \u{1F600}": 3],
            .object(many),
            ["ok": .object(["ok": false, "expiresAt": "later"])],
        ]
        let context = await ScriptContext()
        try await context.run("function describe(v) { return Object.keys(v).map(k => [k, Object.getOwnPropertyDescriptor(v, k).value]) }")
        for value in values {
            guard case .object(let members) = value else { continue }
            let described = try await context.call("describe", [value])
            let expected = ScriptValue.array(members.map { .array([.string($0.key), $0.value]) })
            #expect(described == expected)
        }
        await context.close()
    }

    /// Contexts on several threads make objects with the same names at once: each gets its own
    /// keys and values.
    @Test func threadsShareKeptNamesSafely() async throws {
        let threads = (0..<4).map { EngineThread(name: "names-\($0)") }
        defer { threads.forEach { $0.shutdown() } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, thread) in threads.enumerated() {
                group.addTask {
                    let context = await ScriptContext(thread: thread)
                    try await context.run("function sum(v) { return v[`shared-${v.i % 7}`] + v.i }")
                    for call in 0..<300 {
                        let i = Double(index * 1000 + call)
                        let name = "shared-\(Int(i) % 7)"
                        let answer = try await context.call("sum", [["i": .number(i), name: .number(1)] as ScriptValue])
                        #expect(answer == .number(i + 1))
                    }
                    await context.close()
                }
            }
            try await group.waitForAll()
        }
    }
}
