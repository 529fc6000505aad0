import Crypto
import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import SessionBridgeWebKit
import Testing

/// The CORS protocol, run side by side: a page of one origin (`home`) asks another (`api`, the
/// same host on another port), and the headless engine lets it read, send and preflight what
/// WebKit does, with the same `Origin` fields and cookies on the wire.
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct CrossOriginRequestsOnBothEnginesTests {
    /// `probe(url, init)`: the answer's type, status and the header names the page reads (the
    /// server's `date` left out), or the error's name and message.
    static func helpers(api: TestSite, home: TestSite) -> String {
        """
        const api = "\(api.baseURL.absoluteString)", home = "\(home.baseURL.absoluteString)", enc = encodeURIComponent(home);
        const probe = async (url, init) => {
          try {
            const r = await fetch(url, init);
            return [r.type, r.status, [...r.headers.keys()].filter(name => name !== "date").join()].join(" ");
          } catch (error) { return `${error.name}: ${error.message}`; }
        };

        """
    }

    /// Runs `script` in a page of `home`'s origin on `engine` (`/set-cookies`, or `path` of
    /// `pages`), with `api` as the other origin.
    static func run(
        _ script: (TestSite, TestSite) -> String, on engine: Engine, path: String = "/set-cookies",
        pages: (TestSite) -> [String: String] = { _ in [:] }
    ) async throws -> (ScriptValue, api: TestSite, home: TestSite) {
        try await withSite { api in
            try await withSite(pages: pages(api)) { home in
                try await EngineHarness.with(engine, signIn: false) { harness in
                    let view = try await harness.makeEchoView()
                    _ = try await view.load(home.url("/set-cookies"))
                    if path != "/set-cookies" { _ = try await view.load(home.url(path)) }
                    let seen = try await view.run(helpers(api: api, home: home) + script(api, home))
                    return (seen, api, home)
                }
            }
        }
    }

    /// The other origin's answer reaches the page only when it allows the page's origin, and
    /// credentials only with `Access-Control-Allow-Credentials: true` and no wildcard; the page
    /// reads the safelisted headers and those exposed. Every request carries the page's
    /// `Origin`; cookies go only with `credentials: "include"`.
    @Test(arguments: Engine.allCases)
    func anAnswerIsReadOnlyWhenItAllowsThePagesOrigin(engine: Engine) async throws {
        let (seen, api, home) = try await Self.run(
            { _, _ in
                """
                return [
                  await probe(api + "/cors/api?n=1"),
                  await probe(api + "/cors/api?n=2&acao=*"),
                  await probe(api + "/cors/api?n=3&acao=" + enc),
                  await probe(api + "/cors/api?n=4&acao=" + enc, { credentials: "include" }),
                  await probe(api + "/cors/api?n=5&acac=true&acao=" + enc, { credentials: "include" }),
                  await probe(api + "/cors/api?n=6&acac=true&acao=*", { credentials: "include" }),
                  await probe(api + "/cors/api?n=7&acao=*&aceh=x-custom"),
                  await probe(api + "/cors/api?n=8&acao=*&status=500"),
                  await probe(api + "/cors/api?n=9&acao=" + enc + "/"),
                  (await fetch("/echo")).type,
                ];
                """
            }, on: engine)
        let failed = "TypeError: Load failed"
        #expect(
            seen == [
                .string(failed), "cors 200 content-length,content-type", "cors 200 content-length,content-type", .string(failed),
                "cors 200 content-length,content-type", .string(failed), "cors 200 content-length,content-type,x-custom",
                "cors 500 content-length,content-type", .string(failed), "basic",
            ], "\(engine)")
        let requests = api.requests(to: "/cors/api")
        #expect(requests.count == 9, "\(engine)")
        #expect(requests.allSatisfy { $0.fields["origin"] == home.origin.description }, "\(engine)")
        // Cookies (the page's, of the same host) only where the page asked for them.
        #expect(requests.map { !$0.cookieHeader.isEmpty } == [false, false, false, true, true, true, false, false, false], "\(engine)")
        // A same-origin GET carries no Origin.
        #expect(home.requests(to: "/echo").first?.fields["origin"] == nil, "\(engine)")
    }

    /// A method other than GET, HEAD and POST, or a header other than the safelisted ones, is
    /// asked about first (`OPTIONS`, without cookies); what the preflight allows is kept for
    /// the next request; methods are matched exactly; a wildcard allows any header to a request
    /// without credentials, and is a method's name to one with them.
    @Test(arguments: Engine.allCases)
    func aPreflightAsksBeforeARequestTheOtherOriginMayNotExpect(engine: Engine) async throws {
        let (seen, api, _) = try await Self.run(
            { _, _ in
                """
                const json = n => ({ method: "POST", headers: { "content-type": "application/json" }, body: `{"n":${n}}` });
                return [
                  await probe(api + "/cors/api?n=1&acao=*", json(1)),
                  await probe(api + "/cors/api?n=2&acao=*&p_acao=*&p_acah=content-type", json(2)),
                  await probe(api + "/cors/api?n=2&acao=*&p_acao=*&p_acah=content-type", json(2)),
                  await probe(api + "/cors/api?n=3&acao=*&p_acao=*&p_acam=PUT", { method: "PUT" }),
                  await probe(api + "/cors/api?n=4&acao=*&p_acao=*", { method: "PUT" }),
                  await probe(api + "/cors/api?n=5&acao=*&p_acao=*&p_acam=PUT&p_status=500", { method: "PUT" }),
                  await probe(api + "/cors/api?n=6&acao=*&p_acao=*&p_acam=put", { method: "PUT" }),
                  await probe(api + "/cors/api?n=7&acao=*&p_acao=*&p_acah=*", { headers: { "x-foo": "1", "X-Bar": "2" } }),
                  await probe(api + "/cors/api?n=8&acao=*", { headers: { "content-language": "en", accept: "text/x" } }),
                  await probe(api + "/cors/api?n=9&acac=true&acao=" + enc + "&p_acac=true&p_acam=*&p_acao=" + enc, { method: "DELETE", credentials: "include" }),
                  await probe(api + "/cors/api?n=10&acao=*", { method: "POST", body: new Blob(["{}"], { type: "application/json" }) }),
                ];
                """
            }, on: engine)
        let failed = "TypeError: Load failed", read = "cors 200 content-length,content-type"
        #expect(
            seen == [
                .string(failed), .string(read), .string(read), .string(read), .string(failed), .string(failed), .string(failed),
                .string(read), .string(read), .string(failed), .string(failed),
            ], "\(engine)")
        let requests = api.requests(to: "/cors/api")
        func asked(_ n: Int) -> [String] {
            requests.filter { $0.query.hasPrefix("n=\(n)&") }.map(\.method)
        }
        #expect(asked(1) == ["OPTIONS"], "\(engine)")
        // The second request of the same kind goes out without asking again.
        #expect(asked(2) == ["OPTIONS", "POST", "POST"], "\(engine)")
        #expect(asked(3) == ["OPTIONS", "PUT"], "\(engine)")
        #expect([4, 5, 6, 9, 10].map(asked) == Array(repeating: ["OPTIONS"], count: 5), "\(engine)")
        #expect(asked(7) == ["OPTIONS", "GET"], "\(engine)")
        #expect(asked(8) == ["GET"], "\(engine)")
        let preflights = requests.filter { $0.method == "OPTIONS" }
        #expect(preflights.allSatisfy { $0.cookieHeader.isEmpty }, "\(engine)")
        #expect(preflights.first?.fields["access-control-request-method"] == "POST", "\(engine)")
        #expect(preflights.first?.fields["access-control-request-headers"] == "content-type", "\(engine)")
        #expect(requests.first { $0.query.hasPrefix("n=7&") }?.fields["access-control-request-headers"] == "x-bar,x-foo", "\(engine)")
    }

    /// `no-cors` gives an opaque answer to GET, HEAD and POST only and keeps the safelisted
    /// headers; `same-origin` refuses another origin before anything is sent; a page cannot make
    /// a navigation's request. A same-origin POST tells its origin.
    @Test(arguments: Engine.allCases)
    func requestModesAsWebKitHasThem(engine: Engine) async throws {
        let (seen, api, home) = try await Self.run(
            { _, _ in
                """
                const error = action => { try { action(); return "made"; } catch (e) { return `${e.name}: ${e.message}`; } };
                return [
                  await probe(api + "/cors/api?n=1", { mode: "no-cors" }),
                  await probe(api + "/cors/api?n=2", { mode: "no-cors", method: "POST", body: "x" }),
                  await probe(api + "/cors/api?n=3", { mode: "no-cors", method: "PUT" }),
                  await probe(api + "/cors/api?n=4&acao=*", { mode: "same-origin" }),
                  new Request(api).mode, new Request(api, { mode: "no-cors" }).mode,
                  JSON.stringify([...new Request(api, { mode: "no-cors", headers: { "x-foo": "1", accept: "a" } }).headers]),
                  error(() => new Request(api, { mode: "navigate" })),
                  error(() => new Request(api, { credentials: "bogus" })).split(":")[0],
                  (await fetch("/echo", { method: "POST", body: "x" })).status,
                ];
                """
            }, on: engine)
        #expect(
            seen == [
                "opaque 0 ", "opaque 0 ", "TypeError: Method must be GET, POST or HEAD in no-cors mode.", "TypeError: Load failed",
                "cors", "no-cors", #"[["accept","a"]]"#, "TypeError: Request constructor does not accept navigate fetch mode.", "TypeError",
                404,
            ], "\(engine)")
        let requests = api.requests(to: "/cors/api")
        #expect(requests.map(\.method) == ["GET", "POST"], "\(engine)")
        // A no-cors GET tells no origin; its POST does.
        #expect(requests.map { $0.fields["origin"] } == [nil, home.origin.description], "\(engine)")
        #expect(home.requests(to: "/echo").first?.fields["origin"] == home.origin.description, "\(engine)")
    }

    /// Each hop of a redirected request follows the protocol: a page's request redirected to
    /// another origin needs its allowance; one redirected from another origin to a third (here
    /// back home) says `Origin: null`; `Authorization` does not follow to another origin.
    @Test(arguments: Engine.allCases)
    func redirectsFollowTheProtocolHopByHop(engine: Engine) async throws {
        let (seen, api, home) = try await Self.run(
            { _, _ in
                """
                const to = (site, path) => encodeURIComponent(site + path);
                return [
                  await probe(home + "/cors/redirect?to=" + to(api, "/cors/api?n=1")),
                  await probe(home + "/cors/redirect?to=" + to(api, "/cors/api?n=2&acao=*")),
                  await probe(api + "/cors/redirect?acao=*&to=" + to(home, "/cors/api?n=3&acao=" + enc)),
                  await probe(api + "/cors/redirect?acao=*&to=" + to(home, "/cors/api?n=4&acao=*")),
                  await probe(api + "/cors/redirect?to=" + to(api, "/cors/api?n=5&acao=*")),
                  await probe(home + "/cors/redirect?code=307&to=" + to(api, "/cors/api?n=6&acao=*&p_acao=*&p_acah=authorization"),
                    { headers: { authorization: "Bearer x" } }),
                ];
                """
            }, on: engine)
        let failed = "TypeError: Load failed", read = "cors 200 content-length,content-type"
        #expect(seen == [.string(failed), .string(read), .string(failed), .string(read), .string(failed), .string(read)], "\(engine)")
        #expect(home.requests(to: "/cors/api").map { $0.fields["origin"] } == ["null", "null"], "\(engine)")
        let hops = api.requests(to: "/cors/api").filter { $0.method != "OPTIONS" }
        #expect(hops.map(\.query.first) == ["n", "n", "n"], "\(engine)")
        #expect(hops.allSatisfy { $0.fields["origin"] == home.origin.description && $0.fields["authorization"] == nil }, "\(engine)")
        #expect(home.requests(to: "/cors/redirect").first { $0.query.hasPrefix("code=307") }?.fields["authorization"] == "Bearer x")
    }

    /// A classic script with a `crossorigin` attribute is fetched in `cors` mode (with cookies
    /// for `use-credentials`), and runs only when its answer allows the page's origin; one
    /// without is fetched as before, with cookies, whatever its answer says.
    @Test(arguments: Engine.allCases)
    func aScriptMarkedCrossoriginFollowsTheProtocol(engine: Engine) async throws {
        let (seen, api, home) = try await Self.run(
            { _, _ in
                """
                for (let turn = 0; turn < 500 && loaded.length < 4; turn++) await new Promise(resolve => setTimeout(resolve, 10));
                return [loaded.sort().join(), window.classicRuns];
                """
            }, on: engine, path: "/scripts"
        ) { api in
            let script = api.url("/cors/classic.js").absoluteString
            return [
                "/scripts": """
                <script>var loaded = [];</script>
                <script src="\(script)?n=1" crossorigin onload="loaded.push('1 load')" onerror="loaded.push('1 error')"></script>
                <script src="\(script)?n=2&acao=*" crossorigin="anonymous" onload="loaded.push('2 load')" onerror="loaded.push('2 error')"></script>
                <script src="\(script)?n=3&acac=true&acao=echo" crossorigin="use-credentials" onload="loaded.push('3 load')" onerror="loaded.push('3 error')"></script>
                <script src="\(script)?n=4" onload="loaded.push('4 load')" onerror="loaded.push('4 error')"></script>
                """
            ]
        }
        #expect(seen == ["1 error,2 load,3 load,4 load", 3], "\(engine)")
        // Fetched in parallel by WebKit: in the order of their `n`.
        let requests = api.requests(to: "/cors/classic.js").sorted { $0.query < $1.query }
        let origin = home.origin.description
        #expect(requests.map { $0.fields["origin"] } == [origin, origin, origin, nil], "\(engine)")
        #expect(requests.map { !$0.cookieHeader.isEmpty } == [false, false, true, true], "\(engine)")
    }

    /// Subresource Integrity, as WebKit checks it: a script, a module script or a `fetch` whose
    /// body has none of the digests of the strongest algorithm named is not used (an unknown
    /// algorithm checks nothing), and another origin's answer fetched without CORS never
    /// matches. A module script marked `use-credentials` sends its cookies to another origin.
    @Test(arguments: Engine.allCases)
    func aBodyWithoutTheDigestsNamedIsNotUsed(engine: Engine) async throws {
        let body = Array(TestSite.classicScript.utf8)
        let sha256 = "sha256-" + Data(SHA256.hash(data: body)).base64EncodedString()
        let sha384 = "sha384-" + Data(SHA384.hash(data: body)).base64EncodedString()
        let wrong256 = "sha256-" + Data(SHA256.hash(data: Array("other".utf8))).base64EncodedString()
        let wrong384 = "sha384-" + Data(SHA384.hash(data: Array("other".utf8))).base64EncodedString()
        let module = "sha256-" + Data(SHA256.hash(data: Array(TestSite.moduleScript.utf8))).base64EncodedString()
        let (seen, api, _) = try await Self.run(
            { _, _ in
                """
                for (let turn = 0; turn < 500 && loaded.length < 10; turn++) await new Promise(resolve => setTimeout(resolve, 10));
                const fetched = async (url, init) => { try { return (await fetch(url, init)).status; } catch (error) { return error.name; } };
                return [loaded.sort().join(), window.classicRuns,
                  await fetched("/cors/classic.js?n=8", { integrity: "\(sha256)" }),
                  await fetched("/cors/classic.js?n=9", { integrity: "\(wrong256)" }),
                  await fetched(api + "/cors/classic.js?n=10&acao=*", { integrity: "\(sha256)" }),
                  await fetched(api + "/cors/classic.js?n=11", { integrity: "\(sha256)", mode: "no-cors" }),
                  await fetched("/cors/classic.js?n=12", { integrity: "sha512-x \(sha256)" })];
                """
            }, on: engine, path: "/integrity"
        ) { api in
            let other = api.url("/cors/classic.js").absoluteString
            let modules = api.url("/cors/module.js").absoluteString
            func script(_ n: Int, _ src: String, _ integrity: String, _ extra: String = "") -> String {
                #"<script src="\#(src)" integrity="\#(integrity)" \#(extra) onload="loaded.push('\#(n) load')" onerror="loaded.push('\#(n) error')"></script>"#
            }
            return [
                "/integrity": """
                <script>var loaded = [];</script>
                \(script(1, "/cors/classic.js?n=1", sha256))
                \(script(2, "/cors/classic.js?n=2", wrong256))
                \(script(3, "/cors/classic.js?n=3", "\(wrong256) \(sha384)"))
                \(script(4, "/cors/classic.js?n=4", "\(wrong384) \(sha256)"))
                \(script(5, other + "?n=5&amp;acao=*", sha256))
                \(script(6, other + "?n=6&amp;acao=*", sha256, "crossorigin"))
                \(script(7, "/cors/classic.js?n=7", "md5-AAAA"))
                \(script(8, modules + "?n=8&amp;acao=*", module, #"type="module""#))
                \(script(9, modules + "?n=9&amp;acao=*", wrong256, #"type="module""#))
                \(script(10, modules + "?n=10&amp;acac=true&amp;acao=echo", module, #"type="module" crossorigin="use-credentials""#))
                """
            ]
        }
        #expect(
            seen == [
                "1 load,10 load,2 error,3 load,4 error,5 error,6 load,7 load,8 load,9 error", 4, 200, "TypeError", 200, "TypeError",
                "TypeError",
            ], "\(engine)")
        // Sorted by `n`: 10, 8, 9.
        #expect(
            api.requests(to: "/cors/module.js").sorted { $0.query < $1.query }.map { !$0.cookieHeader.isEmpty } == [true, false, false],
            "\(engine)")
    }

    /// `XMLHttpRequest`, `EventSource` and module scripts follow the same protocol.
    @Test(arguments: Engine.allCases)
    func xhrEventSourceAndModulesFollowTheProtocol(engine: Engine) async throws {
        let (seen, api, home) = try await Self.run(
            { _, _ in
                """
                const xhr = url => new Promise(resolve => {
                  const request = new XMLHttpRequest();
                  request.open("GET", url);
                  request.onload = () => resolve(`load ${request.status} ${request.getAllResponseHeaders().trim().split("\\r\\n").map(line => line.split(":")[0]).filter(name => name !== "date").join()}`);
                  request.onerror = () => resolve(`error ${request.status}`);
                  request.send();
                });
                const source = (url, init) => new Promise(resolve => {
                  const events = new EventSource(url, init);
                  events.onmessage = event => { events.close(); resolve(`message ${event.data}`); };
                  events.onerror = () => { events.close(); resolve(`error ${events.readyState}`); };
                });
                for (let turn = 0; turn < 500 && modules.length < 2; turn++) await new Promise(resolve => setTimeout(resolve, 10));
                return [
                  await xhr(api + "/cors/api?n=1"), await xhr(api + "/cors/api?n=2&acao=*&aceh=x-custom"),
                  await source(api + "/cors/events"), await source(api + "/cors/events?acao=*"),
                  await source(api + "/cors/events?acao=*", { withCredentials: true }),
                  await source(api + "/cors/events?acac=true&acao=" + enc, { withCredentials: true }),
                  ...modules.sort(),
                ];
                """
            }, on: engine, path: "/modules"
        ) { api in
            let module = api.url("/cors/module.js").absoluteString
            return [
                "/modules": """
                <script>var modules = [];</script>
                <script type="module" src="\(module)" onload="modules.push('load')" onerror="modules.push('error')"></script>
                <script type="module" src="\(module)?acao=*" onload="modules.push('load')" onerror="modules.push('error')"></script>
                """
            ]
        }
        #expect(
            seen == [
                "error 0", "load 200 content-length,content-type,x-custom", "error 2", "message hi", "error 2", "message hi", "error",
                "load",
            ], "\(engine)")
        #expect(api.requests(to: "/cors/events").allSatisfy { $0.fields["origin"] == home.origin.description }, "\(engine)")
        #expect(api.requests(to: "/cors/events").map { !$0.cookieHeader.isEmpty } == [false, false, true, true], "\(engine)")
    }

    /// A secure page's requests for `http:` URLs are mixed content, blocked before they are sent,
    /// as WebKit blocks them: loopback hosts are not exempt.
    @Test(arguments: Engine.allCases)
    func aSecurePagesInsecureRequestsAreBlocked(engine: Engine) async throws {
        try await withSite { site in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                let seen = try await view.run(
                    """
                    const site = "\(site.baseURL.absoluteString)";
                    const outcome = async promise => { try { await promise; return "loaded"; } catch (error) { return error.name; } };
                    const xhr = new Promise(resolve => {
                      const request = new XMLHttpRequest();
                      request.open("GET", site + "/echo?n=2");
                      request.onload = () => resolve("load"); request.onerror = () => resolve("error");
                      request.send();
                    });
                    const source = new Promise(resolve => {
                      const events = new EventSource(site + "/cors/events?acao=*");
                      events.onmessage = () => { events.close(); resolve("message"); };
                      events.onerror = () => { events.close(); resolve(`error ${events.readyState}`); };
                    });
                    return [location.protocol, await outcome(fetch(site + "/echo?n=1")), await xhr, await source,
                      await outcome(fetch(site + "/echo?n=3", { mode: "no-cors" }))];
                    """)
                #expect(seen == ["https:", "TypeError", "error", "error 2", "TypeError"], "\(engine)")
                #expect(site.requests.isEmpty, "\(engine)")
            }
        }
    }
}
