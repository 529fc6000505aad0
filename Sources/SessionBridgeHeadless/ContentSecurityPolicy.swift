import Foundation
import OrderedCollections
import SessionBridgeMessaging
import SessionBridgeScriptEngine

/// A document's Content Security Policy (CSP Level 3), as WebKit enforces it: the policies of
/// its `Content-Security-Policy` fields (enforced), `Content-Security-Policy-Report-Only`
/// fields (reported only) and `<meta http-equiv="Content-Security-Policy">` elements
/// (enforced, from where they stand).
///
/// The directives a page without a DOM can break: `script-src`, `script-src-elem` and
/// `script-src-attr` (its scripts, module scripts and their imports, handler attributes),
/// `unsafe-eval` (`eval`, `Function`, a timer's code) and `connect-src` (`fetch`,
/// `XMLHttpRequest`, `EventSource`, `WebSocket`, beacons), each falling back to `default-src`.
/// Every policy must allow a load; a violation gives WebKit's console message, a
/// `securitypolicyviolation` event and, with `report-uri`, a report (``Violation``).
struct ContentSecurityPolicy: Sendable {
    /// Whether a policy blocks what it does not allow, or only reports it.
    enum Disposition: String, Sendable {
        case enforce
        case report
    }

    /// One policy: one field's value (or one of its comma-separated parts), or one `<meta>`.
    struct Policy: Sendable {
        /// The policy as written (`SecurityPolicyViolationEvent.originalPolicy`).
        var text: String
        var disposition: Disposition
        /// Directive name (lower-cased) → its source list; the first of a name counts.
        var directives: [String: SourceList] = [:]
        /// Each directive as written, for the message of a refused `eval`.
        var directiveTexts: [String: String] = [:]
        /// `report-uri`'s URLs, as written.
        var reportURIs: [String] = []
        /// `report-to`'s endpoint name: reports go there (the document's `Reporting-Endpoints`),
        /// and `report-uri` is ignored, as in WebKit.
        var reportTo: String?

