import Foundation
import OrderedCollections
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Synchronization
import Testing

/// What a page may send, the same on both engines: a body the bridge cannot carry as it is
/// throws a `DataCloneError` at once and reaches no handler (on WebKit it would otherwise
/// leave the page's promise unsettled, or arrive changed: `NaN` as `null`, a `BigInt` as
/// nothing), and handler errors keep their `code`.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct MessageBodiesOnBothEnginesTests {
    static let refused = [
        "{f: () => 1}", "[Symbol('s')]", "{b: 10n}", "[1, 10n]", "{d: [new Date(0)]}", "[Infinity]", "{n: NaN}",
        "(() => { const o = {}; o.a = o; o.b = o; return o; })()",
        // A Proxy, as Vue's reactive state is: WebKit's structured clone refuses one.
        "new Proxy({action: 'refresh'}, {})", "{meta: new Proxy({}, {})}", "[new Proxy([1], {})]",
    ]

    @Test(arguments: Engine.allCases)
    func bodiesThatCannotCrossThrowAndReachNoHandler(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let calls = Mutex(0)
            let view = try await harness.makeEchoView { calls.withLock { $0 += 1 } }
            let list = "[" + Self.refused.map { "() => (\($0))" }.joined(separator: ", ") + "]"
            let names = try await view.run(
                """
                const results = [];
                for (const make of \(list)) {
                  try { window.webkit.messageHandlers.echo.postMessage(make()); results.push("sent"); } catch (e) { results.push(e.name); }
                }
                return results;
                """)
            #expect(names == .array(Array(repeating: "DataCloneError", count: Self.refused.count)))
            // What can cross does, with each getter read once and shared parts copied.
            let reply = try await view.run(
                """
                let reads = 0;
                const shared = {n: 1};
                const reply = await window.webkit.messageHandlers.echo.postMessage({a: shared, b: shared, get g() { return ++reads; }});
                const text = "a\\u0000b\\u{1F600}";
                return [reply.a.n, reply.b.n, reply.g, reads, (await window.webkit.messageHandlers.echo.postMessage(text)) === text];
                """)
            #expect(reply == [1, 1, 1, 1, true])
            #expect(calls.withLock { $0 } == 2)
        }
    }

    /// A script's value holding a `Proxy` cannot be returned either, on both engines (WebKit:
    /// "Unsupported result type").
    @Test(arguments: Engine.allCases)
    func aProxyInAScriptsValueIsRefused(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            for source in ["return new Proxy({a: 1}, {})", "return {m: [new Proxy([1], {})]}"] {
                await #expect(throws: (any Error).self, "\(source)") { try await view.run(source) }
            }
            #expect(try await view.run("return {m: [1]}") == ["m": [1]])
        }
    }

    @Test(arguments: Engine.allCases)
    func aCallWithoutABodyIsATypeError(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let contents = UserContentController()
            contents.addScriptMessageHandler(
                ClosureMessageHandler { $0.body }, name: "echo", options: HandlerOptions(allowedOrigins: [harness.origin]))
            let view = try await harness.makeView(session: false, contents: contents)
            try await view.load(harness.url("/login"))
            let outcome = try await view.run(
                """
                try { await window.webkit.messageHandlers.echo.postMessage(); return "resolved"; } catch (e) { return e.name; }
                """)
            #expect(outcome == "TypeError")
        }
    }

    /// WebKit may drop a handler's JavaScript wrapper in a collection and make a new one: the
    /// errors still arrive decoded.
    @Test(arguments: Engine.allCases)
    func handlerErrorsKeepTheirCodeAfterACollection(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let contents = UserContentController()
            contents.addScriptMessageHandler(
                ClosureMessageHandler { _ in throw ScriptMessageError(code: "refused", message: "no", retryable: true) }, name: "fail",
                options: HandlerOptions(allowedOrigins: [harness.origin]))
            let view = try await harness.makeView(session: false, contents: contents)
            try await view.load(harness.url("/login"))
            let codes = try await view.run(
                """
                const codes = [];
                for (let round = 0; round < 3; round++) {
                  let garbage = [];
                  for (let i = 0; i < 300000; i++) { garbage.push({i, s: "x" + i}); if (garbage.length > 1000) garbage = []; }
                  try { await window.webkit.messageHandlers.fail.postMessage({}); } catch (e) { codes.push(e.code); }
                }
                return codes;
                """)
            #expect(codes == ["refused", "refused", "refused"])
        }
    }

    /// A reply arrives as the handler made it on both engines: bytes as a `Uint8Array` (also
    /// inside arrays and objects), non-finite numbers as themselves, members and elements
    /// holding `undefined` kept, a NUL inside a string kept (on WebKit, read through JSON,
    /// bytes arrived as an array of numbers, `NaN` as `null`, and `undefined` members were
    /// dropped; WebKit itself keeps no key order in a reply, as `WKWebView` does not).
    @Test(arguments: Engine.allCases)
    func repliesArriveAsTheHandlerMadeThem(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let reply: ScriptValue = .object([
                "bytes": .bytes([1, 2, 0, 255]), "nan": .number(.nan), "inf": .number(-.infinity), "u": .undefined,
                "s": .string("a\u{0}b"), "list": .array([.undefined, .null, .bytes([])]), "nested": .object(["n": .number(1.5)]),
            ])
            let contents = UserContentController()
            contents.addScriptMessageHandler(
                ClosureMessageHandler { message in message.body == "bytes" ? .bytes(Array(0...255)) : reply }, name: "make",
                options: HandlerOptions(allowedOrigins: [harness.origin]))
            let view = try await harness.makeView(session: false, contents: contents)
            try await view.load(harness.url("/login"))
            let seen = try await view.run(
                """
                const r = await window.webkit.messageHandlers.make.postMessage({});
                const all = await window.webkit.messageHandlers.make.postMessage("bytes");
                return [
                  r.bytes instanceof Uint8Array, Array.from(r.bytes).join(","),
                  Number.isNaN(r.nan), r.inf === -Infinity,
                  Object.prototype.hasOwnProperty.call(r, "u"), r.u === undefined,
                  r.s.length, r.s.charCodeAt(1),
                  r.list.length, r.list[0] === undefined, r.list[1] === null, r.list[2] instanceof Uint8Array, r.list[2].length,
                  Object.getPrototypeOf(r) === Object.prototype, r.nested.n, Object.keys(r).sort().join(","),
                  all instanceof Uint8Array, all.length, all.every((b, i) => b === i)
                ];
                """)
            #expect(
                seen == [
                    true, "1,2,0,255", true, true, true, true, 3, 0, 3, true, true, true, 0, true, 1.5,
                    "bytes,inf,list,nan,nested,s,u", true, 256, true,
                ])
        }
    }

    /// A page that froze `Object.prototype` (as hardened pages do) still gets every member of a
    /// reply as the reply's own, those named like `Object.prototype`'s methods and `__proto__`
    /// too. Both engines dropped them: WebKit makes a reply's objects in the page by setting
    /// their members, as the headless engine did (it now defines them; on WebKit such objects
    /// cross as their entries).
    @Test(arguments: Engine.allCases)
    func aPageThatFrozeObjectPrototypeGetsEveryReplyMember(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeLoginView(
                handler: ClosureMessageHandler { _ in
                    [
                        "ok": true, "toString": "t", "constructor": 1, "valueOf": .null,
                        "nested": ["hasOwnProperty": false, "bytes": .bytes([7])], "__proto__": ["polluted": true],
                    ]
                }, name: "make")
            let seen = try await view.run(
                """
                Object.freeze(Object.prototype);
                const r = await window.webkit.messageHandlers.make.postMessage({});
                const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
                return [
                  Object.isFrozen(Object.prototype), Object.getPrototypeOf(r) === Object.prototype, r.ok,
                  own(r, "toString") && r.toString, own(r, "constructor") && r.constructor, own(r, "valueOf") && r.valueOf,
                  own(r.nested, "hasOwnProperty") && r.nested.hasOwnProperty, r.nested.bytes instanceof Uint8Array && r.nested.bytes[0],
                  own(r, "__proto__") && r.__proto__.polluted, r.polluted === undefined, Object.keys(r).sort().join(",")
                ];
                """)
            #expect(seen == [true, true, true, "t", 1, .null, false, 7, true, true, "__proto__,constructor,nested,ok,toString,valueOf"])
        }
    }

    /// A page that froze the intrinsics (`Error.prototype` among them, as hardened pages do)
    /// still gets errors with their own name, code and data: a handler's error, and the
    /// `DataCloneError` of a body that cannot be sent. (The headless engine set `name` through
    /// the frozen prototype's read-only one: every error was named `Error`.)
    @Test(arguments: Engine.allCases)
    func aPageThatFrozeItsIntrinsicsGetsNamedErrors(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeLoginView(
                handler: ClosureMessageHandler { _ in
                    throw ScriptMessageError(code: "refused", message: "no", data: ["toString": "t"], name: "SessionError")
                }, name: "fail")
            let seen = try await view.run(
                """
                for (const intrinsic of [Object.prototype, Error.prototype, Error, Function.prototype]) Object.freeze(intrinsic);
                const seen = [Object.isFrozen(Error.prototype)];
                try { await window.webkit.messageHandlers.fail.postMessage({}); } catch (e) {
                  seen.push(e instanceof Error, e.name, e.message, e.code, e.retryable, e.data && e.data.toString);
                }
                try { await window.webkit.messageHandlers.fail.postMessage(() => 1); } catch (e) { seen.push(e.name); }
                return seen;
                """)
            #expect(seen == [true, true, "SessionError", "no", "refused", false, "t", "DataCloneError"])
        }
    }

    /// A page that froze every intrinsic it could reach first (as a hardened page's lockdown
    /// does) sends and receives every kind of value as any page does.
    @Test(arguments: Engine.allCases)
    func aHardenedPageSendsAndReceivesEveryKindOfValue(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeLoginView(
                handler: ClosureMessageHandler { message in
                    ["echo": message.body, "list": [1, [2, "three"], ["valueOf": 4]], "bytes": .bytes([9, 8]), "none": .null]
                }, name: "echo")
            let seen = try await view.run(
                """
                const intrinsics = [Object, Array, Function, Promise, Error, TypeError, Uint8Array, ArrayBuffer, Map, Set, Symbol, String,
                  Number, Boolean, Date, RegExp, JSON, Reflect, Math, Object.getPrototypeOf(Uint8Array)];
                for (const intrinsic of intrinsics) { Object.freeze(intrinsic); if (intrinsic.prototype) Object.freeze(intrinsic.prototype); }
                const r = await window.webkit.messageHandlers.echo.postMessage({a: [1, {b: "c"}], bytes: new Uint8Array([5]), n: null});
                return [
                  Object.isFrozen(Array.prototype), r.echo.a[1].b, r.echo.bytes instanceof Uint8Array && r.echo.bytes[0], r.echo.n,
                  r.list[1][1], r.list[2].valueOf, Object.hasOwn(r.list[2], "valueOf"), Array.from(r.bytes).join(), r.none
                ];
                """)
            #expect(seen == [true, "c", 5, .null, "three", 4, true, "9,8", .null])
        }
    }

    /// Bytes a page sends reach the handler as bytes on both engines (on WebKit they arrived
    /// as arrays of numbers), from a typed array, a view of part of one, or an `ArrayBuffer`,
    /// and an echo gives the page `Uint8Array`s back.
    @Test(arguments: Engine.allCases)
    func bytesReachTheHandlerAsBytes(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let seen = Mutex<ScriptValue?>(nil)
            let view = try await harness.makeLoginView(
                handler: ClosureMessageHandler { message in
                    seen.withLock { $0 = message.body }
                    return message.body
                }, name: "echo")
            let echoed = try await view.run(
                """
                const marker = "\\u0001sessionbridge-bytes";
                const r = await window.webkit.messageHandlers.echo.postMessage(
                  {a: new Uint8Array([1, 2, 0, 255]), b: new ArrayBuffer(2), c: new Uint16Array([1, 256]).subarray(1), d: [new Uint8Array(0)],
                   e: {[marker]: 5}, f: {[marker]: "!!"}, g: new DataView(new Uint8Array([9, 8, 7]).buffer, 1)});
                return [r.a, r.b, r.c, r.d[0], r.g].map((x) => x instanceof Uint8Array ? Array.from(x).join(",") : "not bytes")
                  .concat([r.e[marker], r.f[marker]]);
                """)
            // WebKit keeps no key order in a body, as WKWebView does not.
            let body = try #require(seen.withLock { $0 })
            let expected: [(String, ScriptValue)] = [
                ("a", .bytes([1, 2, 0, 255])), ("b", .bytes([0, 0])), ("c", .bytes([0, 1])), ("d", .array([.bytes([])])),
                ("g", .bytes([8, 7])),
            ]
            for (key, bytes) in expected { #expect(body[key] == bytes, "\(key)") }
            // An object of the page's own that looks like bytes but is not crosses as it is.
            #expect(echoed == ["1,2,0,255", "0,0", "0,1", "", "8,7", 5, "!!"])
        }
    }
}
