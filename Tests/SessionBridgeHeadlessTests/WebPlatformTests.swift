import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridgeHeadless

/// The global scope's members besides the document (`WebPlatformPrelude`): what a page's own
/// session code uses to read a JWT's claims, make a PKCE verifier or a request id, build a form
/// body or time a call.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct WebPlatformTests {
    static func page() async throws -> WebPage {
        let page = WebPage()
        try await page.loadHTMLString("<p>platform</p>", baseURL: URL(string: "https://app.example/")!)
        return page
    }

    /// The same bytes each run: a failure names inputs that reproduce it.
    struct SeededBytes {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        /// Bytes biased to the ones UTF-8 decoding cares about (lead and continuation bytes).
        mutating func bytes(count: Int) -> [UInt8] {
            (0..<count).map { _ in
                let word = next()
                switch word % 4 {
                case 0: return UInt8(truncatingIfNeeded: word >> 8) & 0x7F
                case 1: return 0x80 | UInt8(truncatingIfNeeded: word >> 8) & 0x3F
                default: return UInt8(truncatingIfNeeded: word >> 8)
                }
            }
        }
    }

    /// `text` as a JavaScript string literal.
    static func json(_ text: String) -> String {
        // Encoding a string cannot fail.
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data(), as: UTF8.self)
    }

    static func literal(_ bytes: [UInt8]) -> String { "[" + bytes.map(String.init).joined(separator: ",") + "]" }

    @Test func base64IsForgivingAndBinaryStringsAreBytes() async throws {
        let page = try await Self.page()
        var random = SeededBytes(state: 0x5E55_10B1)
        for count in [0, 1, 2, 3, 4, 5, 31, 32, 33, 300] {
            let bytes = random.bytes(count: count)
            let expected = Data(bytes).base64EncodedString()
            let encoded = try await page.evaluateJavaScript("btoa(String.fromCharCode(...\(Self.literal(bytes))))")
            #expect(encoded == .string(expected), "bytes \(bytes)")
            let decoded = try await page.evaluateJavaScript("Array.from(atob('\(expected)'), c => c.charCodeAt(0))")
            #expect(decoded == .array(bytes.map { .number(Double($0)) }), "bytes \(bytes)")
        }
        // A JWT's payload: base64url, unpadded, as pages read it.
        let claims = try await page.evaluateJavaScript(
            """
            const part = btoa(JSON.stringify({sub: "demo", exp: 1700000000})).replace(/=+$/, "").replace(/\\+/g, "-").replace(/\\//g, "_");
            JSON.parse(atob(part.replace(/-/g, "+").replace(/_/g, "/"))).sub
            """)
        #expect(claims == "demo")
        #expect(
            try await page.evaluateJavaScript("[atob(' aG Vs\\nbG8= '), atob('aGVsbG8'), atob('/w'), atob(''), btoa('')]") == [
                "hello", "hello", "\u{FF}", "", "",
            ])
        let refused = try await page.evaluateJavaScript(
            """
            ["a", "aGVsbG8===", "a=b=", "aGVsbG8*", "€"].map(input => {
              try { atob(input); return "decoded " + input; } catch (error) { return [error.name, error.code, error instanceof DOMException, error instanceof Error].join(); }
            }).concat([(() => { try { btoa("€"); return "encoded"; } catch (error) { return error.name; } })()])
            """)
        let invalid = ScriptValue.string("InvalidCharacterError,5,true,true")
        #expect(refused == [invalid, invalid, invalid, invalid, invalid, "InvalidCharacterError"])
        await page.close()
    }

    @Test func textIsEncodedAndDecodedAsTheEncodingStandardHasIt() async throws {
        let page = try await Self.page()
        for text in ["", "plain", "héllo", "€ and 😀", "\u{FEFF}bom", "\u{10FFFF}"] {
            let json = String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
            let encoded = try await page.evaluateJavaScript("Array.from(new TextEncoder().encode(\(json)))")
            #expect(encoded == .array(Array(text.utf8).map { .number(Double($0)) }), "\(text)")
        }
        // A lone surrogate is U+FFFD's bytes; encodeInto stops before a character that does not fit.
        #expect(try await page.evaluateJavaScript("Array.from(new TextEncoder().encode('a\\uD800b'))") == [97, 239, 191, 189, 98])
        #expect(
            try await page.evaluateJavaScript(
                "const into = new Uint8Array(5); const r = new TextEncoder().encodeInto('ab€c', into); [r.read, r.written, ...into]")
                == [3, 5, 97, 98, 226, 130, 172])
        // Decoding replaces each maximal invalid subpart with U+FFFD, as Swift's repairing decoder does.
        var random = SeededBytes(state: 0xDEC0_DE01)
        for round in 0..<60 {
            let bytes = random.bytes(count: round % 17)
            let decoded = try await page.evaluateJavaScript(
                "new TextDecoder('utf-8', {ignoreBOM: true}).decode(new Uint8Array(\(Self.literal(bytes))))")
            #expect(decoded == .string(String(decoding: bytes, as: UTF8.self)), "bytes \(bytes)")
            // Streamed a byte at a time, the same text.
            let streamed = try await page.evaluateJavaScript(
                """
                { const decoder = new TextDecoder('utf-8', {ignoreBOM: true});
                  \(Self.literal(bytes)).map(byte => decoder.decode(new Uint8Array([byte]), {stream: true})).join("") + decoder.decode() }
                """)
            #expect(streamed == decoded, "bytes \(bytes)")
        }
        let edges = try await page.evaluateJavaScript(
            """
            [new TextDecoder().decode(new Uint8Array([0xEF, 0xBB, 0xBF, 0x61])),
             new TextDecoder("utf-8", {ignoreBOM: true}).decode(new Uint8Array([0xEF, 0xBB, 0xBF, 0x61])).length,
             new TextDecoder(" UTF8 ").encoding,
             (() => { try { new TextDecoder("utf-8", {fatal: true}).decode(new Uint8Array([0x61, 0xC3])); return "decoded"; } catch (error) { return error.name; } })(),
             (() => { try { new TextDecoder("iso-8859-2"); return "made"; } catch (error) { return error.name; } })()]
            """)
        #expect(edges == ["a", 2, "utf-8", "TypeError", "RangeError"])
        await page.close()
    }

    @Test func urlSearchParamsParsesAndSerializesFormText() async throws {
        let page = try await Self.page()
        let parsed = try await page.evaluateJavaScript(
            """
            const params = new URLSearchParams("?a=1&b=x+y&a=%E2%82%AC&c&=e&&d=%zz");
            [params.get("a"), params.getAll("a").join("|"), params.get("b"), params.get("c"), params.get(""), params.get("d"), params.get("none"), params.size]
            """)
        #expect(parsed == ["1", "1|€", "x y", "", "e", "%zz", .null, 6])
        let edited = try await page.evaluateJavaScript(
            """
            const form = new URLSearchParams({grant_type: "refresh_token", scope: "openid profile"});
            form.append("redirect_uri", "https://app.example/cb?x=1&y=2");
            form.append("é", "*-._~!");
            form.set("scope", "openid");
            form.delete("missing");
            const sorted = new URLSearchParams([["b", "2"], ["a", "2"], ["b", "1"], ["a", "1"]]);
            sorted.sort();
            [form.toString(), String(sorted), [...sorted.keys()].join(), form.has("scope", "openid"), form.has("scope", "profile")]
            """)
        #expect(
            edited == [
                "grant_type=refresh_token&scope=openid&redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Fx%3D1%26y%3D2&%C3%A9=*-._%7E%21",
                "a=2&a=1&b=2&b=1", "a,a,b,b", true, false,
            ])
        await page.close()
    }

    /// Inputs, bases and what the URL Standard makes of them (its web-platform-tests' kinds of
    /// case); `nil`: not a URL, `new URL` throws a `TypeError`.
    static let urlCases: [(input: String, base: String?, href: String?)] = [
        ("http://example.com/a/b/../c?x=1#y", nil, "http://example.com/a/c?x=1#y"),
        ("/api/me?x=a b", "https://app.example:443/dir/page.html", "https://app.example/api/me?x=a%20b"),
        ("../up", "https://app.example/a/b/c", "https://app.example/a/up"),
        ("//other.example/p", "https://app.example/", "https://other.example/p"),
        ("?q=1", "https://app.example/a/b?old#f", "https://app.example/a/b?q=1"),
        ("#frag", "https://app.example/a/b?old#f", "https://app.example/a/b?old#frag"),
        ("", "https://app.example/a/b?old#f", "https://app.example/a/b?old"),
        ("HTTP://User:Pa ss@EXAMPLE.com:80/%7Efoo/./bar", nil, "http://User:Pa%20ss@example.com/%7Efoo/bar"),
        ("http://[0:0::1]:8080/", nil, "http://[::1]:8080/"),
        ("http://[::ffff:192.168.0.1]/", nil, "http://[::ffff:c0a8:1]/"),
        ("http://0x7f.1/", nil, "http://127.0.0.1/"),
        ("http://München.de/", nil, "http://xn--mnchen-3ya.de/"),
        ("https://☕.example/", nil, "https://xn--53h.example/"),
        ("mailto:someone@example.com?subject=hi", nil, "mailto:someone@example.com?subject=hi"),
        ("file:///etc/hosts", nil, "file:///etc/hosts"),
        ("foo://host/path/../x", nil, "foo://host/x"),
        ("http:foo.html", "http://example.com/dir/", "http://example.com/dir/foo.html"),
        ("https:foo.html", "http://example.com/dir/", "https://foo.html/"),
        ("http://example.com/é?é#é", nil, "http://example.com/%C3%A9?%C3%A9#%C3%A9"),
        ("  http://example.com/\tx\n ", nil, "http://example.com/x"),
        ("http://a\\b\\c", nil, "http://a/b/c"),
        ("https://app.example/a/%2e%2E/b/./", nil, "https://app.example/b/"),
        ("http://Ｇｏ.com", nil, "http://go.com/"),
        ("http://GOO\u{200B}\u{2060}\u{FEFF}goo.com", nil, "http://googoo.com/"),
        ("http://０Ｘｃ０．０２５０．０１", nil, "http://192.168.0.1/"),
        ("http://host/a^b", nil, "http://host/a^b"),
        ("foo://a^b@host/", nil, "foo://a%5Eb@host/"),
        ("non-spec:/..//path", nil, "non-spec:/.//path"),
        ("https://%EF%BF%BD", nil, nil),
        ("http://％４１.com", nil, nil),
        ("http://a.b.c.xn--pokxncvks", nil, nil),
        ("http://192.168.0.257/", nil, nil),
        ("http://1.2.3.4.5/", nil, nil),
        ("http://ex ample.com/", nil, nil),
        ("http://example.com:99999/", nil, nil),
        ("https://", nil, nil),
        ("not a url", nil, nil),
        ("x", "mailto:someone@example.com", nil),
    ]

    @Test func urlParsesAsTheURLStandardHasIt() async throws {
        let page = try await Self.page()
        for (input, base, href) in Self.urlCases {
            let baseArgument = base.map { ", " + Self.json($0) } ?? ""
            let literal = Self.json(input)
            let seen = try await page.evaluateJavaScript(
                "(() => { try { return new URL(\(literal)\(baseArgument)).href; } catch (error) { return error.name; } })()")
            #expect(seen == .string(href ?? "TypeError"), "\(input) against \(base ?? "no base")")
            let parses = try await page.evaluateJavaScript("URL.canParse(\(literal)\(baseArgument))")
            #expect(parses == .bool(href != nil), "\(input)")
        }
        let parts = try await page.evaluateJavaScript(
            """
            { const url = new URL("https://user:pw@App.Example:8443/p/a?q=1&r=2#h");
              [url.protocol, url.username, url.password, url.host, url.hostname, url.port, url.pathname, url.search, url.hash,
               url.origin, new URL("non-spec:/..//path").pathname, new URL("blob:https://app.example/id").origin, new URL("data:,x").origin, JSON.stringify({url}), String(url) === url.href] }
            """)
        #expect(
            parts == [
                "https:", "user", "pw", "app.example:8443", "app.example", "8443", "/p/a", "?q=1&r=2", "#h",
                "https://app.example:8443", "//path", "https://app.example", "null",
                "{\"url\":\"https://user:pw@app.example:8443/p/a?q=1&r=2#h\"}",
                true,
            ])
        await page.close()
    }

    /// A URL's `searchParams` and its query are one: each changes the other.
    @Test func urlSettersAndSearchParamsStayInStep() async throws {
        let page = try await Self.page()
        let steps = try await page.evaluateJavaScript(
            """
            { const url = new URL("https://app.example/cb?code=abc&state=xyz");
              const seen = [url.searchParams.get("code")];
              url.searchParams.set("code", "new value"); url.searchParams.delete("state"); seen.push(url.href);
              url.search = "?a=1"; seen.push(url.searchParams.get("a"), url.searchParams.has("code"));
              url.searchParams.delete("a"); seen.push(url.href);
              url.pathname = "x/y z"; url.hash = "h"; url.port = "8443"; url.hostname = "other.example"; seen.push(url.href);
              url.protocol = "http"; url.port = "80"; seen.push(url.href);
              url.protocol = "mailto"; url.port = "99999"; url.host = ""; seen.push(url.href);
              url.href = "https://third.example/?z=9"; seen.push(url.searchParams.get("z"));
              try { url.href = "nope"; } catch (error) { seen.push(error.name); }
              seen.push(url.href);
              seen }
            """)
        #expect(
            steps == [
                "abc", "https://app.example/cb?code=new+value", "1", false, "https://app.example/cb",
                "https://other.example:8443/x/y%20z#h", "http://other.example/x/y%20z#h", "http://other.example/x/y%20z#h", "9",
                "TypeError",
                "https://third.example/?z=9",
            ])
        // As the parser's states take them: a host is kept when the port after it is refused, a
        // setter drops tabs and newlines, and a path set empty on a URL that is not special is empty.
        let setters = try await page.evaluateJavaScript(
            """
            { const a = new URL("http://example.net/path"); a.host = "example.com:65536";
              const b = new URL("sc://x/"); b.hostname = "\\t";
              const c = new URL("foo://somehost/some/path"); c.pathname = "";
              const d = new URL("sc://test@test/"); d.host = "";
              const e = new URL("https://app.example/"); e.search = "?a\\nb"; e.hash = "x\\ty";
              [a.href, b.href, c.href, d.href, e.href] }
            """)
        #expect(setters == ["http://example.com/path", "sc:///", "foo://somehost", "sc://test@test/", "https://app.example/?ab#xy"])
        #expect(try await page.evaluateJavaScript("URL.parse('/x', 'https://a.example/b')?.href") == "https://a.example/x")
        #expect(try await page.evaluateJavaScript("URL.parse('nope')") == .null)
        await page.close()
    }

    @Test func eventTargetsDispatchAsTheDOMStandardHasIt() async throws {
        let page = try await Self.page()
        let seen = try await page.evaluateJavaScript(
            """
            { const target = new EventTarget(), seen = [];
              const once = event => seen.push("once " + event.type + " " + (event.target === target) + " " + event.eventPhase);
              target.addEventListener("x", once, {once: true});
              target.addEventListener("x", once, {once: true});
              target.addEventListener("x", {handleEvent(event) { seen.push("object"); }});
              target.addEventListener("x", event => { event.preventDefault(); throw new Error("reported, not thrown"); });
              target.addEventListener("x", event => { event.stopImmediatePropagation(); seen.push("stop"); });
              target.addEventListener("x", () => seen.push("never"));
              const canceled = target.dispatchEvent(new Event("x", {cancelable: true}));
              const plain = target.dispatchEvent(new Event("x"));
              [canceled, plain, seen.join(","), Event.AT_TARGET, new Event("y").eventPhase] }
            """)
        #expect(seen == [false, true, "once x true 2,object,stop,object,stop", 2, 0])
        await page.close()
    }

    /// `CustomEvent` carries its detail; `reportError` reports and the script goes on; `origin`
    /// is the document's.
    @Test func customEventsReportErrorAndTheDocumentsOrigin() async throws {
        let recorder = PageEventRecorder()
        let page = WebPage(configuration: WebPageConfiguration(eventHandler: recorder.handler))
        try await page.loadHTMLString("<p>platform</p>", baseURL: URL(string: "https://app.example:8443/a/b")!)
        let seen = try await page.evaluateJavaScript(
            """
            { const target = new EventTarget(); let detail;
              target.addEventListener("session", event => { detail = [event.detail.expiresAt, event instanceof Event, event instanceof CustomEvent]; });
              target.dispatchEvent(new CustomEvent("session", { detail: { expiresAt: 42 } }));
              reportError(new TypeError("reported, not thrown"));
              [...detail, new CustomEvent("x").detail, origin, Object.prototype.toString.call(new CustomEvent("x"))] }
            """)
        #expect(seen == [42, true, true, .null, "https://app.example:8443", "[object CustomEvent]"])
        #expect(recorder.scriptErrors.map { "\($0.name): \($0.message)" } == ["TypeError: reported, not thrown"])
        await page.close()
    }

    /// A signal ends listeners, `AbortSignal.any` and `timeout` follow their sources, and `fetch`
    /// rejects with WebKit's `AbortError` once aborted in flight (whatever the reason given).
    @Test func abortSignalsAbortOnceAndFetchRejectsAsWebKitDoes() async throws {
        let page = try await Self.page()
        let seen = try await page.callAsyncJavaScript(
            """
            const controller = new AbortController(), seen = [];
            let fired = 0;
            controller.signal.onabort = () => fired++;
            controller.signal.addEventListener("abort", () => fired++);
            const listening = new EventTarget();
            listening.addEventListener("ping", () => seen.push("ping"), {signal: controller.signal});
            listening.dispatchEvent(new Event("ping"));
            const follower = AbortSignal.any([new AbortController().signal, controller.signal]);
            controller.abort();
            controller.abort("again");
            listening.dispatchEvent(new Event("ping"));
            seen.push(fired, controller.signal.reason.name, controller.signal.reason.code, follower.aborted, follower.reason === controller.signal.reason);
            try { controller.signal.throwIfAborted(); } catch (error) { seen.push("threw " + error.name); }
            try { new AbortSignal(); } catch (error) { seen.push(error.name); }
            seen.push(AbortSignal.abort("mine").reason);
            const request = new AbortController();
            const fetched = fetch("/never", {signal: request.signal}).then(() => "answered", error => error.name + ": " + error.message);
            request.abort("gave up");
            seen.push(await fetched);
            seen.push(await fetch("/never", {signal: AbortSignal.abort()}).then(() => "answered", error => error.name));
            const timed = AbortSignal.timeout(5);
            await new Promise(resolve => timed.addEventListener("abort", resolve));
            seen.push(timed.reason.name);
            return seen;
            """, timeout: .seconds(10))
        #expect(
            seen == [
                "ping", 2, "AbortError", 20, true, true, "threw AbortError", "TypeError", "mine", "AbortError: Fetch is aborted",
                "AbortError",
                "TimeoutError",
            ])
        await page.close()
    }

    /// Shared references and cycles kept, each kind copied as HTML's structured clone has it,
    /// and what cannot be cloned refused with a `DataCloneError`.
    @Test func structuredCloneCopiesWhatHTMLSerializes() async throws {
        let page = try await Self.page()
        let seen = try await page.evaluateJavaScript(
            """
            { const shared = {n: 1}, buffer = new ArrayBuffer(8), bytes = new Uint8Array(buffer, 2, 4);
              bytes[0] = 9;
              const source = {list: [1, "two", null, undefined, 3n], date: new Date(5), pattern: /x+/gi, map: new Map([[shared, new Set([shared])]]),
                shared, boxed: new Number(4), error: new RangeError("bad"), views: [bytes, new DataView(buffer)], ["__proto__"]: "own"};
              source.self = source;
              source.pattern.lastIndex = 3;
              const copy = structuredClone(source);
              const refused = [() => 1, Symbol("s"), new WeakMap(), Promise.resolve(1), {method() {}}].map(value => {
                try { structuredClone(value); return "cloned"; } catch (error) { return error.name + " " + error.code; }
              });
              const moving = new ArrayBuffer(4), moved = structuredClone({moving}, {transfer: [moving]});
              [copy !== source, copy.self === copy, copy.shared === [...copy.map.keys()][0], [...copy.map.values()][0].has(copy.shared),
               copy.date.getTime(), String(copy.pattern), copy.pattern.lastIndex, copy.boxed instanceof Number, copy.error instanceof RangeError,
               copy.error.message, copy.list.length, typeof copy.list[4], copy.views[0].buffer === copy.views[1].buffer, copy.views[0].byteOffset,
               copy.views[0][0], copy.views[0].buffer !== buffer, Object.getPrototypeOf(copy) === Object.prototype,
               Object.getOwnPropertyDescriptor(copy, "__proto__").value, ...refused, moved.moving.byteLength, moving.byteLength] }
            """)
        #expect(
            seen == [
                true, true, true, true, 5, "/x+/gi", 0, true, true, "bad", 5, "bigint", true, 2, 9, true, true, "own",
                "DataCloneError 25", "DataCloneError 25", "DataCloneError 25", "DataCloneError 25", "DataCloneError 25", 4, 0,
            ])
        // This prelude's own objects: a DOMException is copied, the others HTML does not
        // serialize are refused (they were copied as empty objects).
        let platform = try await page.evaluateJavaScript(
            """
            { const copy = structuredClone(new DOMException("gone", "AbortError"));
              [copy instanceof DOMException, copy.name, copy.message, copy.code,
               ...[new URL("https://a.example/"), new Event("x"), localStorage, new AbortController(), new TextEncoder(), history].map(value => {
                 try { structuredClone(value); return "copied"; } catch (error) { return error.name; } })] }
            """)
        #expect(platform == .array([true, "AbortError", "gone", 20] + Array(repeating: "DataCloneError", count: 6)))
        await page.close()
    }

    @Test func cryptoGivesRandomValuesAndVersionFourUUIDs() async throws {
        let page = try await Self.page()
        let values = try await page.evaluateJavaScript(
            """
            const filled = crypto.getRandomValues(new Uint8Array(4096));
            const counts = new Array(256).fill(0);
            for (const byte of filled) counts[byte]++;
            const view = new Uint32Array(new ArrayBuffer(16), 4, 2);
            [crypto.getRandomValues(view) === view, Math.max(...counts) < 64, new Set(Array.from({length: 100}, () => crypto.randomUUID())).size,
             Array.from({length: 20}, () => crypto.randomUUID()).every(id => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)),
             crypto.getRandomValues(new BigUint64Array(2)).length]
            """)
        #expect(values == [true, true, 100, true, 2])
        let refused = try await page.evaluateJavaScript(
            """
            [new Float64Array(1), new DataView(new ArrayBuffer(1)), [1, 2], new Uint8Array(65537)].map(input => {
              try { crypto.getRandomValues(input); return "filled"; } catch (error) { return error.name + " " + error.code; }
            }).concat([crypto.getRandomValues(new Uint8Array(65536)).length, typeof crypto.subtle], (() => {
              const unbound = crypto.getRandomValues;
              try { unbound(new Uint8Array(1)); return "filled"; } catch (error) { return error.name; }
            })())
            """)
        #expect(
            refused == [
                "TypeMismatchError 17", "TypeMismatchError 17", "TypeError undefined", "QuotaExceededError 22", 65536, "object",
                "TypeError",
            ])
        await page.close()
    }

    /// `crypto.randomUUID` and `crypto.subtle` are a secure context's only, as in WebKit; `getRandomValues` is every page's.
    @Test(arguments: [
        ("https://app.example/", true), ("http://app.example/", false), ("http://127.0.0.1:8080/", true),
        ("http://localhost/", true), ("http://[::1]/", true), ("http://127.0.0.1.example/", false),
    ])
    func randomUUIDNeedsASecureContext(url: String, secure: Bool) async throws {
        let page = WebPage()
        try await page.loadHTMLString("<p>platform</p>", baseURL: URL(string: url)!)
        let seen = try await page.evaluateJavaScript(
            "[isSecureContext, typeof crypto.randomUUID, crypto.getRandomValues(new Uint8Array(2)).length, typeof crypto.subtle, typeof CryptoKey]"
        )
        #expect(
            seen == [
                .bool(secure), .string(secure ? "function" : "undefined"), 2, .string(secure ? "object" : "undefined"),
                .string(secure ? "function" : "undefined"),
            ])
        await page.close()
    }

    @Test func performanceCountsFromTheDocumentsTimeOrigin() async throws {
        let before = Date().timeIntervalSince1970 * 1000
        let page = try await Self.page()
        let clock = try await page.evaluateJavaScript(
            """
            const first = performance.now(), until = Date.now() + 20;
            while (Date.now() < until) {}
            const second = performance.now();
            [first >= 0, second - first >= 15, Math.abs(second * 10 - Math.round(second * 10)) < 1e-6, performance.timeOrigin, performance.toJSON().timeOrigin === performance.timeOrigin]
            """)
        let after = Date().timeIntervalSince1970 * 1000
        guard case .array(let parts) = clock, parts.count == 5, case .number(let origin) = parts[3] else {
            Issue.record("unexpected \(clock)")
            return
        }
        #expect(Array(parts.prefix(3)) == [true, true, true])
        #expect(origin >= before - 1 && origin <= after + 1)
        #expect(parts[4] == true)
        await page.close()
    }

    /// Every content world of a document has the members, each its own: the page's are still
    /// unmade after an isolated world used its.
    @Test func anIsolatedWorldHasItsOwnMembers() async throws {
        let page = try await Self.page()
        let world = ContentWorld.world(name: "native")
        let seen = try await page.evaluateJavaScript(
            "[new URL('/x?y=1', location.href).href, atob(btoa('w')), typeof crypto.getRandomValues, new AbortController().signal.aborted]",
            in: world)
        #expect(seen == ["https://app.example/x?y=1", "w", "function", false])
        #expect(
            try await page.evaluateJavaScript("typeof Object.getOwnPropertyDescriptor(globalThis, 'URL').get")
                == "function")
        await page.close()
    }

    /// Made on a script's first read: until then the global holds accessors, and what a page
    /// assigns or deletes first stays as the page left it.
    @Test func theMembersAreMadeOnFirstReadAndStayThePagesToReplace() async throws {
        let page = try await Self.page()
        let lazy = try await page.evaluateJavaScript(
            "['atob', 'TextEncoder', 'crypto'].map(name => typeof Object.getOwnPropertyDescriptor(globalThis, name).get)")
        #expect(lazy == ["function", "function", "function"])
        let placed = try await page.evaluateJavaScript(
            """
            window.btoa = () => "mine";
            delete window.TextDecoder;
            const read = typeof atob;
            [read, btoa("x"), typeof TextDecoder, typeof Object.getOwnPropertyDescriptor(globalThis, "crypto").value,
             Object.keys(window).includes("atob"), Object.keys(window).includes("TextEncoder"), String(crypto), String(new DOMException("m", "AbortError"))]
            """)
        #expect(placed == ["function", "mine", "undefined", "object", true, false, "[object Crypto]", "AbortError: m"])
        // Every lazily made name is made (a name the maker does not return would read undefined).
        let names = [
            "atob", "btoa", "crypto", "performance", "isSecureContext", "structuredClone", "localStorage", "sessionStorage", "reportError",
            "TextEncoder", "TextDecoder", "URL", "URLSearchParams", "DOMException", "Event", "EventTarget", "AbortController",
            "AbortSignal",
            "CryptoKey", "SubtleCrypto", "Storage", "XMLHttpRequest", "ProgressEvent", "CustomEvent", "history", "History", "PopStateEvent",
            "HashChangeEvent",
        ]
        let fresh = try await Self.page()
        let undefinedNames = try await fresh.evaluateJavaScript("\(names).filter(name => globalThis[name] === undefined)")
        #expect(undefinedNames == [])
        await fresh.close()
        await page.close()
    }

    /// A `BroadcastChannel` message reaches the pages of its origin that share the sender's
    /// data store, and no others, as its structured clone (a `Date` arrives a `Date`); a
    /// document that was replaced hears nothing more; a value that cannot be cloned is refused
    /// as it is posted.
    @Test func broadcastChannelsStayWithinTheirDataStoreAndOrigin() async throws {
        let store = WebsiteDataStore.nonPersistent()
        let app = URL(string: "https://app.example/")!
        func page(_ store: WebsiteDataStore, at url: URL) async throws -> WebPage {
            let page = WebPage(configuration: WebPageConfiguration(websiteDataStore: store))
            try await page.loadHTMLString(
                "<script>var got = []; new BroadcastChannel('auth').onmessage = event => got.push(event.data instanceof Date ? 'date ' + event.data.getTime() : event.data.n + ' ' + event.origin)</script>",
                baseURL: url)
            return page
        }
        let sender = WebPage(configuration: WebPageConfiguration(websiteDataStore: store))
        try await sender.loadHTMLString("<p>sender</p>", baseURL: app)
        let sameStore = try await page(store, at: app)
        let otherOrigin = try await page(store, at: URL(string: "https://other.example/")!)
        let otherStore = try await page(.nonPersistent(), at: app)
        let posted = try await sender.evaluateJavaScript(
            """
            var channel = new BroadcastChannel("auth");
            channel.postMessage({ n: 1 });
            channel.postMessage(new Date(5));
            (() => { try { channel.postMessage({ f() {} }); return "posted"; } catch (error) { return error.name; } })()
            """)
        #expect(posted == "DataCloneError")
        let deadline = ContinuousClock.now + .seconds(10)
        while try await sameStore.evaluateJavaScript("got.length") != 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try await sameStore.evaluateJavaScript("got") == ["1 https://app.example", "date 5"])
        try await sameStore.loadHTMLString("<script>var got = 'replaced'</script>", baseURL: app)
        _ = try await sender.evaluateJavaScript("channel.postMessage({ n: 2 })")
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await sameStore.evaluateJavaScript("got") == "replaced")
        #expect(try await otherOrigin.evaluateJavaScript("got") == [])
        #expect(try await otherStore.evaluateJavaScript("got") == [])
        for page in [sender, sameStore, otherOrigin, otherStore] { await page.close() }
    }
}
