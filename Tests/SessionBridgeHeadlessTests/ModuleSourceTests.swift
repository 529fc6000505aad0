import Foundation
import PropertyBased
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeHeadless

/// What a module's source imports and exports, and the body it becomes: only real top-level
/// declarations are read, whatever strings, comments, templates and regular expressions hold,
/// and every line stays where it was.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct ModuleSourceTests {
    static func request(_ specifier: String, _ type: String? = nil) -> ModuleSource.Request {
        ModuleSource.Request(specifier: specifier, type: type)
    }

    @Test func everyFormOfImportIsRead() throws {
        let module = try ModuleSource(
            """
            import "./side.js";
            import def from "./a.js";
            import * as ns from './a.js'
            import { a, b as c, "d e" as f, default as g, } from "./b.js";
            import h, { i } from "./c.js";
            import j, * as k from "./c.js";
            import data from "./data.json" with { type: "json" };
            import from from "./from.js";
            """)
        #expect(
            module.requests == [
                Self.request("./side.js"), Self.request("./a.js"), Self.request("./b.js"), Self.request("./c.js"),
                Self.request("./data.json", "json"), Self.request("./from.js"),
            ])
        let imports = module.imports.map { "\($0.local)=\($0.request.specifier)#\($0.name)" }
        #expect(
            imports == [
                "def=./a.js#default", "ns=./a.js#*", "a=./b.js#a", "c=./b.js#b", "f=./b.js#d e", "g=./b.js#default", "h=./c.js#default",
                "i=./c.js#i", "j=./c.js#default", "k=./c.js#*", "data=./data.json#default", "from=./from.js#default",
            ])
        // Every declaration is blanked, its line breaks kept.
        #expect(module.body.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        #expect(module.body.count { $0 == "\n" } == 7)
        #expect(module.localExports.isEmpty && module.awaitProbe == nil)
    }

    @Test func everyFormOfExportIsRead() throws {
        let module = try ModuleSource(
            """
            export const one = 1, two = [1, 2].map(x => x * 2), { three, four: [five, ...six] = [], seven = 7 } = obj;
            export let later
            export var v = "a,b"
            export function f() {}
            export async function g() {}
            export function* h() {}
            export class K extends Base {}
            export { one as uno, two as "dos" };
            export { x as y, default as z } from "./other.js";
            export * from "./all.js";
            export * as space from "./space.js";
            export default class extends Base { m() { return import.meta.url; } }
            """)
        #expect(
            module.localExports.map { "\($0.name)=\($0.local)" } == [
                "one=one", "two=two", "three=three", "five=five", "six=six", "seven=seven", "later=later", "v=v", "f=f", "g=g", "h=h",
                "K=K", "uno=one", "dos=two", "default=\(ModuleSource.defaultBinding)",
            ])
        #expect(
            module.indirectExports.map { "\($0.name)=\($0.request.specifier)#\($0.importName)" } == [
                "y=./other.js#x", "z=./other.js#default", "space=./space.js#*",
            ])
        #expect(module.starExports == [Self.request("./all.js")])
        let lines = module.body.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 12)
        #expect(lines[0].hasPrefix(" const one = 1"))
        #expect(lines[3] == " function f() {}")
        #expect(lines[7].trimmingCharacters(in: .whitespaces).isEmpty)
        // An anonymous default class is made as a member named `default`, its `import.meta` the module's.
        #expect(
            lines[11]
                == "const \(ModuleSource.defaultBinding) = ({ default: class extends Base { m() { return __sbModule.meta.url; } } }).default;"
        )
        #expect(module.bindings.hasPrefix(#""one": () => one, "two": () => two"#))
    }

    @Test func defaultExportsBindWhatTheyName() throws {
        let named = try ModuleSource("export default async function load() { await x; }\n")
        #expect(named.localExports.map(\.local) == ["load"])
        #expect(named.body.hasPrefix("async function load()"))
        let expression = try ModuleSource("export default {\n a: 1 }\n")
        #expect(expression.body.hasPrefix("const \(ModuleSource.defaultBinding) = {\n a: 1 }"))
        let anonymous = try ModuleSource("export default function () { return 1 }\n(0)")
        #expect(anonymous.body.hasPrefix("const \(ModuleSource.defaultBinding) = ({ default: function () { return 1 } }).default;\n(0)"))
    }

    /// Text that only looks like a declaration is left alone.
    @Test func declarationsInsideOtherTokensAreNotRead() throws {
        let source = """
            const s = "import x from 'nope'", t = 'export default 1';
            // import y from "comment";
            /* export { z } */
            const u = `import ${"w"} from ${`nested ${ { a: 'export const q = 1' }.a }`}`;
            const r = /import ["']x["'] from/g, d = a / b / c;
            if (ok) /export *from 'y'/.test(s);
            const o = { import: 1, export: 2, "import": 3 }, p = o.import + o?.export;
            class C { import(value) { return value } static export() {} }
            const line = "a\\
            import q from 'continued'";
            """
        let module = try ModuleSource(source)
        #expect(module.requests.isEmpty && module.imports.isEmpty && module.localExports.isEmpty)
        #expect(module.body == source)
    }

    @Test func dynamicImportsAndImportMetaAreTheModules() throws {
        let module = try ModuleSource(
            """
            const m = await import("./lazy.js"), url = import.meta.url;
            obj.import("x"); const n = { async import() {} };
            """)
        #expect(
            module.body == """
                const m = await __sbModule.import("./lazy.js"), url = __sbModule.meta.url;
                obj.import("x"); const n = { async import() {} };
                """)
        #expect(module.requests.isEmpty)
        // The probe doubles each `await`: a plain generator fails on a top-level one.
        #expect(module.awaitProbe?.hasPrefix("const m = await await __sbModule.import") == true)
    }

    @Test(arguments: [
        "import { a from './a.js'", "import x './a.js'", "export", "export default", "export { 'a' }", "const s = 'open",
        "const t = `open ${", "f(]", "/* open", "export async x",
    ])
    func malformedSourcesAreRefused(_ source: String) {
        #expect(throws: ModuleSource.SyntaxError.self) { try ModuleSource(source) }
    }

    /// Pieces of JavaScript that move the lexer between its states, to be strung together.
    static let pieces = [
        "import", "export", "default", "from", "as", "'m'", "\"m\"", "{", "}", "(", ")", "[", "]", ",", ";", "*", "x", "/", "`", "${",
        "=", "=>", "\n", " ", "function", "class", "async", "await", "const", "let", ".", "meta", "//", "/*", "*/", "\\", "with",
        "?.", "...", ":", "é", "\r", "#",
    ]

    /// Line breaks as JavaScript counts them: `\n`, `\r`, and `\r\n` as one.
    static func lineBreaks(_ text: String) -> Int {
        var count = 0
        var previous: Unicode.Scalar? = nil
        for scalar in text.unicodeScalars {
            if scalar == "\r" || (scalar == "\n" && previous != "\r") { count += 1 }
            previous = scalar
        }
        return count
    }

    /// Whatever the source holds, lexing it ends, never stops the process, and a body it gives
    /// keeps every line break.
    @Test func anyStringOfPiecesIsLexed() async {
        await propertyCheck(count: 3000, input: Gen.int(in: 0...(Self.pieces.count - 1)).array(of: 0...40)) { indices in
            let source = indices.map { Self.pieces[$0] }.joined()
            guard let module = try? ModuleSource(source) else { return }
            #expect(Self.lineBreaks(module.body) == Self.lineBreaks(source), "\(source.debugDescription)")
        }
    }

    /// A `\r` before a declaration that is blanked and a `\n` inside or after it stay two line
    /// breaks, not one `\r\n` (found by the check above: `"\rimport\n'm'"` lost a line).
    @Test(arguments: ["\rimport\n'm'", "\rimport 'm'\nx", "import 'm'\r\nx", "\r\nimport\r\n'm'\r\n", "x\rexport { y }\ny"])
    func separateLineBreaksAroundABlankedDeclarationStaySeparate(_ source: String) throws {
        let module = try ModuleSource(source)
        #expect(Self.lineBreaks(module.body) == Self.lineBreaks(source), "\(module.body.debugDescription)")
    }
}

