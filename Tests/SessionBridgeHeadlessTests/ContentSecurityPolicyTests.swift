import Crypto
import Foundation
import PropertyBased
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Synchronization
import Testing

@testable import SessionBridgeHeadless

/// Content Security Policy Level 3's matching, fallbacks and keywords, and WebKit's words for a
/// violation, without a network. (Both engines on the wire: `ContentSecurityOnBothEnginesTests`.)
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct ContentSecurityPolicyTests {
    static let origin = SecurityOrigin("https://app.example")

    static func policy(_ text: String, _ disposition: ContentSecurityPolicy.Disposition = .enforce) -> ContentSecurityPolicy {
        var policy = ContentSecurityPolicy(origin: origin)
        _ = policy.add(text, disposition: disposition)
        return policy
    }

    static func connects(_ text: String, _ url: String, redirected: Bool = false) -> Bool {
        policy(text).connection(to: URL(string: url)!, redirected: redirected).allowed
    }

    @Test(
        arguments: [
            // source list, URL, allowed
            ("'self'", "https://app.example/api", true),
            ("'self'", "https://app.example:443/api", true),
            ("'self'", "wss://app.example/socket", true),
            ("'self'", "http://app.example/api", false),
            ("'self'", "https://api.app.example/", false),
            ("'none'", "https://app.example/", false),
            ("*", "https://anywhere.test/x", true),
            ("*", "data:text/plain,x", false),
            ("https:", "https://anywhere.test/", true),
            ("https:", "http://anywhere.test/", false),
            ("http:", "https://anywhere.test/", true),
            ("api.example", "https://api.example/v1", true),
            ("api.example", "http://api.example/v1", false),
            ("api.example", "https://api.example:8443/v1", false),
            ("api.example:*", "https://api.example:8443/v1", true),
            ("http://api.example:80", "https://api.example/", true),
            ("*.example", "https://a.b.example/", true),
            ("*.example", "https://example/", false),
            ("https://API.Example/v1/", "https://api.example/v1/users", true),
            ("https://api.example/v1/", "https://api.example/v1/", true),
            ("https://api.example/v1/", "https://api.example/v1", false),
            ("https://api.example/v1/", "https://api.example/v1/a%2Fb", true),
            ("https://api.example/v1/", "https://api.example/v2/users", false),
            ("https://api.example/v1/users", "https://api.example/v1/users?x=1", true),
            ("https://api.example/v1/users", "https://api.example/v1/users/2", false),
            ("https://api.example/v1/%75sers", "https://api.example/v1/users", true),
            ("wss://socket.example", "wss://socket.example/", true),
            ("ws:", "wss://socket.example/", true),
        ])
    func connectSourcesMatchAsCSPMatchesThem(sources: String, url: String, allowed: Bool) {
        #expect(Self.connects("connect-src \(sources)", url) == allowed, "\(sources) \(url)")
    }

    @Test func pathsAreNotComparedAfterARedirect() {
        #expect(!Self.connects("connect-src https://api.example/v1/", "https://api.example/v2/x"))
        #expect(Self.connects("connect-src https://api.example/v1/", "https://api.example/v2/x", redirected: true))
        #expect(!Self.connects("connect-src https://api.example/v1/", "https://other.example/v1/", redirected: true))
    }

    @Test func directivesFallBackAndEveryPolicyMustAllow() {
        let url = URL(string: "https://cdn.example/lib.js")!
        #expect(Self.policy("default-src 'self'").script(url, nonce: "").allowed == false)
        #expect(Self.policy("default-src 'self'; script-src cdn.example").script(url, nonce: "").allowed)
        #expect(Self.policy("script-src cdn.example; script-src 'none'").script(url, nonce: "").allowed, "the first of a name counts")
        #expect(Self.policy("img-src 'none'").script(url, nonce: "").allowed, "nothing governs scripts")
        // Two policies (a field's comma): both must allow.
        #expect(!Self.policy("script-src cdn.example, script-src 'self'").script(url, nonce: "").allowed)
        // A report-only policy reports and blocks nothing.
        let reported = Self.policy("script-src 'self'", .report).script(url, nonce: "")
        #expect(reported.allowed && reported.violations.count == 1 && reported.violations[0].disposition == .report)
    }

    @Test func inlineScriptsNeedTheirNonceOrHash() {
        let source = "ran()"
        let hash = "sha256-" + Data(SHA256.hash(data: Data(source.utf8))).base64EncodedString()
        let base64url = hash.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        #expect(Self.policy("script-src 'unsafe-inline'").inlineScript(nonce: "", source: source).allowed)
        // A nonce or a hash turns `'unsafe-inline'` off.
        #expect(!Self.policy("script-src 'unsafe-inline' 'nonce-abc'").inlineScript(nonce: "", source: source).allowed)
        #expect(Self.policy("script-src 'unsafe-inline' 'nonce-abc'").inlineScript(nonce: "abc", source: source).allowed)
        #expect(!Self.policy("script-src 'nonce-abc'").inlineScript(nonce: "ABC", source: source).allowed)
        #expect(Self.policy("script-src '\(hash)'").inlineScript(nonce: "", source: source).allowed)
        #expect(Self.policy("script-src '\(base64url)'").inlineScript(nonce: "", source: source).allowed)
        #expect(!Self.policy("script-src '\(hash)'").inlineScript(nonce: "", source: source + " ").allowed)
        // `script-src-elem` governs elements; `script-src-attr` handler attributes.
        #expect(Self.policy("script-src 'none'; script-src-elem 'unsafe-inline'").inlineScript(nonce: "", source: source).allowed)
        #expect(!Self.policy("script-src 'none'; script-src-elem 'unsafe-inline'").handlerAttribute(source).allowed)
        #expect(Self.policy("script-src-attr 'unsafe-hashes' '\(hash)'").handlerAttribute(source).allowed)
        #expect(
            !Self.policy("script-src-attr '\(hash)'").handlerAttribute(source).allowed,
            "a hash allows an attribute only with 'unsafe-hashes'")
    }

    @Test func strictDynamicTrustsNoncesAndWhatTheyLoad() {
        let policy = Self.policy("script-src 'nonce-n' 'strict-dynamic' https: 'self' 'unsafe-inline'")
        let url = URL(string: "https://app.example/a.js")!
        #expect(!policy.script(url, nonce: "").allowed, "source expressions count for nothing beside it")
        #expect(policy.script(url, nonce: "n").allowed)
        #expect(policy.script(URL(string: "https://elsewhere.test/b.js")!, nonce: "", imported: true).allowed)
        #expect(!policy.inlineScript(nonce: "", source: "x").allowed, "nor does 'unsafe-inline'")
        #expect(policy.hasStrictDynamic)
        // An element's `integrity` whose every digest is a hash source of the list (CSP Level 3).
        let digest = "sha256-" + Data(SHA256.hash(data: Data("lib".utf8))).base64EncodedString()
        let hashed = Self.policy("script-src 'strict-dynamic' '\(digest)'")
        #expect(hashed.script(url, nonce: "", integrity: digest).allowed)
        #expect(!hashed.script(url, nonce: "", integrity: digest + " sha256-AAAA").allowed)
        #expect(!hashed.script(url, nonce: "").allowed)
    }

    @Test func evalNeedsUnsafeEval() {
        #expect(Self.policy("default-src 'self'").evalRefusal != nil)
        #expect(Self.policy("default-src 'self' 'unsafe-eval'").evalRefusal == nil)
        #expect(Self.policy("script-src 'self'", .report).evalRefusal == nil, "a report-only policy refuses nothing")
        #expect(Self.policy("connect-src 'self'").evalRefusal == nil)
        #expect(
            Self.policy("default-src 'self'; script-src 'self' https:").evalRefusal
                == "Refused to evaluate a string as JavaScript because 'unsafe-eval' or 'trusted-types-eval' is not an allowed "
                + "source of script in the following Content Security Policy directive: \"script-src 'self' https:\".\n")
    }

    @Test func violationsSayWhatWebKitSays() {
        let url = URL(string: "https://user:pw@cdn.example/lib.js#part")!
        #expect(
            Self.policy("script-src 'self'").script(url, nonce: "").violations.first?.message
                == "Refused to load https://cdn.example/lib.js because it does not appear in the script-src directive of the Content "
                + "Security Policy.")
        #expect(
            Self.policy("default-src 'self'", .report).connection(to: url).violations.first?.message
                == "[Report Only] Refused to connect to https://cdn.example/lib.js because it appears in neither the connect-src "
                + "directive nor the default-src directive of the Content Security Policy.")
        #expect(
            Self.policy("script-src 'self'").inlineScript(nonce: "", source: "x").violations.first?.message
                == "Refused to execute a script because its hash, its nonce, or 'unsafe-inline' does not appear in the script-src "
                + "directive of the Content Security Policy.")
        #expect(
            Self.policy("script-src 'self'").handlerAttribute("x").violations.first?.message
                == "Refused to execute a script for an inline event handler because 'unsafe-inline' does not appear in the "
                + "script-src directive of the Content Security Policy.")
        // A URL without a host is reported as its scheme; the console shows it whole.
        let data = Self.policy("connect-src 'self'").connection(to: URL(string: "data:,secret")!).violations[0]
        #expect(data.blockedURI == "data" && data.message.hasPrefix("Refused to connect to data:,secret because"))
        let violation = Self.policy("script-src 'self' 'report-sample'").inlineScript(nonce: "", source: String(repeating: "a", count: 60))
            .violations[0]
        #expect(violation.sample.count == 40 && violation.directive == "script-src-elem" && violation.blockedURI == "inline")
    }

    @Test func insecureRequestsAreUpgradedAndBasesChecked() {
        #expect(Self.policy("upgrade-insecure-requests").upgradesInsecureRequests)
        #expect(!Self.policy("upgrade-insecure-requests", .report).upgradesInsecureRequests)
        #expect(ContentSecurityPolicy.upgraded(URL(string: "http://a.test:80/x?y")!).absoluteString == "https://a.test/x?y")
        #expect(ContentSecurityPolicy.upgraded(URL(string: "http://a.test:8080/x")!).absoluteString == "https://a.test:8080/x")
        #expect(ContentSecurityPolicy.upgraded(URL(string: "ws://a.test/s")!).absoluteString == "wss://a.test/s")
        #expect(ContentSecurityPolicy.upgraded(URL(string: "data:,x")!).absoluteString == "data:,x")
        let base = URL(string: "https://cdn.example/")!
        #expect(!Self.policy("base-uri 'self'").baseURI(base).allowed)
        #expect(Self.policy("default-src 'none'").baseURI(base).allowed, "base-uri falls back to nothing")
        #expect(
            Self.policy("base-uri 'none'").baseURI(base).violations.first?.message
                == "Refused to change the document base URL to https://cdn.example/ because it does not appear in the base-uri "
                + "directive of the Content Security Policy.")
    }

    @Test func aMetaPolicyIgnoresWhatOnlyAFieldMayDeliver() {
        var policy = ContentSecurityPolicy(origin: Self.origin)
        let notices = policy.add("script-src 'self'; report-uri /r; sandbox; frame-ancestors 'none'", disposition: .enforce, fromMeta: true)
        #expect(notices.count == 3)
        #expect(notices.first == "The Content Security Policy directive 'report-uri' is ignored when delivered via an HTML meta element.")
        #expect(policy.policies.first?.reportURIs.isEmpty == true)
    }

    @Test func reportsAreWebKitsJSON() throws {
        var violation = Self.policy("connect-src 'self'; report-uri /r").connection(to: URL(string: "https://x.test/\"q")!).violations[0]
        violation.sourceFile = "https://app.example/app.js"
        violation.line = 3
        let body = ContentSecurityPolicy.report(violation, documentURI: "https://app.example/", referrer: "", statusCode: 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        #expect(object["type"] as? String == "csp-violation")
        let report = try #require(object["csp-report"] as? [String: Any])
        #expect(report["blocked-uri"] as? String == "https://x.test/%22q")
        #expect(report["effective-directive"] as? String == "connect-src")
        #expect(report["original-policy"] as? String == "connect-src 'self'; report-uri /r")
        #expect(report["line-number"] as? Int == 3 && report["source-file"] as? String == "https://app.example/app.js")
    }

    @Test func reportToNamesAnEndpointOfTheDocument() throws {
        #expect(
            DocumentContentSecurity.reportingEndpoints([#"csp="/r", main="https://r.example/a?b=\"c\"";p=1"#, "bad=token, x=\"/x\""]) == [
                "csp": "/r", "main": "https://r.example/a?b=\"c\"", "x": "/x",
            ])
        let violation = Self.policy("connect-src 'none'; report-uri /old; report-to csp").connection(to: URL(string: "https://x.test/")!)
            .violations[0]
        #expect(violation.reportTo == "csp" && violation.reportURIs == ["/old"])
        let body = ContentSecurityPolicy.endpointReport(violation, documentURI: "https://app.example/", referrer: "", statusCode: 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        let report = try #require(object["body"] as? [String: Any])
        #expect(object["url"] as? String == "https://app.example/" && report["blockedURL"] as? String == "https://x.test/")
        #expect(report["effectiveDirective"] as? String == "connect-src" && report["sourceFile"] == nil)
    }

    /// A `<meta>` policy refusing `eval` in a page that froze `eval` and `Function` before it
    /// (as hardening libraries do) leaves them as they are, and reports no error of its own: a
    /// run of such a page ends as WebKit's does.
    @Test func aPageThatFrozeEvalBeforeAMetaPolicyHasNoErrorOfTheEngines() async throws {
        let errors = Mutex<[String]>([])
        let page = WebPage(
            configuration: WebPageConfiguration(eventHandler: { event in
                if case .scriptError(let error, _, _) = event { errors.withLock { $0.append(error.message) } }
            }))
        try await page.loadHTMLString(ContentSecurityPages.evalFrozenBeforeMetaPolicy, baseURL: URL(string: "https://app.example/")!)
        #expect(try await page.evaluateJavaScript("after") == ["EvalError", "EvalError"])
        #expect(errors.withLock { $0 }.isEmpty)
        await page.close()
    }

    /// What a server writes in its policy is its own: any text is read, and the verdicts keep
    /// their rules (a report-only policy blocks nothing; `'none'` alone allows nothing).
    @Test func anyPolicyIsRead() async {
        let pieces = [
            "script-src", "connect-src", "default-src", "script-src-attr", " ", ";", ",", "'self'", "'none'", "'unsafe-inline'",
            "'unsafe-eval'", "'strict-dynamic'", "'nonce-", "'sha256-", "'", "*", "*.", "https:", "http://", "a.test", ":", "*",
            "443", "/", "/p/", "%", "report-uri", "\u{0}", "é", "\t",
        ]
        await propertyCheck(count: 2000, input: Gen.int(in: 0...(pieces.count - 1)).array(of: 0...24)) { indices in
            let text = indices.map { pieces[$0] }.joined()
            let url = URL(string: "https://a.test/p/x")!
            let reportOnly = Self.policy(text, .report)
            #expect(reportOnly.connection(to: url).allowed && reportOnly.script(url, nonce: "n").allowed)
            #expect(reportOnly.inlineScript(nonce: "", source: text).allowed && reportOnly.evalRefusal == nil)
            let enforced = Self.policy(text + "; connect-src 'none'")
            _ = enforced.script(url, nonce: "")
            _ = enforced.handlerAttribute(text)
            if !text.contains("connect-src") { #expect(!enforced.connection(to: url).allowed) }
        }
    }
}
