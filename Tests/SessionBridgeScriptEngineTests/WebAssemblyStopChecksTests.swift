import Foundation
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeScriptEngine

/// A page's WebAssembly meets the time limit: JavaScriptCore 2.50 looks for a stop in it only
/// when it calls out, so a loop or a recursion that calls nothing held its engine thread for
/// good (a probe's `(loop (br 0))` past 30 s). Modules are compiled with checks that call out
/// (``WebAssemblyStopChecks``); what the page sees of its modules is what it wrote.
@Suite(.timeLimit(.minutes(3)), .hangWatchdog) struct WebAssemblyStopChecksTests {
    // MARK: Modules

    static let header: [UInt8] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]

    static func leb(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLEB(UInt32(value))
        return bytes
    }

    static func name(_ text: String) -> [UInt8] { leb(text.utf8.count) + Array(text.utf8) }

    /// A section: its id, its size, and a vector of `entries` (or `raw` contents).
    static func section(_ id: UInt8, _ entries: [[UInt8]]) -> [UInt8] {
        raw(id, leb(entries.count) + entries.flatMap { $0 })
    }

    static func raw(_ id: UInt8, _ contents: [UInt8]) -> [UInt8] { [id] + leb(contents.count) + contents }

    /// A function body: no locals but `locals`, then `code` and `end`.
    static func body(_ code: [UInt8], locals: [UInt8] = [0]) -> [UInt8] {
        let contents = locals + code + [0x0b]
        return leb(contents.count) + contents
    }

    static func javaScript(_ bytes: [UInt8]) -> String {
        "new Uint8Array([\(bytes.map(String.init).joined(separator: ","))])"
    }

    /// `spin()`: `(loop (br 0))`, which calls nothing.
    static let spin =
        header + section(1, [[0x60, 0, 0]]) + section(3, [[0]]) + section(7, [name("spin") + [0, 0]])
        + section(10, [body([0x03, 0x40, 0x0c, 0x00, 0x0b])])

    /// `split(n)`: calls itself twice with `n - 1` while `n` is not 0: 2^n calls, no loop, a
    /// stack only `n` deep.
    static let split =
        header + section(1, [[0x60, 1, 0x7f, 0]]) + section(3, [[0]]) + section(7, [name("split") + [0, 0]])
        + section(10, [body([0x20, 0, 0x04, 0x40, 0x20, 0, 0x41, 1, 0x6b, 0x10, 0, 0x20, 0, 0x41, 1, 0x6b, 0x10, 0, 0x0b])])

    /// `turn()`: a tail call to itself, forever, in constant stack.
    static let turn =
        header + section(1, [[0x60, 0, 0]]) + section(3, [[0]]) + section(7, [name("turn") + [0, 0]])
        + section(10, [body([0x12, 0])])

    /// `retry()`: the loop inside a `try_table` whose `catch_all` goes round again: what the
    /// stop throws through the module must not be caught there.
    static let retry =
        header + section(1, [[0x60, 0, 0]]) + section(3, [[0]]) + section(7, [name("retry") + [0, 0]])
        + section(10, [body([0x03, 0x40, 0x1f, 0x40, 1, 2, 0, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b, 0x0b])])

    /// A module that names its functions everywhere a module can:
    /// - imports `env.add` (function 0) and `env.base` (a global);
    /// - `twice(x)` (function 1) calls `add(x, x)`;
    /// - `sum(n)` (function 2) adds 1 to 0 `n` times in a loop, calling `twice` through the table
    ///   at the end: `2n`;
    /// - `pick(i)` (function 3) calls the table's entry `i`; the table holds `twice` and `sum`
    ///   (an active segment of function indices) and `boom` (a segment of expressions);
    /// - `boom()` (function 4) traps;
    /// - `start` (function 5) stores `base + 1` in global 1;
    /// - global 2 holds `ref.func twice`; `viaRef(x)` (function 6) calls it with `call_ref`;
    /// - the name section names functions 1, 4 and 6.
    static let named: [UInt8] = {
        let types = section(1, [[0x60, 2, 0x7f, 0x7f, 1, 0x7f], [0x60, 1, 0x7f, 1, 0x7f], [0x60, 0, 0], [0x60, 0, 1, 0x7f]])
        let imports = section(2, [name("env") + name("add") + [0, 0], name("env") + name("base") + [3, 0x7f, 0]])
        let functions = section(3, [[1], [1], [1], [2], [2], [1]])
        let table = section(4, [[0x70, 0, 3]])
        let globals = section(
            6,
            [
                [0x7f, 1, 0x41, 0, 0x0b],  // global 1: set by start
                [0x64, 0x01, 0, 0xd2, 1, 0x0b],  // global 2: (ref $type1) = ref.func twice
            ])
        let exports = section(
            7,
            [
                name("twice") + [0, 1], name("sum") + [0, 2], name("pick") + [0, 3], name("boom") + [0, 4],
                name("started") + [3, 1], name("viaRef") + [0, 6],
            ])
        let start = raw(8, [5])
        let elements = section(
            9,
            [
                [0, 0x41, 0, 0x0b, 2, 1, 2],  // active, table 0 at 0: twice, sum
                [4, 0x41, 2, 0x0b, 1, 0xd2, 4, 0x0b],  // active, expressions, at 2: boom
            ])
        let twice = body([0x20, 0, 0x20, 0, 0x10, 0])
        // (local i32 acc) (loop: acc += 1; n -= 1; br_if n) (twice(acc) through the table, entry 0)
        let sum = body(
            [
                0x03, 0x40, 0x20, 1, 0x41, 1, 0x6a, 0x21, 1, 0x20, 0, 0x41, 1, 0x6b, 0x22, 0, 0x0d, 0, 0x0b,
                0x20, 1, 0x41, 0, 0x11, 1, 0,
            ], locals: [1, 1, 0x7f])
        let pick = body([0x41, 21, 0x20, 0, 0x11, 1, 0])
        let boom = body([0x00])
        let startBody = body([0x23, 0, 0x41, 1, 0x6a, 0x24, 1])
        let viaRef = body([0x20, 0, 0x23, 2, 0x14, 1])
        let code = section(10, [twice, sum, pick, boom, startBody, viaRef])
        let names = raw(
            0,
            name("name")
                + raw(1, leb(3) + [1] + name("twice") + [4] + name("boom") + [6] + name("viaRef")))
        return header + types + imports + functions + table + globals + exports + start + elements + code + names
    }()

    /// A module of `CompiledModule/` (see its README).
    static func compiled(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "wasm", subdirectory: "CompiledModule"))
        return try [UInt8](Data(contentsOf: url))
    }

    static func context(limit: Duration = .seconds(30)) async -> ScriptContext {
        await ScriptContext(thread: EngineThread(name: "sb-wasm-checks"), configuration: .init(timeLimit: limit))
    }

    // MARK: The time limit

    /// The ways a module could run without calling out, each ended by a 200 ms limit, the
    /// context usable afterwards. Without the checks the first held the thread for good. The
    /// page's `catch` around the call may see the stop (JavaScriptCore's termination is
    /// catchable once it has crossed WebAssembly's frames), and the entry ends stopped all the same.
    @Test(arguments: ["spin", "split", "turn", "retry"]) func codeThatCallsNothingMeetsTheTimeLimit(_ name: String) async throws {
        let modules = [
            "spin": (Self.spin, "spin()"), "split": (Self.split, "split(62)"), "turn": (Self.turn, "turn()"),
            "retry": (Self.retry, "retry()"),
        ]
        let (bytes, call) = try #require(modules[name])
        let context = await Self.context(limit: .milliseconds(200))
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try await context.run(
                """
                const instance = new WebAssembly.Instance(new WebAssembly.Module(\(Self.javaScript(bytes))));
                try { instance.exports.\(call); } catch (error) { globalThis.caught = String(error); }
                globalThis.after = true;
                """)
            Issue.record("expected the time limit")
        } catch {
            #expect(error.kind == .timeLimitExceeded)
        }
        #expect(clock.now - start < .seconds(120), "the code must end; the bound is generous for a busy machine")
        #expect(try await context.evaluate("6 * 7") == .number(42))
        await context.close()
    }

    /// A function the app calls (``ScriptContext/call(_:_:)``) that catches the stop of its
    /// module's loop and returns: the call ends stopped all the same, as an evaluation does.
    @Test func aCallWhoseFunctionCaughtTheStopEndsStopped() async throws {
        let context = await Self.context(limit: .milliseconds(200))
        try await context.run(
            """
            const instance = new WebAssembly.Instance(new WebAssembly.Module(\(Self.javaScript(Self.spin))));
            globalThis.run = () => { try { instance.exports.spin(); } catch (error) { globalThis.caught = String(error); } return 1; };
            """)
        let error = await #expect(throws: ScriptError.self) { try await context.call("run") }
        #expect(error?.kind == .timeLimitExceeded)
        #expect(try await context.evaluate("6 * 7") == .number(42))
        await context.close()
    }

    /// The same loop run where the page's `instantiate` settles: in JavaScriptCore's deferred
    /// work, which the engine thread runs between jobs. The stop ends it there, is reported to
    /// the page whose checks met it (no caller would hear of it), and the thread goes on;
    /// without the checks the thread never came back.
    @Test func aLoopRunWhereACompilationSettlesMeetsTheTimeLimit() async throws {
        let context = await Self.context(limit: .milliseconds(200))
        try await context.run(
            """
            WebAssembly.instantiate(\(Self.javaScript(Self.spin))).then(made => { globalThis.spinning = true; made.instance.exports.spin(); });
            """)
        #expect(await context.runUntilQuiescent(timeout: .seconds(60)))
        #expect(try await context.evaluate("[globalThis.spinning, 6 * 7].join()") == .string("true,42"))
        let events = await context.recentEvents
        let stops = events.count { event in
            if case .uncaughtError(let error) = event { return error.kind == .timeLimitExceeded }
            return false
        }
        #expect(stops == 1, "\(events)")
        await context.close()
    }

    // MARK: What the page sees

    /// Every place that names a function still names the same one: calls, the table's segments,
    /// exports, the start function, `ref.func` in a global, the name section.
    @Test func aModuleWorksAsWritten() async throws {
        let context = await Self.context()
        let answer = try await context.evaluate(
            """
            const bytes = \(Self.javaScript(Self.named));
            const listed = list => JSON.stringify(list.map(({ module, name, kind }) => ({ module, name, kind })));
            const imports = { env: { add: (a, b) => a + b, base: 41 } };
            const module = new WebAssembly.Module(bytes);
            const instance = new WebAssembly.Instance(module, imports);
            const e = instance.exports;
            let trap;
            try { e.boom(); } catch (error) { trap = String(error.stack).includes("boom"); }
            [e.twice(5), e.sum(10), e.pick(0), e.pick(1), e.started.value, e.viaRef(7), trap,
             listed(WebAssembly.Module.imports(module)),
             WebAssembly.Module.exports(module).map(x => x.name + ":" + x.kind).join(" ")].join(" | ")
            """)
        #expect(
            answer
                == .string(
                    "10 | 20 | 42 | 42 | 42 | 14 | true | "
                        + #"[{"module":"env","name":"add","kind":"function"},{"module":"env","name":"base","kind":"global"}] | "#
                        + "twice:function sum:function pick:function boom:function started:global viaRef:function"))
        await context.close()
    }

    /// A module clang compiled from ordinary C (`CompiledModule/`: SIMD, bulk memory, tail
    /// calls, a jump table, calls through function pointers, a name section) gives what the same
    /// C gives natively, and its endless loop meets the time limit.
    @Test func aCompiledModuleGivesWhatItsCodeGivesNatively() async throws {
        let bytes = try Self.compiled("module")
        #expect(WebAssemblyStopChecks.instrument(bytes) != nil)
        // The work runs under the default limit: the entry's time is the clock's, and a loaded
        // machine gave it more than a second. The endless loop meets a 1 s limit of its own.
        let context = await Self.context()
        let spinning = await Self.context(limit: .seconds(1))
        let instantiate = "globalThis.compiled = new WebAssembly.Instance(new WebAssembly.Module(\(Self.javaScript(bytes)))).exports;"
        try await context.run(instantiate)
        try await spinning.run(instantiate)
        let answer = try await context.evaluate(
            """
            const e = compiled;
            [e.sha256(60000) >>> 0, e.ackermann(2, 300), e.interpret(100000), e.vectors(50) >>> 0, e.floats(100000)].join(" ")
            """)
        #expect(answer == .string("997861612 603 713916624 141326336 472.22246516961445"))
        let error = await #expect(throws: ScriptError.self) { try await spinning.run("compiled.spin()") }
        #expect(error?.kind == .timeLimitExceeded)
        await context.close()
        await spinning.close()
    }

    /// A module using the proposals C does not reach (`CompiledModule/proposals.wat`: garbage
    /// collection, exceptions, typed function references, tail calls, multiple values) gives
    /// what its functions give by their definitions, and its endless loop meets the time limit.
    @Test func aModuleOfTheProposalsGivesWhatItsDefinitionsGive() async throws {
        let bytes = try Self.compiled("proposals")
        #expect(WebAssemblyStopChecks.instrument(bytes) != nil)
        let context = await Self.context()
        let spinning = await Self.context(limit: .seconds(1))
        let instantiate = """
            globalThis.logged = [];
            globalThis.proposals = new WebAssembly.Instance(new WebAssembly.Module(\(Self.javaScript(bytes))),
              { env: { log: value => logged.push(value) } }).exports;
            """
        try await context.run(instantiate)
        try await spinning.run(instantiate)
        let answer = try await context.evaluate(
            """
            const e = proposals;
            [e.gc(5), e.eh(3), e.eh(42), e.misc(4), e.misc(5), logged.join(" ")].join(" ")
            """)
        // gc(5): x 3 + 5, [2, 2, 2, 2, 2] plus each index summed (20), an i31 of 7; eh: the
        // thrown value above 10; misc: the table's, call_ref's and br_table's sums, the memory
        // copied and filled, and 1 + ... + 100000 (mod 2^32) by a tail-call loop.
        #expect(answer == .string("35 0 42 772392233 772392065 67309529 67309361"))
        let error = await #expect(throws: ScriptError.self) { try await spinning.run("proposals.spin()") }
        #expect(error?.kind == .timeLimitExceeded)
        await context.close()
        await spinning.close()
    }

    /// Instances made every way get the checks' import with the page's: no imports object for
    /// a module that needs none, the page's object (its own properties, its getters, its
    /// prototype's), and the errors a module that lacks its imports gave before.
    @Test func instancesGetTheirImportsAsBefore() async throws {
        let context = await Self.context()
        let answer = try await context.evaluate(
            """
            const spin = \(Self.javaScript(Self.spin)), named = \(Self.javaScript(Self.named));
            const outcome = make => { try { make(); return "made"; } catch (error) { return error.name; } };
            const env = { add: (a, b) => a * b, base: 1 };
            const inherited = Object.create({ env });
            const viaGetter = { get env() { return env; } };
            [outcome(() => new WebAssembly.Instance(new WebAssembly.Module(spin))),
             outcome(() => new WebAssembly.Instance(new WebAssembly.Module(spin), {})),
             new WebAssembly.Instance(new WebAssembly.Module(named), inherited).exports.twice(3),
             new WebAssembly.Instance(new WebAssembly.Module(named), viaGetter).exports.twice(4),
             outcome(() => new WebAssembly.Instance(new WebAssembly.Module(named))),
             outcome(() => new WebAssembly.Instance(new WebAssembly.Module(named), 5)),
             outcome(() => new WebAssembly.Instance(new WebAssembly.Module(named), { env: {} }))].join()
            """)
        #expect(answer == .string("made,made,9,16,TypeError,TypeError,LinkError"))
        let asynchronous = try await context.evaluateAsync(
            """
            Promise.all([
              WebAssembly.instantiate(\(Self.javaScript(Self.spin))).then(made => typeof made.instance.exports.spin),
              WebAssembly.compile(\(Self.javaScript(Self.named)))
                .then(module => WebAssembly.instantiate(module, { env: { add: (a, b) => a - b, base: 0 } }))
                .then(instance => instance.exports.twice(9)),
              WebAssembly.instantiate(\(Self.javaScript(Self.named))).then(() => "made", error => error.name),
            ]).then(all => all.join())
            """, timeout: .seconds(30))
        #expect(asynchronous == .string("function,0,TypeError"))
        await context.close()
    }

    /// A page that prepared the checks' import name itself, on its imports or on
    /// `Object.prototype`, before it first read `WebAssembly`, still gets the context's.
    @Test func aPageCannotSupplyTheChecksImport() async throws {
        let context = await Self.context(limit: .milliseconds(200))
        let name = WebAssemblyStopChecks.importModule
        do {
            try await context.run(
                """
                const harmless = { \(WebAssemblyStopChecks.importName)() {} };
                Object.defineProperty(Object.prototype, "\(name)", { get() { return harmless; }, configurable: true });
                const bytes = \(Self.javaScript(Self.spin));
                new WebAssembly.Instance(new WebAssembly.Module(bytes), { "\(name)": harmless }).exports.spin();
                """)
            Issue.record("expected the time limit")
        } catch {
            #expect(error.kind == .timeLimitExceeded)
        }
        await context.close()
    }

    @Test func validateAnswersAsCompilationDoes() async throws {
        let context = await Self.context()
        let answer = try await context.evaluate(
            """
            [WebAssembly.validate(\(Self.javaScript(Self.named))), WebAssembly.validate(\(Self.javaScript(Self.spin)).buffer),
             WebAssembly.validate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 10, 1])),
             WebAssembly.validate(new Uint8Array([1, 2, 3]))].join()
            """)
        #expect(answer == .string("true,true,false,false"))
        await context.close()
    }

    // MARK: The rewrite

    /// A module without types, imports or globals gets each section in its place.
    @Test func sectionsTheRewriteNeedsAreMadeInOrder() throws {
        let empty = Self.header + Self.section(3, []) + Self.section(10, [])
        let rewritten = try #require(WebAssemblyStopChecks.instrument(empty))
        var ids: [UInt8] = []
        var at = 8
        while at < rewritten.count {
            ids.append(rewritten[at])
            var size = 0
            var shift = 0
            at += 1
            while true {
                let byte = rewritten[at]
                at += 1
                size |= Int(byte & 0x7f) << shift
                shift += 7
                if byte & 0x80 == 0 { break }
            }
            at += size
        }
        #expect(ids == [1, 2, 3, 6, 10])
    }

    /// Modules changed at random (bytes flipped, dropped, repeated) give no module or one this
    /// reader reads again: never a crash. 10,000 changes of each module here, the same each run.
    @Test func changedModulesGiveNoModuleOrOneThatReadsAgain() throws {
        let seeds = [Self.spin, Self.split, Self.turn, Self.retry, Self.named, try Self.compiled("module"), try Self.compiled("proposals")]
        var random = SplitMix(seed: 0x5eed)
        var rewritten = 0
        for seed in seeds {
            for _ in 0..<10_000 {
                var bytes = seed
                for _ in 0...(random.next() % 4) {
                    let at = 8 + Int(random.next() % UInt64(bytes.count - 8))
                    switch random.next() % 4 {
                    case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
                    case 1: bytes[at] ^= 1 << UInt8(random.next() % 8)
                    case 2: if bytes.count > 9 { bytes.remove(at: at) }
                    default: bytes.insert(bytes[at], at: at)
                    }
                }
                guard let once = WebAssemblyStopChecks.instrument(bytes) else { continue }
                rewritten += 1
                #expect(WebAssemblyStopChecks.instrument(once) != nil, "\(bytes)")
            }
        }
        #expect(rewritten > 1_000)
    }

    /// SplitMix64: a small generator whose sequence is the same on every run.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
    }

    /// Bytes the reader does not know, or that end early, give no module: never a crash, never
    /// a read past the bytes.
    @Test func bytesItCannotReadGiveNoModule() {
        let unknownOpcode = Self.header + Self.section(1, [[0x60, 0, 0]]) + Self.section(3, [[0]]) + Self.section(10, [Self.body([0xff])])
        #expect(WebAssemblyStopChecks.instrument(unknownOpcode) == nil)
        let hugeIndex =
            Self.header + Self.section(1, [[0x60, 0, 0]]) + Self.section(3, [[0]])
            + Self.section(10, [Self.body([0x10, 0xff, 0xff, 0xff, 0xff, 0x0f])])
        #expect(WebAssemblyStopChecks.instrument(hugeIndex) == nil)
        #expect(WebAssemblyStopChecks.instrument([1, 2, 3]) == nil)
        for length in 8..<Self.named.count {
            _ = WebAssemblyStopChecks.instrument(Array(Self.named.prefix(length)))
        }
        #expect(WebAssemblyStopChecks.instrument(Self.named) != nil)
    }
}
