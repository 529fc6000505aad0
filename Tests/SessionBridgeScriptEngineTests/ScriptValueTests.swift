import OrderedCollections
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeScriptEngine

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct ScriptValueTests {
    static let samples: [ScriptValue] = [
        .undefined, .null, .bool(true), .bool(false), .number(0), .number(-1.5), .number(1e300),
        .string(""), .string("héllo \u{1F600} \"quoted\""), .string("nul\u{0}inside"),
        .array([]), .array([.number(1), .string("two"), .array([.null])]),
        .object([:]), .object(["z": .number(1), "a": .object(["nested": .bool(true)])]),
        .bytes([0, 1, 2, 255]),
        // Several parts cross as JSON text when JSON can carry them exactly, part by part otherwise.
        .object([
            "q": "a\"b\\c\n\u{0}\u{1F}\u{7F} é \u{2028}", "z": .number(-0.0), "big": 1e300, "small": .number(.leastNonzeroMagnitude),
            "i": 123456789012345678,
        ]),
        .object(["u": .undefined, "n": .number(.infinity), "b": .bytes([1]), "ok": true]),
        .array([.number(1), .undefined, .string("x"), .array([.null, .number(-.infinity)])]),
        .array([.number(1.5), .number(-2), .object(["k": "v", "": "empty key"]), .array([])]),
    ]

    @Test(arguments: samples)
    func roundTripsThroughJavaScript(value: ScriptValue) async throws {
        let context = await ScriptContext()
        await context.defineFunction("echo") { _, arguments in arguments.first ?? .undefined }
        try await context.run("var kept = null; function keep(v) { kept = v; return v }")
        #expect(try await context.call("echo", [value]) == value)
        #expect(try await context.call("keep", [value]) == value)
        await context.close()
    }

    /// Strings cross in two ways: ASCII is narrowed directly, anything else is transcoded
    /// from UTF-16, a lone surrogate becoming U+FFFD.
    /// Values made for JavaScript stay alive while the rest are made: twenty megabytes of
    /// strings collect garbage on the way, and an element held only by native code was freed.
    @Test func everyElementOfALargeArraySurvivesTheCollectionsItsMakingCauses() async throws {
        let context = await ScriptContext()
        try await context.run(
            "function check(list, more) { return list.filter((s, i) => s === 'x'.repeat(1000) + i).length + more.length; }")
        let strings = (0..<20_000).map { ScriptValue.string(String(repeating: "x", count: 1000) + "\($0)") }
        let good = try await context.call("check", [.array(strings), .array(Array(strings.prefix(10)))])
        #expect(good == .number(20_010))
        await context.close()
    }

    @Test func stringsCrossWhateverTheirCharacters() async throws {
        let context = await ScriptContext()
        #expect(try await context.evaluate("'plain ASCII ~ \\x7f' + String.fromCharCode(127)") == .string("plain ASCII ~ \u{7F}\u{7F}"))
        #expect(try await context.evaluate("'\\u00e9t\\u00e9 \\u0080'") == .string("été \u{80}"))
        #expect(try await context.evaluate("'a\\ud83d\\ude00b'") == .string("a\u{1F600}b"))
        #expect(try await context.evaluate("'lone \\ud800 surrogate'") == .string("lone \u{FFFD} surrogate"))
        #expect(try await context.evaluate("({ 'kéy': 1, key: 2 })") == .object(["kéy": .number(1), "key": .number(2)]))
        await context.close()
    }

    @Test func keepsObjectKeyOrder() async throws {
        let context = await ScriptContext()
        let value = try await context.evaluate("({zeta: 1, alpha: 2, mid: 3})")
        guard case .object(let members) = value else { Issue.record("not an object"); return }
        #expect(Array(members.keys) == ["zeta", "alpha", "mid"])
        await context.close()
    }

    @Test func typedArraysAndBuffersBecomeBytes() async throws {
        let context = await ScriptContext()
        #expect(try await context.evaluate("new Uint8Array([1,2,3])") == .bytes([1, 2, 3]))
        #expect(try await context.evaluate("new Uint8Array([9,1,2,3]).subarray(1, 3)") == .bytes([1, 2]))
        #expect(try await context.evaluate("new Uint16Array([258]).buffer") == .bytes([2, 1]))
        // A DataView crosses as the bytes it shows; one whose getters the page made lie past its
        // buffer is refused, never read out of bounds.
        #expect(try await context.evaluate("new DataView(new Uint8Array([5, 6, 7, 8]).buffer, 1, 2)") == .bytes([6, 7]))
        // A WebAssembly memory's buffer, which JavaScriptCore does not hand out as a buffer's bytes.
        try await context.run("globalThis.memory = new WebAssembly.Memory({initial: 1}); new Uint8Array(memory.buffer).set([4, 5], 65534);")
        let whole = try await context.evaluate("memory.buffer")
        #expect(whole == .bytes([UInt8](repeating: 0, count: 65534) + [4, 5]))
        #expect(try await context.evaluate("new DataView(memory.buffer, 65533, 3)") == .bytes([0, 4, 5]))
        await #expect(throws: ScriptError.self) {
            try await context.evaluate(
                "Object.defineProperty(DataView.prototype, 'byteLength', {get() { return 1e9 }}); new DataView(new ArrayBuffer(3))")
        }
        #expect(try await context.evaluate("typeof (function(){ return 0 })") == .string("function"))
        await context.close()
    }

    @Test(arguments: [
        ("(function f() {})", "function"),
        ("Symbol('s')", "Symbol"),
        ("10n", "BigInt"),
        ("(() => { const a = {}; a.self = a; return a })()", "cycle"),
        ("(() => { const a = []; a.push(a); return a })()", "cycle"),
        ("(() => { let v = {}; for (let i = 0; i < 100; i++) v = {v}; return v })()", "deeper"),
        ("new Date(0)", "Date"),
        ("({ get boom() { throw new Error('getter says no') } })", "getter says no"),
        ("({ nested: { fn() {} } })", "function"),
    ])
    func refusesValuesThatCannotCross(source: String, expected: String) async throws {
        let context = await ScriptContext()
        do {
            _ = try await context.evaluate(source)
            Issue.record("expected a conversion error for \(source)")
        } catch {
            #expect(error.kind == .conversion)
            #expect(error.message.contains(expected), "\(error.message)")
        }
        #expect(try await context.evaluate("1") == .number(1))
        await context.close()
    }

    @Test func enforcesSizeLimits() async throws {
        let context = await ScriptContext(configuration: .init(conversionLimits: .init(maxDepth: 64, maxNodes: 1000, maxBytes: 10_000)))
        do { _ = try await context.evaluate("new Array(5000).fill(1)") } catch { #expect(error.kind == .conversion) }
        do { _ = try await context.evaluate("'x'.repeat(20000)") } catch { #expect(error.kind == .conversion) }
        #expect(try await context.evaluate("new Array(10).fill(1).length") == .number(10))
        await context.close()
    }

    @Test func collectsEveryStringForLeakSearches() {
        let value: ScriptValue = ["k": ["inner", ["deep": "x"]]]
        var strings: [String] = []
        value.forEachString { strings.append($0) }
        #expect(strings == ["k", "inner", "deep", "x"])
    }
}

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct PollutionTests {
    /// A reply of several parts is made from JSON text in one call: what the page gets must
    /// be exactly what part-by-part conversion makes (own keys in order, `-0`, every character).
    @Test func repliesMadeFromJSONTextAreExact() async throws {
        let context = await ScriptContext()
        await context.defineFunction("reply") { _, _ in
            ["q": "a\"b\\c\n\u{0}\u{1F} é \u{1F600}", "z": .number(-0.0), "2": 2, "1": 1, "list": [1, .null, "x"], "u": 7]
        }
        #expect(
            try await context.evaluate(
                #"const r = reply(); [Object.is(r.z, -0), r.q === "a\"b\\c\n\u0000\u001f é \ud83d\ude00", Object.keys(r).join(), Array.isArray(r.list), Object.getPrototypeOf(r) === Object.prototype]"#
            ) == [true, true, "1,2,q,z,list,u", true, true])
        await context.close()
    }

    @Test func prototypePollutionDoesNotLeakIntoConvertedObjects() async throws {
        let context = await ScriptContext()
        try await context.run(
            "Object.prototype.injected = 'x'; Object.prototype.toJSON = function () { return 1 }; Object.keys = () => ['forged']")
        #expect(try await context.evaluate("({a: 1})") == ["a": 1])
        await context.close()
    }
}

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct ProtoKeyTests {
    @Test func protoKeysStayOwnPropertiesAndNeverBecomePrototypes() async throws {
        let context = await ScriptContext()
        await context.defineFunction("reply") { _, _ in ["__proto__": ["polluted": true], "ok": 1] }
        #expect(
            try await context.evaluate(
                "const r = reply(); [r.polluted === undefined, Object.getPrototypeOf(r) === Object.prototype, Object.keys(r).includes('__proto__')]"
            )
                == [true, true, true])
        #expect(try await context.evaluate("reply()") == ["__proto__": ["polluted": true], "ok": 1])
        await context.close()
    }

    /// A page that froze `Object.prototype` (as hardened pages do) makes its built-in methods
    /// read-only; a reply member of such a name is still the reply's own, as in WebKit.
    @Test func membersNamedLikeObjectPrototypesMethodsAreOwnWhenThePageFrozeIt() async throws {
        let context = await ScriptContext()
        await context.defineFunction("reply") { _, _ in
            ["ok": 1, "constructor": "c", "toString": "t", "valueOf": 2, "hasOwnProperty": true, "__proto__": ["polluted": true]]
        }
        _ = try await context.evaluate("Object.freeze(Object.prototype); 0")
        #expect(
            try await context.evaluate(
                """
                const r = reply();
                [Object.getPrototypeOf(r) === Object.prototype, Object.isFrozen(Object.prototype), r.ok, r.constructor,
                 r.toString, r.valueOf, r.hasOwnProperty, r.polluted === undefined, Object.keys(r).join()]
                """)
                == [true, true, 1, "c", "t", 2, true, true, "ok,constructor,toString,valueOf,hasOwnProperty,__proto__"])
        await context.close()
    }

    /// A page that gave `Array.prototype` accessors of the indices a reply's arrays use (a
    /// setter that records and keeps nothing) still gets each element as the array's own, as
    /// WebKit's deserializer makes them, and its setters never run: not for a native function's
    /// result, and not for the arguments of a call into the page.
    @Test func arraysMadeForAPageAreOwnWhereArrayPrototypeHasAccessors() async throws {
        let context = await ScriptContext()
        await context.defineFunction("reply") { _, _ in ["ok": true, "expiresAt": 7, "list": [1, "two", ["ok": false]]] }
        try await context.run(
            """
            globalThis.hits = [];
            for (const name of ["0", "1"]) {
              Object.defineProperty(Array.prototype, name, {
                set(value) { hits.push(name); }, get() { return "page"; }, configurable: true });
            }
            globalThis.shape = r => [
              Object.hasOwn(r, "ok"), r.ok, r.expiresAt, Object.hasOwn(r.list, 0), r.list[0], r.list[1], r.list[2].ok,
              Array.isArray(r.list), Object.getPrototypeOf(r) === Object.prototype,
              Object.getPrototypeOf(r.list) === Array.prototype, r.list.length];
            """)
        let expected: ScriptValue = [true, true, 7, true, 1, "two", false, true, true, true, 3]
        #expect(try await context.evaluate("shape(reply())") == expected)
        #expect(try await context.call("shape", [["ok": true, "expiresAt": 7, "list": [1, "two", ["ok": false]]]]) == expected)
        try await context.run("globalThis.both = (a, b) => [a, b];")
        #expect(try await context.call("both", [1, "two"]) == [1, "two"])
        #expect(try await context.evaluate("hits.length") == 0)
        await context.close()
    }

    @Test func onlyObjectPrototypesMemberNamesTakeTheDetachedPath() {
        for name in [
            "valueOf", "toString", "__proto__", "constructor", "isPrototypeOf", "hasOwnProperty", "toLocaleString",
            "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__", "propertyIsEnumerable",
        ] {
            #expect(isObjectPrototypeMemberName(name), "\(name)")
        }
        for name in ["ok", "expiresAt", "_proto_", "tostring", "constructors", "", "valueof", "__proto__ "] {
            #expect(!isObjectPrototypeMemberName(name), "\(name)")
        }
    }

    @Test func aGetterThatLoopsForeverEndsAsTimeLimitNotACrash() async throws {
        let context = await ScriptContext(thread: EngineThread(name: "time-limit"), configuration: .init(timeLimit: .milliseconds(50)))
        await context.defineFunction("take") { _, arguments in arguments.first ?? .undefined }
        do { try await context.run("take({get loop() { for (;;) {} }})") } catch {
            #expect(error.kind == .timeLimitExceeded || error.name == "TimeLimitExceeded")
        }
        #expect(try await context.evaluate("try { null.x } catch (e) { e.name }") == "TypeError")
        await context.close()
    }
}

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct WatchdogTests {
    @Test func aScriptThatCatchesTheStopInsideANativeCallIsStillEnded() async throws {
        let context = await ScriptContext(thread: EngineThread(name: "time-limit"), configuration: .init(timeLimit: .milliseconds(50)))
        await context.defineFunction("take") { _, arguments in arguments.first ?? .undefined }
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try await context.run("try { take({get loop() { for (;;) {} }}) } catch (e) {} for (;;) {}")
            Issue.record("expected the time limit")
        } catch {
            #expect(error.kind == .timeLimitExceeded, "\(error)")
        }
        #expect(clock.now - start < .seconds(60))
        #expect(try await context.evaluate("1 + 1") == 2)
        await context.close()
    }
}