/// Which names of a module's code are references to its imported bindings: those no scope
/// around them declares, as in minified bundles, where inner functions reuse the short names
/// of the module's imports.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct ImportReferencesTests {
    static func read(_ name: String) -> String { "(0, __sbImports.\(name))" }

    @Test func onlyUnshadowedNamesReadTheImportScope() throws {
        let module = try ModuleSource(
            """
            import { e, t as n } from "./vendor.js";
            const o = e.createContext(null);
            function s(e) { return e + n; }
            const a = e => e.id, i = (t, [n, { r = e }]) => t + n + r;
            function c() { var e = 1; { let n = 2; } return e + n; }
            class K extends e.Base { #e = e; n = 1; static e() { return n; } get n() { return this.#e; } }
            const x = function e() { return e; }, y = { e, n: n, [e]: 1, m(n) { return n; } };
            for (const e of [1]) o.push(e);
            for (let n = 0; n < 1; n++) { o.push(n); }
            try {} catch (e) { o.push(e); }
            label: for (;;) { break label; }
            const z = o ? e : n ?? e, w = `${e}`;
            """)
        #expect(!module.readsImportScope)
        let r = Self.read(_:)
        let lines = module.body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[1] == "const o = \(r("e")).createContext(null);")
        #expect(lines[2] == "function s(e) { return e + \(r("n")); }")
        #expect(lines[3] == "const a = e => e.id, i = (t, [n, { r = \(r("e")) }]) => t + n + r;")
        #expect(lines[4] == "function c() { var e = 1; { let n = 2; } return e + \(r("n")); }")
        #expect(
            lines[5]
                == "class K extends \(r("e")).Base { #e = \(r("e")); n = 1; static e() { return \(r("n")); } get n() { return this.#e; } }")
        #expect(lines[6] == "const x = function e() { return e; }, y = { e: \(r("e")), n: \(r("n")), [\(r("e"))]: 1, m(n) { return n; } };")
        #expect(lines[7] == "for (const e of [1]) o.push(e);")
        #expect(lines[8] == "for (let n = 0; n < 1; n++) { o.push(n); }")
        #expect(lines[9] == "try {} catch (e) { o.push(e); }")
        #expect(lines[10] == "label: for (;;) { break label; }")
        #expect(lines[11] == "const z = o ? \(r("e")) : \(r("n")) ?? \(r("e")), w = `${\(r("e"))}`;")
        // The body to fall back on, should this one not parse, reads its imports by name.
        #expect(module.scopedBody?.contains("const o = e.createContext(null);") == true)
    }

    /// A module-level declaration of the name shadows nothing it imports (that is an error of
    /// the module's), but a block's does, and so does a function declaration's in its block.
    @Test func blockDeclarationsShadowOnlyTheirBlock() throws {
        let module = try ModuleSource(
            """
            import e from "./a.js";
            if (1) { function e() {} e(); }
            e();
            """)
        let lines = module.body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[1] == "if (1) { function e() {} e(); }")
        #expect(lines[2] == "\(Self.read("e"))();")
    }

    /// An object literal's members are keys and methods whatever their names, keywords included.
    @Test func objectMembersNamedLikeKeywordsAreKeysAndMethods() throws {
        let module = try ModuleSource(
            """
            import e from "./a.js";
            const o = { class: e, default: /e/, delete(e) { return e; }, get e() { return e; }, async *for(e) { yield e; } };
            """)
        #expect(!module.readsImportScope)
        let r = Self.read(_:)
        #expect(
            module.body.split(separator: "\n").last
                == "const o = { class: \(r("e")), default: /e/, delete(e) { return e; }, get e() { return \(r("e")); }, async *for(e) { yield e; } };"
        )
    }

    /// The project's own preludes (thousands of lines of real JavaScript), read as modules whose
    /// globals are imports: the analysis is sure of them, and the rewritten bodies parse.
    @Test(arguments: [
        ("document", DocumentPrelude.source), ("platform", WebPlatformPrelude.source), ("modules", ModuleLinkerPrelude.source),
    ])
    func realCodeIsRewrittenSoThatItParses(_ name: String, _ source: String) async throws {
        let globals = [
            "Object", "Array", "Map", "Set", "Promise", "Symbol", "TypeError", "Error", "JSON", "String", "Number", "Math", "Reflect",
        ]
        let module = try ModuleSource("import { \(globals.joined(separator: ", ")) } from './globals.js';\nexport default \(source);\n")
        #expect(!module.readsImportScope, "\(name)")
        #expect(module.body.components(separatedBy: "__sbImports.").count > 10, "\(name)")
        let context = await ScriptContext(thread: EngineThread(name: "module-rewrite"))
        #expect(await Self.parses("return function* () { \"use strict\"; yield; " + module.body + "\n}", in: context), "\(name)")
        await context.close()
    }

    static func parses(_ body: String, in context: isolated ScriptContext) -> Bool {
        var exception: RawValue? = nil
        return unsafe context.compileFunction(
            parameters: ["__sbImports", "__sbModule"], body: body, sourceURL: "rewrite.js", startingLine: 1, exception: &exception) != nil
    }

    /// Where it cannot be sure, the module reads its imports through a `with` scope.
    @Test(arguments: ["import e from './a.js'; eval('e');", "import e from './a.js'; for (const e of []) do e(); while (0);"])
    func anUnsureAnalysisKeepsTheImportScope(_ source: String) throws {
        let module = try ModuleSource(source)
        #expect(module.readsImportScope)
        #expect(module.scopedBody == nil)
        #expect(!module.body.contains("__sbImports"))
    }
}

