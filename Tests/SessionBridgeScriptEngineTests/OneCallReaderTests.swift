import CJavaScriptCore
import SessionBridgeTestSupport
import Synchronization
import Testing

@testable import SessionBridgeScriptEngine

/// Objects are read in one call into JavaScript (`ValueWalker`); the C API reader reads them
/// part by part. Both must give the same value, or the same refusal, for anything a page sends.
@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct OneCallReaderTests {
    static let values = [
        #"({action: "refresh", id: 7, meta: {a: 1, b: "x"}})"#,
        "[1, 'two', null, undefined, true, false, -0, 0, 1.5e300, 5e-324, -1e21, 123456789.125, NaN, Infinity, -Infinity]",
        #"({s: "é\u2028\"\\\n\t\u0001\u001f/", lone: "\ud800x", tail: "x\udc00", pair: "😀", "\ud800": 1, "ké\"y": 2})"#,
        "({get g() { return 42 }, u: undefined, n: null, e: {}, a: []})",
        "[1, , 3]",
        "(() => { const o = Object.create(null); o.z = 1; o.a = {b: [Object.create(null)]}; return o })()",
        "({bytes: new Uint8Array([1, 2, 3]), buf: new Uint8Array([4, 5]).buffer, sub: new Uint8Array([9, 8, 7, 6]).subarray(1, 3)})",
        "({view: new DataView(new Uint8Array([1, 2, 3, 4]).buffer, 1, 2), list: [new DataView(new ArrayBuffer(0))]})",
        "[new (class Box { constructor() { this.q = {deep: [1, 2]} } })(), new Error('e'), new String('ab'), /re/g]",
        "(() => { function f() { return arguments } return f(1, 'x') })()",
        // A Proxy is refused, as WebKit refuses one, wherever it stands, whatever its target.
        "new Proxy({a: 1, b: {c: 2}}, {})",
        "({m: new Proxy({}, {})})",
        "[1, new Proxy([1, 2], {})]",
        "({m: {n: new Proxy(new (class C {})(), {})}})",
        "({m: new Proxy(Object.create(null), {getPrototypeOf() { return Object.prototype }})})",
        "({m: new Proxy({}, {getPrototypeOf() { throw new Error('trap') }})})",
        "(() => { const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); return [proxy] })()",
        "({1: 'one', 0: 'zero', b: 'b', a: 'a'})",
        #"({"\ud800": 1, "\udc00": 2, "\u00e9": 3, "e\u0301": 4, z: 5})"#,
        "(() => { const shared = {x: 1}; return {one: shared, two: shared, list: [shared, shared]} })()",
        // Refusals: the same message either way.
        "(() => { const o = {a: 1}; o.self = o; return o })()",
        "(() => { const o = {a: [1]}; o.a.push(o); return [o] })()",
        "(() => { let v = 1; for (let i = 0; i < 80; i++) v = {v}; return v })()",
        "(() => { let v = 1; for (let i = 0; i < 80; i++) v = [v]; return v })()",
        "({f: function () {}})",
        "[() => 1]",
        "({s: Symbol('x')})",
        "({b: 10n})",
        "({d: new Date(0)})",
        "({get bad() { throw new Error('boom') }})",
        "[1, 2, {get inner() { throw 'plain' }}]",
        "[new (class Late { get x() { throw new TypeError('late') } })()]",
    ]

    static func both(
        _ source: String, limits: ConversionLimits? = nil
    ) async -> (Result<ScriptValue, ScriptError>, Result<ScriptValue, ScriptError>) {
        let context = await ScriptContext()
        defer { Task { await context.close() } }
        return await context.readTwice(source, limits: limits)
    }

    @Test(arguments: values)
    func bothReadersAgree(source: String) async throws {
        let (oneCall, partByPart) = await Self.both(source)
        #expect(describe(oneCall) == describe(partByPart), "\(source)")
    }

    /// A Proxy's `length` is the page's to choose, and an object's may read one way as a
    /// number and another as text: the walker reads it as `JSON.stringify` reads an array-like,
    /// before the proxy is refused. (A length of 0 as a number and "4294967295" as text made
    /// the parser reserve 100 GB and stop the process.)
    @Test func aLyingLengthIsReadAsJSONWouldReadIt() async throws {
        let context = await ScriptContext()
        func proxy(_ length: String) -> String { "new Proxy([], {get(t, k) { return k === 'length' ? \(length) : 'x'; }})" }
        let twoFaced = "({[Symbol.toPrimitive](hint) { return hint === 'default' ? '4294967295' : 0; }})"
        for length in [twoFaced, "-5", "NaN", "2.7", "1e300"] {
            do {
                _ = try await context.read(proxy(length), .oneCall)
                Issue.record("a proxy with a length of \(length) was read")
            } catch {
                let expected = length == "1e300" ? "array has more than 100000 elements" : "a Proxy cannot be cloned"
                #expect(error.message == expected, "\(length)")
            }
        }
        await context.close()
    }

    /// The walker keeps the objects it read in a record shared by its walks, for the reader to
    /// check for proxies: a walk started inside another (a getter that reads a value) keeps its
    /// own above the other's, and neither's check sees the other's objects.
    @Test func aWalkInsideAnotherChecksItsOwnObjects() async throws {
        let context = await ScriptContext()
        let inner = Mutex<[ScriptValue]>([])
        await context.defineReadingFunction("readInner") { value in inner.withLock { $0.append(value) } }
        func outer(_ first: String, _ innerValue: String) -> String {
            """
            ({first: \(first), get middle() { try { readInner(\(innerValue)); return "read"; } catch (e) { return "refused"; } },
              after: {x: [4]}})
            """
        }
        // The inner walk's objects go above the outer's: the outer's proxy is still there to refuse.
        await #expect(throws: ScriptError.self) { try await context.read(outer("new Proxy({}, {})", "{c: {d: [2]}}"), .oneCall) }
        #expect(inner.withLock { $0 } == [["c": ["d": [2]]]])
        // The inner walk checks its own objects, not the outer's, which it may not refuse.
        #expect(
            try await context.read(outer("{a: [1]}", "{c: new Proxy({}, {})}"), .oneCall)
                == ["first": ["a": [1]], "middle": "refused", "after": ["x": [4]]])
        #expect(
            try await context.read(outer("{a: [1]}", "{c: {d: [2]}}"), .oneCall)
                == ["first": ["a": [1]], "middle": "read", "after": ["x": [4]]])
        #expect(inner.withLock { $0.count } == 2)
        await context.close()
    }

    @Test func oneWalkerReadsEveryValueInTurnAfterRefusalsToo() async throws {
        // A walker keeps its state between walks: a walk cut short by a refusal (a cycle, a
        // throwing getter, a function) must leave nothing that changes the next value.
        let context = await ScriptContext()
        for _ in 0..<2 {
            for source in Self.values {
                let (oneCall, partByPart) = await context.readTwice(source, limits: nil)
                #expect(describe(oneCall) == describe(partByPart), "\(source)")
            }
        }
        #expect(await context.walkerCount == 1)
        await context.close()
    }

    @Test func aWalkStartedByAGetterDuringAWalkReadsItsOwnValue() async throws {
        // A getter of the value being walked calls native code that reads another value with
        // the same walker: each walk gets its own text, counts and path.
        let context = await ScriptContext()
        let inner = Mutex<[ScriptValue]>([])
        await context.defineReadingFunction("readInner") { value in inner.withLock { $0.append(value) } }
        let outer = try await context.read(
            """
            ({before: [1, "b"], get middle() { readInner({inner: [2, {deep: "d"}], n: -0}); readInner([3]); return "m"; },
              after: {x: [4]}})
            """, .oneCall)
        #expect(outer == ["before": [1, "b"], "middle": "m", "after": ["x": [4]]])
        #expect(inner.withLock { $0 } == [["inner": [2, ["deep": "d"]], "n": .number(-0.0)], [3]])
        #expect(try await context.read("({again: [5]})", .oneCall) == ["again": [5]])
        #expect(await context.walkerCount == 1)
        await context.close()
    }

    @Test func theOneCallReaderActuallyRuns() async throws {
        // A walker that was never made would fall back silently and still agree: it must exist,
        // and the getter above a handed-over typed array must have run once, not once per reader.
        let context = await ScriptContext()
        let value = try await context.read(
            "globalThis.reads = 0; ({get g() { reads++; return {d: new Uint8Array([1])} }, plain: {x: [1]}})", .oneCall)
        #expect(value == ["g": ["d": .bytes([1])], "plain": ["x": [1]]])
        #expect(try await context.evaluate("reads") == 1)
        #expect(await context.walkerCount == 1)
        await context.close()
    }

    @Test func aContextMakesItsWalkerOnlyOnceItHasReadManyValues() async throws {
        let context = await ScriptContext()
        // A hundred small bodies, as a hundred callers of one refresh post them into a new
        // document: read part by part, with no walker made (it used to be made at the 65th).
        for index in 0..<100 {
            #expect(try await context.evaluate("({action: 'refresh', i: \(index)})") == ["action": "refresh", "i": .number(Double(index))])
        }
        #expect(await context.walkerCount == 0)
        // Then arrays, part by part up to the threshold.
        while await context.nodesReadPartByPart < ObjectReader.nodesBeforeWalker {
            #expect(try await context.evaluate("Array.from({length: 31}, (_, k) => k)") == .array((0..<31).map { .number(Double($0)) }))
            #expect(await context.walkerCount == 0)
        }
        #expect(try await context.evaluate("({i: -1, list: [1, 'two']})") == ["i": -1, "list": [1, "two"]])
        #expect(await context.walkerCount == 1)
        await context.close()
    }

    @Test func limitsRefuseTheSameWay() async throws {
        let cases: [(String, ConversionLimits)] = [
            ("[1, 2, 3, 4, 5]", ConversionLimits(maxNodes: 3)),
            ("({a: [1, 2], b: 3})", ConversionLimits(maxNodes: 4)),
            ("new Array(1000)", ConversionLimits(maxNodes: 100)),
            ("({text: 'x'.repeat(100)})", ConversionLimits(maxBytes: 64)),
            ("({['k'.repeat(40)]: 1})", ConversionLimits(maxBytes: 64)),
            ("({bytes: new Uint8Array(100)})", ConversionLimits(maxBytes: 64)),
            ("[[[[1]]]]", ConversionLimits(maxDepth: 3)),
            ("[[[[1]]]]", ConversionLimits(maxDepth: 4)),
            ("({n: NaN})", ConversionLimits(allowsNonFiniteNumbers: false)),
            ("[1, -Infinity]", ConversionLimits(allowsNonFiniteNumbers: false)),
        ]
        for (source, limits) in cases {
            let (oneCall, partByPart) = await Self.both(source, limits: limits)
            #expect(describe(oneCall) == describe(partByPart), "\(source)")
            if case .success = partByPart { continue }
            #expect(describe(oneCall).hasPrefix("refused"), "\(source)")
        }
    }

    @Test func aPageThatRewritesBuiltInsChangesNothing() async throws {
        let context = await ScriptContext()
        let source = #"({list: [1, {a: "x"}], n: null, s: "q\"uote"})"#
        let before = try await context.read(source, .oneCall)
        try await context.run(
            """
            Object.prototype.toJSON = () => 'forged';
            Object.keys = () => ['forged'];
            Object.getPrototypeOf = () => null;
            Array.isArray = () => false;
            JSON.stringify = () => '"forged"';
            Array.prototype.push = () => { throw new Error('push'); };
            Object.defineProperty(Array.prototype, '0', { set() { throw new Error('index set') }, configurable: true });
            Object.defineProperty(Object.prototype, 'get', { get() { throw new Error('get read') }, configurable: true });
            Object.defineProperty(Object.prototype, 'text', { get() { return 'u' }, configurable: true });
            Object.defineProperty(Object.prototype, 'message', { get() { return 'forged refusal' }, configurable: true });
            String.prototype.concat = () => 'forged';
            """)
        #expect(try await context.read(source, .oneCall) == before)
        #expect(try await context.read(source, .partByPart) == before)
        #expect(try await context.read("[new Uint8Array([7]), {k: 1}]", .oneCall) == [.bytes([7]), ["k": 1]])
        await context.close()

        // The walker is made on a context's first object read, which may come after page
        // scripts: it is made from the built-ins captured with the context.
        let late = await ScriptContext()
        try await late.run(
            """
            Object.keys = () => ['forged']; Object.getPrototypeOf = () => null; Array.isArray = () => false;
            Object.create = () => ({ get 0() { throw new Error('forged') } }); ArrayBuffer.isView = () => true;
            Object.defineProperty(Object.prototype, '7', { set() { throw new Error('index set') }, configurable: true });
            """)
        #expect(try await late.read(source, .oneCall) == before)
        #expect(await late.walkerCount == 1)
        await late.close()
    }
}