        /// Parses one serialized policy (`directive value; directive value`).
        init(_ text: String, disposition: Disposition) {
            self.text = text.trimmingCharacters(in: Self.whitespace)
            self.disposition = disposition
            for part in self.text.split(separator: ";") {
                let tokens = part.split(whereSeparator: { $0.unicodeScalars.allSatisfy(Self.whitespace.contains) })
                guard let first = tokens.first else { continue }
                let name = first.lowercased()
                guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }), directives[name] == nil else {
                    continue
                }
                let values = tokens.dropFirst().map(String.init)
                if name == "report-uri" { reportURIs = values }
                if name == "report-to" { reportTo = values.first }
                directives[name] = SourceList(values)
                directiveTexts[name] = part.trimmingCharacters(in: Self.whitespace)
            }
        }

        static let whitespace = CharacterSet(charactersIn: " \t\n\r\u{0C}")

        /// The directive that governs `name` in this policy, by CSP's fallback lists: `nil` when
        /// none does (everything is allowed).
        func governing(_ name: String) -> (name: String, list: SourceList)? {
            let order: [String] =
                switch name {
                case "script-src-elem", "script-src-attr": [name, "script-src", "default-src"]
                case "worker-src": [name, "child-src", "script-src", "default-src"]
                default: [name, "default-src"]
                }
            for candidate in order { if let list = directives[candidate] { return (candidate, list) } }
            return nil
        }
    }

    /// A directive's value: its source expressions and keywords.
    struct SourceList: Sendable {
        var sources: [Source] = []
        var allowsSelf = false
        var unsafeInline = false
        var unsafeEval = false
        var unsafeHashes = false
        var strictDynamic = false
        var reportSample = false
        var nonces: Set<String> = []
        var hashes: [(algorithm: SubresourceIntegrity.Algorithm, digest: String)] = []

        init(_ values: [String]) {
            for value in values {
                let lower = value.lowercased()
                switch lower {
                case "'self'": allowsSelf = true
                case "'unsafe-inline'": unsafeInline = true
                case "'unsafe-eval'": unsafeEval = true
                case "'unsafe-hashes'": unsafeHashes = true
                case "'strict-dynamic'": strictDynamic = true
                case "'report-sample'": reportSample = true
                case "'none'": break
                default:
                    if lower.hasPrefix("'nonce-"), lower.hasSuffix("'"), value.count > 8 {
                        nonces.insert(String(value.dropFirst(7).dropLast()))
                    } else if lower.hasPrefix("'sha"), lower.hasSuffix("'"), let dash = value.firstIndex(of: "-"),
                        let algorithm = SubresourceIntegrity.Algorithm(name: value[value.index(after: value.startIndex)..<dash])
                    {
                        hashes.append((algorithm, SubresourceIntegrity.normalized(String(value[value.index(after: dash)...].dropLast()))))
                    } else if !value.hasPrefix("'"), let source = Source(value) {
                        // (Keywords this engine has nothing to apply to, `'wasm-unsafe-eval'` and the like, are left out.)
                        sources.append(source)
                    }
                }
            }
        }

        /// Whether inline content is allowed for its own sake: `'unsafe-inline'`, which a nonce,
        /// a hash or `'strict-dynamic'` in the same list turns off (CSP Level 3).
        var allowsAllInline: Bool { unsafeInline && nonces.isEmpty && hashes.isEmpty && !strictDynamic }

        func matchesNonce(_ nonce: String) -> Bool { !nonce.isEmpty && nonces.contains(nonce) }

        func matchesHash(of content: String) -> Bool {
            guard !hashes.isEmpty else { return false }
            let bytes = Array(content.utf8)
            return hashes.contains { $0.digest == $0.algorithm.digest(of: bytes) }
        }

        /// Whether `url` matches an expression of the list, for a document of origin `origin`
        /// (`'self'`); after a redirect, paths are not compared.
        func matches(_ url: URL, origin: SecurityOrigin?, redirected: Bool) -> Bool {
            guard let scheme = url.scheme?.lowercased() else { return false }
            if allowsSelf, let origin,
                Source.host(
                    scheme: origin.scheme, host: origin.host, port: .number(origin.port ?? Source.defaultPort(origin.scheme) ?? 0),
                    path: nil
                )
                .matches(url, scheme: scheme, originScheme: origin.scheme, redirected: redirected)
            {
                return true
            }
            return sources.contains { $0.matches(url, scheme: scheme, originScheme: origin?.scheme, redirected: redirected) }
        }
    }

    /// A scheme, host or `*` source expression.
    enum Source: Sendable {
        case star
        case scheme(String)
        case host(scheme: String?, host: String, port: Port, path: String?)

        enum Port: Sendable, Equatable {
            case none
            case any
            case number(Int)
        }

        init?(_ value: String) {
            if value == "*" {
                self = .star
                return
            }
            var rest = Substring(value)
            var scheme: String? = nil
            if let colon = rest.firstIndex(of: ":") {
                let candidate = rest[..<colon]
                if let first = candidate.first, first.isASCII, first.isLetter,
                    candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
                {
                    let after = rest[rest.index(after: colon)...]
                    if after.isEmpty {
                        self = .scheme(candidate.lowercased())
                        return
                    }
                    if after.hasPrefix("//") {
                        scheme = candidate.lowercased()
                        rest = after.dropFirst(2)
                    }
                }
            }
            let hostEnd = rest.firstIndex { $0 == ":" || $0 == "/" } ?? rest.endIndex
            let host = rest[..<hostEnd].lowercased()
            guard !host.isEmpty, host == "*" || host.hasPrefix("*.") || !host.contains("*") else { return nil }
            rest = rest[hostEnd...]
            var port = Port.none
            if rest.first == ":" {
                let portEnd = rest.firstIndex(of: "/") ?? rest.endIndex
                let text = rest[rest.index(after: rest.startIndex)..<portEnd]
                if text == "*" {
                    port = .any
                } else if let number = Int(text), (0...65_535).contains(number) {
                    port = .number(number)
                } else {
                    return nil
                }
                rest = rest[portEnd...]
            }
            let path = rest.isEmpty ? nil : (rest.removingPercentEncoding ?? String(rest))
            self = .host(scheme: scheme, host: host, port: port, path: path)
        }

        static func defaultPort(_ scheme: String) -> Int? { ["http": 80, "https": 443, "ws": 80, "wss": 443][scheme] }

        /// CSP's scheme-part match: `http` allows its secure upgrade and sockets, `ws` its
        /// secure upgrade.
        static func schemeMatches(_ expression: String, _ scheme: String) -> Bool {
            switch expression {
            case "http": ["http", "https", "ws", "wss"].contains(scheme)
            case "https": scheme == "https" || scheme == "wss"
            case "ws": scheme == "ws" || scheme == "wss"
            default: expression == scheme
            }
        }

        func matches(_ url: URL, scheme: String, originScheme: String?, redirected: Bool) -> Bool {
            switch self {
            case .star:
                return ["http", "https", "ws", "wss"].contains(scheme) || scheme == originScheme
            case .scheme(let expression):
                return Self.schemeMatches(expression, scheme)
            case .host(let expressionScheme, let host, let port, let path):
                if let expressionScheme {
                    guard Self.schemeMatches(expressionScheme, scheme) else { return false }
                } else {
                    guard let originScheme, Self.schemeMatches(originScheme, scheme) else { return false }
                }
                guard let urlHost = url.host?.lowercased(), !urlHost.isEmpty else { return false }
                if host == "*" {
                } else if host.hasPrefix("*.") {
                    guard urlHost.hasSuffix(host.dropFirst()) else { return false }
                } else if urlHost != host {
                    return false
                }
                let effective = url.port ?? Self.defaultPort(scheme)
                switch port {
                case .any: break
                case .none:
                    guard url.port == nil || effective == Self.defaultPort(scheme) else { return false }
                case .number(let number):
                    // A port of `http` allows its secure upgrade's default one.
                    guard effective == number || (number == 80 && effective == 443 && (scheme == "https" || scheme == "wss")) else {
                        return false
                    }
                }
                guard !redirected, let path else { return true }
                // The path as written, its trailing `/` kept (`URL.path` drops it), percent-decoded as the expression's is.
                let written = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
                let decoded = written.removingPercentEncoding ?? written
                let urlPath = decoded.isEmpty ? "/" : decoded
                return path.hasSuffix("/") ? urlPath.hasPrefix(path) : urlPath == path
            }
        }
    }

    /// A use of something a policy governs that it did not allow.
    struct Violation: Sendable {
        /// The directive the use falls under (`script-src-elem`, `connect-src`, ...):
        /// `SecurityPolicyViolationEvent.effectiveDirective` and `violatedDirective`.
        var directive: String
        /// `inline`, `eval`, or the URL refused.
        var blockedURI: String
        var disposition: Disposition
        var originalPolicy: String
        var reportURIs: [String]
        /// The policy's `report-to` endpoint name, which replaces ``reportURIs``.
        var reportTo: String? = nil
        /// WebKit's console message.
        var message: String
        /// What was refused, for policies with `'report-sample'`: its first 40 characters.
        var sample: String
        /// Where: the script (empty for a document's own element) and its line and column.
        var sourceFile = ""
        var line = 0
        var column = 0
    }

    var policies: [Policy] = []
    /// The document's origin (`'self'`).
    let origin: SecurityOrigin?

    init(origin: SecurityOrigin?) {
        self.origin = origin
    }

    /// Adds the policies of a field's value (comma-separated policies) or a `<meta>`'s
    /// content. A `<meta>` policy ignores `report-uri`, `frame-ancestors` and `sandbox`, and
    /// WebKit's console says so: the messages to log are returned.
    mutating func add(_ value: String, disposition: Disposition, fromMeta: Bool = false) -> [String] {
        var notices: [String] = []
        for part in value.split(separator: ",") {
            var policy = Policy(String(part), disposition: disposition)
            guard !policy.text.isEmpty else { continue }
            if fromMeta {
                for name in ["report-uri", "frame-ancestors", "sandbox"] where policy.directives[name] != nil {
                    notices.append("The Content Security Policy directive '\(name)' is ignored when delivered via an HTML meta element.")
                    policy.directives[name] = nil
                }
                policy.reportURIs = []
                policy.reportTo = nil
            }
            policies.append(policy)
        }
        return notices
    }

    var isEmpty: Bool { policies.isEmpty }

    /// Whether some policy has `'strict-dynamic'` in its script directives: WebKit then checks
    /// a document's scripts early, with messages of its own.
    var hasStrictDynamic: Bool {
        policies.contains { policy in
            ["script-src-elem", "script-src"].contains { policy.directives[$0]?.strictDynamic == true }
        }
    }

    // MARK: - Checks

    /// The verdict on a use: allowed (by every enforced policy), and each policy's violation.
    struct Verdict: Sendable {
        var allowed = true
        var violations: [Violation] = []
    }

    private func check(
        _ directive: String, blockedURI: String, shown: String? = nil, prefix: String, subject: String, messageDirective: String? = nil,
        sample: String = "", fallback: Bool = true, _ allows: (SourceList) -> Bool
    ) -> Verdict {
        var verdict = Verdict()
        for policy in policies {
            let governing = fallback ? policy.governing(directive) : policy.directives[directive].map { (directive, $0) }
            guard let (name, list) = governing, !allows(list) else { continue }
            if policy.disposition == .enforce { verdict.allowed = false }
            let named = messageDirective ?? directive
            let url = blockedURI == "inline" || blockedURI == "eval" ? "" : " " + (shown ?? blockedURI)
            let tail =
                name == "default-src"
                ? " appears in neither the \(named) directive nor the default-src directive of the Content Security Policy."
                : " does not appear in the \(named) directive of the Content Security Policy."
            let message = (policy.disposition == .report ? "[Report Only] " : "") + prefix + url + " because " + subject + tail
            verdict.violations.append(
                Violation(
                    directive: directive, blockedURI: blockedURI, disposition: policy.disposition, originalPolicy: policy.text,
                    reportURIs: policy.reportURIs, reportTo: policy.reportTo, message: message,
                    sample: list.reportSample ? String(sample.prefix(40)) : ""))
        }
        return verdict
    }

    /// A classic or module script written in the document (its `nonce` attribute and text).
    func inlineScript(nonce: String, source: String) -> Verdict {
        let early = hasStrictDynamic
        return check(
            "script-src-elem", blockedURI: "inline", prefix: "Refused to execute a script",
            subject: early ? "it" : "its hash, its nonce, or 'unsafe-inline'", messageDirective: "script-src", sample: source
        ) { list in
            list.allowsAllInline || list.matchesNonce(nonce) || list.matchesHash(of: source)
        }
    }

    /// The code of a navigation to a `javascript:` URL: `'unsafe-inline'`, or a hash of the code
    /// with `'unsafe-hashes'` (CSP's inline check of a navigation), with WebKit's words.
    func javaScriptURL(_ source: String) -> Verdict {
        check(
            "script-src-elem", blockedURI: "inline", prefix: "Refused to execute a script", subject: "its hash or 'unsafe-inline'",
            messageDirective: "script-src"
        ) { list in
            list.allowsAllInline || (list.unsafeHashes && list.matchesHash(of: source))
        }
    }

    /// A script loaded from `url`: a document's element (its `nonce`, and its `integrity`,
    /// whose digests a hash source allows), or a module another imports (the nonce of its
    /// graph's element). Under `'strict-dynamic'` only a nonce or a hash allows a document's
    /// element, and a module imported by an allowed one is allowed.
    func script(_ url: URL, nonce: String, integrity: String = "", imported: Bool = false, redirected: Bool = false) -> Verdict {
        let digests = integrity.isEmpty ? [] : SubresourceIntegrity.parse(integrity)
        return check(
            "script-src-elem", blockedURI: Self.reportable(url), shown: Self.shown(url), prefix: "Refused to load", subject: "it",
            messageDirective: "script-src"
        ) { list in
            if list.matchesNonce(nonce) { return true }
            if !digests.isEmpty, !list.hashes.isEmpty,
                digests.allSatisfy({ digest in list.hashes.contains { $0.algorithm == digest.algorithm && $0.digest == digest.digest } })
            {
                return true
            }
            if list.strictDynamic { return imported }
            return list.matches(url, origin: origin, redirected: redirected)
        }
    }

    /// A dedicated worker's script (`worker-src`, falling back to `child-src`, then to
    /// `script-src`, as CSP 3 has it).
    func worker(_ url: URL) -> Verdict {
        check("worker-src", blockedURI: Self.reportable(url), shown: Self.shown(url), prefix: "Refused to load", subject: "it") { list in
            list.matches(url, origin: origin, redirected: false)
        }
    }

    /// A handler attribute's code (`onload="…"`).
    func handlerAttribute(_ source: String) -> Verdict {
        check(
            "script-src-attr", blockedURI: "inline", prefix: "Refused to execute a script for an inline event handler",
            subject: "'unsafe-inline'", messageDirective: "script-src", sample: source
        ) { list in
            list.allowsAllInline || (list.unsafeHashes && list.matchesHash(of: source))
        }
    }

    /// Code from a string: `eval`, `Function`, a timer given code.
    func evaluation(sample: String = "") -> Verdict {
        check(
            "script-src", blockedURI: "eval", prefix: "Refused to execute a script", subject: "'unsafe-eval' and 'trusted-types-eval'",
            sample: sample
        ) { $0.unsafeEval }
    }

    /// A connection a script opens: `fetch`, `XMLHttpRequest`, `EventSource`, `WebSocket`, a beacon.
    func connection(to url: URL, redirected: Bool = false) -> Verdict {
        check("connect-src", blockedURI: Self.reportable(url), shown: Self.shown(url), prefix: "Refused to connect to", subject: "it") {
            list in
            list.matches(url, origin: origin, redirected: redirected)
        }
    }

    /// Whether an enforced policy has `upgrade-insecure-requests`: the document's `http:` and
    /// `ws:` subresource requests go to `https:` and `wss:` instead (``upgraded(_:)``).
    var upgradesInsecureRequests: Bool {
        policies.contains { $0.disposition == .enforce && $0.directives["upgrade-insecure-requests"] != nil }
    }

    /// `url` as `upgrade-insecure-requests` sends it: `https:` for `http:` (port 80 then the
    /// default), `wss:` for `ws:`.
    static func upgraded(_ url: URL) -> URL {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "ws",
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return url }
        components.scheme = scheme == "http" ? "https" : "wss"
        if components.port == 80 { components.port = nil }
        return components.url ?? url
    }

    /// A `<base href>`'s URL (`base-uri`, which falls back to nothing).
    func baseURI(_ url: URL) -> Verdict {
        check(
            "base-uri", blockedURI: Self.reportable(url), shown: Self.shown(url), prefix: "Refused to change the document base URL to",
            subject: "it",
            fallback: false
        ) { list in
            list.matches(url, origin: origin, redirected: false)
        }
    }

    /// The message of the `EvalError` JavaScriptCore throws for `eval` and `Function` when an
    /// enforced policy refuses them (WebKit's, naming the last such policy's directive);
    /// `nil` when none does.
    var evalRefusal: String? {
        var message: String?
        for policy in policies where policy.disposition == .enforce {
            guard let (name, list) = policy.governing("script-src"), !list.unsafeEval else { continue }
            let text = policy.directiveTexts[name] ?? name
            message =
                "Refused to evaluate a string as JavaScript because 'unsafe-eval' or 'trusted-types-eval' is not an allowed source of "
                + "script in the following Content Security Policy directive: \"\(text)\".\n"
        }
        return message
    }

    /// A URL as a violation shows it: without its fragment and credentials.
    static func reportable(_ url: URL) -> String {
        // A URL without a host (`data:`, `blob:`) is reported as its scheme alone, as WebKit reports it.
        if url.host == nil || url.host?.isEmpty == true, let scheme = url.scheme { return scheme.lowercased() }
        return shown(url)
    }

    /// A URL as the console's message shows it: without its fragment and credentials.
    static func shown(_ url: URL) -> String { Referrer.strippedURL(url) }

    // MARK: - Reports

    /// The body WebKit posts to a policy's `report-to` endpoint (the Reporting API's report,
    /// also sent as `application/csp-report`).
    static func endpointReport(_ violation: Violation, documentURI: String, referrer: String, statusCode: Int) -> [UInt8] {
        var body: OrderedDictionary<String, ScriptValue> = [
            "documentURL": .string(documentURI), "disposition": .string(violation.disposition.rawValue), "referrer": .string(referrer),
            "effectiveDirective": .string(violation.directive), "blockedURL": .string(violation.blockedURI),
            "originalPolicy": .string(violation.originalPolicy), "statusCode": .number(Double(statusCode)),
            "sample": .string(violation.sample),
        ]
        if !violation.sourceFile.isEmpty {
            body["sourceFile"] = .string(violation.sourceFile)
            body["lineNumber"] = .number(Double(violation.line))
            body["columnNumber"] = .number(Double(violation.column))
        }
        return json(["type": "csp-violation", "url": .string(documentURI), "body": .object(body)])
    }

    /// The body WebKit posts to a policy's `report-uri` (`application/csp-report`).
    static func report(_ violation: Violation, documentURI: String, referrer: String, statusCode: Int) -> [UInt8] {
        var report: OrderedDictionary<String, ScriptValue> = [
            "document-uri": .string(documentURI), "referrer": .string(referrer), "violated-directive": .string(violation.directive),
            "effective-directive": .string(violation.directive), "original-policy": .string(violation.originalPolicy),
            "blocked-uri": .string(violation.blockedURI), "status-code": .number(Double(statusCode)),
        ]
        if !violation.sourceFile.isEmpty {
            report["source-file"] = .string(violation.sourceFile)
            report["line-number"] = .number(Double(violation.line))
            report["column-number"] = .number(Double(violation.column))
        }
        if !violation.sample.isEmpty { report["script-sample"] = .string(violation.sample) }
        return json(["type": "csp-violation", "url": .string(documentURI), "csp-report": .object(report)])
    }

    /// A report's JSON text (its strings, numbers and objects only, which ``ScriptValue`` writes as JSON).
    private static func json(_ value: ScriptValue) -> [UInt8] { Array(value.description.utf8) }
}