/// How a document's import map resolves specifiers, as HTML resolves them.
@Suite(.timeLimit(.minutes(1))) struct ImportMapTests {
    @Test func specifiersResolveAsHTMLResolvesThem() throws {
        let base = URL(string: "https://app.example/pages/index.html")!
        var map = try ImportMap(
            json: """
                {"imports": {"lib": "/vendor/lib.js", "pkg/": "../packages/", "/old.js": "/new.js", "bad": 42, "nodir/": "/x.js"},
                 "scopes": {"/admin/": {"lib": "/admin/lib.js"}}}
                """, base: base)
        func resolve(_ specifier: String, from referrer: String = "https://app.example/pages/app.js") -> String? {
            map.resolve(specifier, base: URL(string: referrer)!)?.absoluteString
        }
        #expect(resolve("lib") == "https://app.example/vendor/lib.js")
        #expect(resolve("pkg/a/b.js") == "https://app.example/packages/a/b.js")
        #expect(resolve("./old.js", from: "https://app.example/app.js") == "https://app.example/new.js")
        #expect(resolve("./c.js") == "https://app.example/pages/c.js")
        #expect(resolve("https://cdn.example/d.js") == "https://cdn.example/d.js")
        #expect(resolve("lib", from: "https://app.example/admin/panel.js") == "https://app.example/admin/lib.js")
        // A bare specifier the map does not have, one whose entry is no URL, and a prefix
        // entry whose address is no folder resolve to nothing.
        #expect(resolve("lodash") == nil)
        #expect(resolve("bad") == nil)
        #expect(resolve("nodir/x") == nil)
        // A later map adds what the earlier one does not have, and changes nothing it has.
        map.merge(try ImportMap(json: #"{"imports": {"lib": "/other.js", "more": "/more.js"}}"#, base: base))
        #expect(resolve("lib") == "https://app.example/vendor/lib.js")
        #expect(resolve("more") == "https://app.example/more.js")
        #expect(throws: ImportMap.InvalidImportMap.self) { try ImportMap(json: "[1]", base: base) }
    }
}

/// Module sources are lexed once per process: a page loaded again takes its modules' bodies
/// from the cache; a source that cannot be lexed is not kept.
@Suite(.timeLimit(.minutes(1))) struct ModuleSourceCacheTests {
    @Test func aSourceIsLexedOncePerProcess() throws {
        let text = "import { a } from './a.js';\nexport const b = a + \(UInt64.random(in: 0...UInt64.max));\n"
        #expect(!ModuleSourceCache.contains(text))
        let first = try ModuleSourceCache.source(for: text)
        #expect(ModuleSourceCache.contains(text))
        let again = try ModuleSourceCache.source(for: text)
        #expect(again.body == first.body && again.bindings == first.bindings && again.imports == first.imports)
        let broken = "export const open = `\(UInt64.random(in: 0...UInt64.max))"
        #expect(throws: ModuleSource.SyntaxError.self) { try ModuleSourceCache.source(for: broken) }
        #expect(!ModuleSourceCache.contains(broken))
    }
}