private func describe(_ result: Result<ScriptValue, ScriptError>) -> String {
    switch result {
    case .success(let value): "value " + exact(value)
    case .failure(let error): "refused \(error.kind) \(error.message)"
    }
}

/// Every detail of a value, the sign of zero and the bits of NaN included.
private func exact(_ value: ScriptValue) -> String {
    switch value {
    case .number(let number): "n\(number.bitPattern)"
    case .string(let string): "s\(Array(string.unicodeScalars.map(\.value)))"
    case .array(let elements): "[" + elements.map(exact).joined(separator: ",") + "]"
    case .object(let members): "{" + members.map { "\(exact(.string($0.key))):\(exact($0.value))" }.joined(separator: ",") + "}"
    default: "\(value)"
    }
}

extension ScriptContext {
    /// Reads the completion value of `source` with both readers, from one evaluation each.
    fileprivate func readTwice(
        _ source: String, limits: ConversionLimits?
    ) -> (Result<ScriptValue, ScriptError>, Result<ScriptValue, ScriptError>) {
        func read(oneCall: Bool) -> Result<ScriptValue, ScriptError> {
            Result { () throws(ScriptError) in
                let value = try unsafe evaluateRaw(source)
                return try unsafe scriptValue(value, limits: limits, reader: oneCall ? .oneCall : .partByPart)
            }
        }
        return (read(oneCall: true), read(oneCall: false))
    }

    fileprivate var walkerCount: Int { unsafe walkers.count }

    /// Defines a native function that reads its argument with the one-call reader and hands it to `body`.
    fileprivate func defineReadingFunction(_ name: String, _ body: @escaping @Sendable (ScriptValue) -> Void) {
        let function = unsafe makeFunction { context, call in
            body(try unsafe context.scriptValue(call[0], reader: .oneCall))
            return nil
        }
        unsafe define(function, as: name)
    }

    /// The completion value of `source`, its objects read by `reader`.
    fileprivate func read(_ source: String, _ reader: ObjectReader) throws(ScriptError) -> ScriptValue {
        try unsafe scriptValue(evaluateRaw(source), reader: reader)
    }
}
