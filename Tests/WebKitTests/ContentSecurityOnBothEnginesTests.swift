import Crypto
import Foundation
import SessionBridge
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import SessionBridgeWebKit
import Testing

/// A document's Content Security Policy, side by side: the headless engine runs, loads and
/// connects to what WebKit's policy allows and nothing else (scripts by nonce, hash and source,
/// `'strict-dynamic'`, handler attributes, `eval`, `connect-src`), tells the page as WebKit
/// does (`securitypolicyviolation` events), posts WebKit's reports, and the session's bridge
/// works under a strict policy.
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct ContentSecurityOnBothEnginesTests {
    /// The first script of each page: it listens for violations and keeps what scripts ran.
    static let listener = """
        <script nonce="n1">
        window.ran = []; window.violations = [];
        document.addEventListener("securitypolicyviolation", e => violations.push(
          [e.effectiveDirective, e.blockedURI.replace(/^[a-z]+:\\/\\/127\\.0\\.0\\.1:\\d+/, ""), e.disposition, e.target === document ? "document" : e.target.nodeName]));
        </script>
        """

    @Test(arguments: Engine.allCases)
    func scriptsRunAsThePolicyAllows(engine: Engine) async throws {
        let hashed = "ran.push('hashed')"
        let hash = "sha256-" + Data(SHA256.hash(data: Data(hashed.utf8))).base64EncodedString()
        try await withSite { other in
            let page = """
                \(Self.listener)
                <script>ran.push('inline')</script>
                <script nonce="n1">ran.push('nonce')</script>
                <script>\(hashed)</script>
                <script src="/csp/run.js?n=self"></script>
                <script src="\(other.baseURL.absoluteString)/csp/run.js?n=other"></script>
                <script src="\(other.baseURL.absoluteString)/csp/run.js?n=othernonce" nonce="n1"></script>
                <script src="/csp/run.js?n=attribute" onload="ran.push('onload')"></script>
                <script nonce="n1">
                let evaluated;
                try { evaluated = eval("1 + 1"); } catch (error) { evaluated = error.name + ": " + error.message; }
                let made;
                try { made = new Function("return 2")(); } catch (error) { made = error.name; }
                window.evaluations = [evaluated, made, (function () {}).constructor === Function, (() => 0) instanceof Function];
                // HTML's nonce hiding, under a policy from the document's fields.
                window.nonces = [document.currentScript.nonce, document.currentScript.getAttribute("nonce")];
                setTimeout("ran.push('timer code')", 0);
                </script>
                <script type="module">ran.push('module')</script>
                <script type="module" nonce="n1">ran.push('nonced module')</script>
                """
            try await withSite(pages: ["/page": page]) { home in
                try await EngineHarness.with(engine, signIn: false) { harness in
                    let view = try await harness.makeEchoView()
                    let policy = "script-src 'self' 'nonce-n1' '\(hash)'; report-uri /csp/report"
                    _ = try await view.load(URL(string: home.url("/page").absoluteString + "?csp=" + Self.encoded(policy))!)
                    let seen = try await view.run(
                        """
                        await new Promise(resolve => setTimeout(resolve, 100));
                        return [ran, evaluations, violations, nonces];
                        """)
                    #expect(
                        seen.element(0) == ["nonce", "hashed", "self", "othernonce", "attribute", "nonced module"], "\(engine)")
                    let refusal =
                        "EvalError: Refused to evaluate a string as JavaScript because 'unsafe-eval' or 'trusted-types-eval' is not "
                        + "an allowed source of script in the following Content Security Policy directive: \"script-src 'self' "
                        + "'nonce-n1' '\(hash)'\".\n"
                    #expect(seen.element(1) == [.string(refusal), "EvalError", true, true], "\(engine)")
                    #expect(seen.element(3) == ["n1", ""], "\(engine)")
                    let violations = Self.items(seen.element(2))
                    let expected: [ScriptValue] = [
                        ["script-src", "eval", "enforce", "document"], ["script-src", "eval", "enforce", "document"],
                        ["script-src", "eval", "enforce", "document"], ["script-src-elem", "inline", "enforce", "SCRIPT"],
                        ["script-src-elem", "/csp/run.js?n=other", "enforce", "document"],
                        ["script-src-attr", "inline", "enforce", "SCRIPT"], ["script-src-elem", "inline", "enforce", "SCRIPT"],
                    ]
                    #expect(Set(violations) == Set(expected), "\(engine)")
                    // Each once, but the refused source, which WebKit reports twice (its preload scanner's and its parser's).
                    let source: ScriptValue = "/csp/run.js?n=other"
                    #expect(violations.filter { Self.items($0)[1] != source }.count == expected.count - 1, "\(engine)")
                    // The script of another origin that the policy refused was never asked for.
                    #expect(other.requests(to: "/csp/run.js").map(\.query) == ["n=othernonce"], "\(engine)")
                    // Each violation is reported to the policy's `report-uri`.
                    #expect(await Self.waitForReports(home, count: expected.count), "\(engine)")
                    let directives = home.reports.compactMap { Self.report($0)?["effective-directive"] as? String }
                    #expect(Set(directives) == Set(expected.compactMap { Self.items($0).first?.stringValue }), "\(engine)")
                    #expect(directives.filter { $0 == "script-src" }.count == 3, "\(engine)")
                }
            }
        }
    }

    /// A script's redirect is checked against `script-src` as its first URL was, its path not
    /// compared: one that leads to an origin the policy does not list is refused before it is
    /// asked for (a classic script and a module), while a nonced script may follow it and a
    /// redirect within the document's origin stays allowed.
    @Test(arguments: Engine.allCases)
    func aScriptsRedirectIsCheckedAsItsSourceWas(engine: Engine) async throws {
        try await withSite { other in
            func redirect(_ target: String) -> String { "/cors/redirect?to=" + Self.encoded(target) }
            let elsewhere = other.baseURL.absoluteString + "/csp/run.js?n="
            let page = """
                \(Self.listener)
                <script src="\(redirect(elsewhere + "redirected"))"></script>
                <script nonce="n1" src="\(redirect(elsewhere + "noncedredirect"))"></script>
                <script src="\(redirect("/csp/run.js?n=sameredirect"))"></script>
                <script type="module" src="\(redirect(elsewhere + "moduleredirect"))"></script>
                """
            try await withSite(pages: ["/page": page]) { home in
                try await EngineHarness.with(engine, signIn: false) { harness in
                    let view = try await harness.makeEchoView()
                    let policy = "script-src 'self' 'nonce-n1'"
                    _ = try await view.load(URL(string: home.url("/page").absoluteString + "?csp=" + Self.encoded(policy))!)
                    let seen = try await view.run(
                        """
                        await new Promise(resolve => setTimeout(resolve, 300));
                        return [ran, violations.map(v => v[0])];
                        """)
                    #expect(seen.element(0) == ["noncedredirect", "sameredirect"], "\(engine)")
                    #expect(Set(Self.items(seen.element(1))) == ["script-src-elem"], "\(engine): \(seen)")
                    // What the policy refused after the redirect was never asked for.
                    #expect(other.requests(to: "/csp/run.js").map(\.query) == ["n=noncedredirect"], "\(engine)")
                }
            }
        }
    }

    @Test(arguments: Engine.allCases)
    func strictDynamicTrustsWhatANoncedScriptLoads(engine: Engine) async throws {
        try await withSite { other in
            let page = """
                \(Self.listener)
                <script src="/csp/run.js?n=self"></script>
                <script src="\(other.baseURL.absoluteString)/csp/run.js?n=nonced" nonce="n1"></script>
                <script type="module" nonce="n1">
                import "\(other.baseURL.absoluteString)/csp/run.js?n=imported";
                ran.push("module");
                </script>
                """
            try await withSite(pages: ["/page": page]) { home in
                try await EngineHarness.with(engine, signIn: false) { harness in
                    let view = try await harness.makeEchoView()
                    let policy = "script-src 'nonce-n1' 'strict-dynamic' 'self'"
                    _ = try await view.load(URL(string: home.url("/page").absoluteString + "?csp=" + Self.encoded(policy))!)
                    let seen = try await view.run(
                        """
                        await new Promise(resolve => setTimeout(resolve, 100));
                        return [ran, violations];
                        """)
                    // `'self'` counts for nothing beside `'strict-dynamic'`; a nonced module's imports are trusted.
                    #expect(seen.element(0) == ["nonced", "imported", "module"], "\(engine)")
                    #expect(seen.element(1) == [["script-src-elem", "/csp/run.js?n=self", "enforce", "document"]], "\(engine)")
                    #expect(home.requests(to: "/csp/run.js").isEmpty, "\(engine)")
                }
            }
        }
    }

    @Test(arguments: Engine.allCases)
    func connectionsGoOnlyWhereThePolicyAllows(engine: Engine) async throws {
        try await withSite { site in
            let page = """
                \(Self.listener)
                <meta http-equiv="Content-Security-Policy" content="connect-src 'self' \(site.baseURL.absoluteString)/cors/api">
                """
            try await withSite(pages: ["/page": page]) { home in
                try await EngineHarness.with(engine, signIn: false) { harness in
                    let view = try await harness.makeEchoView()
                    let reportOnly = "connect-src 'self'; report-uri /csp/report"
                    _ = try await view.load(URL(string: home.url("/page").absoluteString + "?cspro=" + Self.encoded(reportOnly))!)
                    let api = site.baseURL.absoluteString
                    // Another origin still (the harness's server): after a redirect, paths are not compared.
                    let target = harness.url("/api/me").absoluteString
                    let seen = try await view.run(
                        """
                        const outcome = promise => promise.then(r => r.status, e => e.name + ": " + e.message);
                        const results = [
                          await outcome(fetch("/echo")),
                          await outcome(fetch("\(api)/cors/classic.js?acao=*")),
                          await outcome(fetch("\(api)/cors/api?acao=*")),
                          await outcome(fetch("/cors/redirect?to=" + encodeURIComponent("\(target)"))),
                        ];
                        results.push(await new Promise(resolve => {
                          const request = new XMLHttpRequest();
                          request.open("GET", "\(api)/cors/classic.js?acao=*");
                          request.onerror = () => resolve("error " + request.status);
                          request.onload = () => resolve("load " + request.status);
                          request.send();
                        }));
                        results.push(await outcome(fetch("data:,x")), await outcome(fetch(URL.createObjectURL(new Blob(["x"])))));
                        for (const make of [() => new EventSource("\(api)/cors/events?acao=*"), () => new WebSocket("\(api.replacingOccurrences(of: "http:", with: "ws:"))/ws")]) {
                          try { make(); results.push("opened"); } catch (error) { results.push(error.name); }
                        }
                        results.push(navigator.sendBeacon("\(api)/cors/module.js?beacon=1", "x"));
                        await new Promise(resolve => setTimeout(resolve, 100));
                        return [results, violations];
                        """)
                    #expect(
                        seen.element(0) == [
                            200, "TypeError: Load failed", 200, "TypeError: Load failed", "error 0", "TypeError: Load failed",
                            "TypeError: Load failed", "SecurityError",
                            "SecurityError", true,
                        ], "\(engine)")
                    // Nothing the enforced policy refused reached the other origin.
                    #expect(site.requests.map(\.path) == ["/cors/api"], "\(engine)")
                    let violations = Self.items(seen.element(1))
                    let enforced = violations.map(Self.items).filter { $0[2] == "enforce" }.compactMap { $0[1].stringValue }
                    #expect(
                        Set(enforced) == [
                            "/cors/classic.js?acao=*",
                            "/cors/redirect?to="
                                + (target.addingPercentEncoding(
                                    withAllowedCharacters: CharacterSet(charactersIn: "-_.!~*'()").union(.alphanumerics)) ?? ""),
                            "/cors/events?acao=*", "/ws", "/cors/module.js?beacon=1", "data", "blob",
                        ], "\(engine)")
                    #expect(violations.map(Self.items).allSatisfy { $0[0] == "connect-src" && $0[3] == "document" }, "\(engine)")
                    // The report-only policy reports the connections to the other origin, and blocks none.
                    #expect(violations.map(Self.items).contains { $0[1] == "/cors/api?acao=*" && $0[2] == "report" }, "\(engine)")
                    #expect(await Self.waitForReports(home, count: 1), "\(engine)")
                    let report = try #require(home.reports.first.flatMap(Self.report), "\(engine)")
                    #expect(report["effective-directive"] as? String == "connect-src", "\(engine)")
                    #expect(report["original-policy"] as? String == reportOnly, "\(engine)")
                    #expect((report["document-uri"] as? String)?.hasPrefix(home.url("/page").absoluteString) == true, "\(engine)")
                }
            }
        }
    }

    /// `upgrade-insecure-requests` sends a page's `http:` requests as `https:` (as the refused
    /// URL tells), and `base-uri` refuses a `<base href>` of another origin.
    @Test(arguments: Engine.allCases)
    func insecureRequestsAreUpgradedAndABaseRefused(engine: Engine) async throws {
        try await withSite { other in
            let page = """
                <base href="\(other.baseURL.absoluteString)/elsewhere/">
                <script>
                window.blocked = [];
                document.addEventListener("securitypolicyviolation", e => { if (e.effectiveDirective === "connect-src") blocked.push(e.blockedURI); });
                </script>
                """
            try await withSite(pages: ["/page": page]) { home in
                try await EngineHarness.with(engine, signIn: false) { harness in
                    let view = try await harness.makeEchoView()
                    let policy = "upgrade-insecure-requests; base-uri 'self'; connect-src 'none'"
                    let address = home.url("/page").absoluteString + "?csp=" + Self.encoded(policy)
                    _ = try await view.load(URL(string: address)!)
                    let seen = try await view.run(
                        """
                        const failed = await fetch("http://127.0.0.1:\(other.port)/x").then(() => "loaded", error => error.name);
                        await new Promise(resolve => setTimeout(resolve, 100));
                        return [document.baseURI, failed, blocked];
                        """)
                    #expect(seen == [.string(address), "TypeError", [.string("https://127.0.0.1:\(other.port)/x")]], "\(engine)")
                    #expect(other.requests.isEmpty, "\(engine)")
                }
            }
        }
    }

    /// A `<meta>` policy's `base-uri` applies to a `<base href>` after it, not to one before it.
    @Test(arguments: Engine.allCases)
    func aMetaPolicysBaseURIRefusesABaseAfterIt(engine: Engine) async throws {
        let elsewhere = "https://elsewhere.example/app/"
        let meta = #"<meta http-equiv="Content-Security-Policy" content="base-uri 'self'">"#
        let pages = ["/before": meta + #"<base href="\#(elsewhere)">"#, "/after": #"<base href="\#(elsewhere)">"# + meta]
        try await withSite(pages: pages) { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/before"))
                #expect(try await view.evaluate("document.baseURI") == .string(home.url("/before").absoluteString), "\(engine)")
                _ = try await view.load(home.url("/after"))
                #expect(try await view.evaluate("document.baseURI") == .string(elsewhere), "\(engine)")
            }
        }
    }

    /// A policy with `report-to` reports to the document's `Reporting-Endpoints` endpoint of
    /// that name, in the Reporting API's form, and not to its `report-uri`; to nothing when the
    /// document names no such endpoint.
    @Test(arguments: Engine.allCases)
    func reportToSendsTheReportToTheNamedEndpoint(engine: Engine) async throws {
        try await withSite(pages: ["/page": "<title>reporting</title>"]) { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                let policy = "connect-src 'self'; report-uri /csp/report?via=uri; report-to main"
                for endpoints in [#"main="/csp/report?via=endpoint""#, #"other="/csp/report""#] {
                    let address =
                        home.url("/page").absoluteString + "?csp=" + Self.encoded(policy) + "&endpoints=" + Self.encoded(endpoints)
                    _ = try await view.load(URL(string: address)!)
                    _ = try await view.run(#"await fetch("http://127.0.0.1:9999/x").catch(() => 0); return 0;"#)
                }
                #expect(await Self.waitForReports(home, count: 1), "\(engine)")
                try await Task.sleep(for: .milliseconds(300))
                #expect(home.reports.count == 1, "\(engine)")
                let object = try #require(
                    home.reports.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }, "\(engine)")
                let body = try #require(object["body"] as? [String: Any], "\(engine)")
                #expect(object["type"] as? String == "csp-violation" && object["csp-report"] == nil, "\(engine)")
                #expect(body["effectiveDirective"] as? String == "connect-src", "\(engine)")
                #expect(body["blockedURL"] as? String == "http://127.0.0.1:9999/x", "\(engine)")
                #expect(body["disposition"] as? String == "enforce", "\(engine)")
                #expect(home.requests.filter { $0.path == "/csp/report" }.map(\.query) == ["via=endpoint"], "\(engine)")
            }
        }
    }

    /// A `<meta>` policy refuses `eval` from where it stands, even in a page that froze `eval`
    /// and `Function` before it (as hardening libraries do), with no error of the page's.
    @Test(arguments: Engine.allCases)
    func aMetaPolicyRefusesEvalInAPageThatFrozeIt(engine: Engine) async throws {
        let page = ContentSecurityPages.evalFrozenBeforeMetaPolicy
        try await withSite(pages: ["/page": page]) { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                let seen = try await view.run("return [before, after, errors];")
                #expect(seen == [2, ["EvalError", "EvalError"], []], "\(engine)")
            }
        }
    }

    /// A page under a strict policy (no inline script without its nonce, no `eval`, connections
    /// to its own origin only) keeps its session: the bridge, the standard scripts and a refresh
    /// whose cookies its next request carries.
    @Test(arguments: Engine.allCases)
    func theSessionWorksUnderAStrictPolicy(engine: Engine) async throws {
        try await EngineHarness.with(engine) { harness in
            harness.server.serve(
                path: "/strict", body: "<!doctype html><title>strict</title><script nonce=\"n1\">window.started = true;</script>",
                contentType: "text/html; charset=utf-8",
                headers: ["Content-Security-Policy": "default-src 'self'; script-src 'nonce-n1'; object-src 'none'"])
            let view = try await harness.makeView()
            #expect(try await view.load(harness.url("/strict")).statusCode == 200)
            let refresh = try await view.run(ExampleScripts.body("02-page-refresh.js"))
            #expect(refresh.element(0)?.stringValue?.contains("\"ok\":true") == true, "\(engine)")
            #expect(refresh.element(2) == "GET /api/me with the new cookie: 200 demo", "\(engine)")
            let steal = try await view.run(ExampleScripts.body("06-steal-token.js"))
            #expect(steal == ["places where a refresh token was found: none"], "\(engine)")
        }
    }

    static func items(_ value: ScriptValue?) -> [ScriptValue] {
        if case .array(let items) = value { return items }
        return []
    }

    static func encoded(_ policy: String) -> String {
        policy.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    static func report(_ body: String) -> [String: Any]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
        #expect(object["type"] as? String == "csp-violation")
        return object["csp-report"] as? [String: Any]
    }

    static func waitForReports(_ site: TestSite, count: Int) async -> Bool {
        for _ in 0..<200 {
            if site.reports.count >= count { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
