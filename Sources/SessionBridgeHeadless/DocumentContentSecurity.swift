import Foundation
import OrderedCollections
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import Synchronization

/// A document's Content Security Policy as it grows (its fields when it commits, each
/// `<meta>` policy once the document reaches it), and what its violations report.
final class DocumentContentSecurity: Sendable {
    private let state = Mutex<ContentSecurityPolicy?>(nil)
    /// Whether ``state`` holds a policy: most documents have none, and their loads read this alone.
    private let present = Atomic<Bool>(false)
    private let reportsSent = Atomic<Int>(0)
    /// The document's status code, as violations report it (WebKit's: 0 for a secure document).
    let statusCode: Int
    /// A document's reports to its `report-uri` stop after this many (a page that loops on a
    /// refused load would otherwise send one per turn).
    static let maximumReports = 100

    /// The document's `Reporting-Endpoints`: name → URL (as written), for `report-to`.
    let endpoints: [String: String]

    init(statusCode: Int = 0, endpoints: [String: String] = [:]) {
        self.statusCode = statusCode
        self.endpoints = endpoints
    }

    /// The endpoints of `Reporting-Endpoints` fields (a Structured Fields dictionary of strings,
    /// `csp="/reports", main="https://r.example/x"`); members that are not strings are left out.
    static func reportingEndpoints(_ values: [String]) -> [String: String] {
        var endpoints: [String: String] = [:]
        for value in values {
            var rest = Substring(value)
            while !rest.isEmpty {
                rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
                let key = rest.prefix { $0.isASCII && ($0.isLowercase || $0.isNumber || "_-.*".contains($0)) }
                rest = rest.dropFirst(key.count)
                guard !key.isEmpty, rest.first == "=", rest.dropFirst().first == "\"" else {
                    rest = rest.drop { $0 != "," }
                    continue
                }
                rest = rest.dropFirst(2)
                var url = ""
                while let character = rest.first, character != "\"" {
                    rest = rest.dropFirst()
                    if character == "\\", let escaped = rest.first {
                        url.append(escaped)
                        rest = rest.dropFirst()
                    } else {
                        url.append(character)
                    }
                }
                if rest.first == "\"" { endpoints[String(key)] = url }
                rest = rest.drop { $0 != "," }
            }
        }
        return endpoints
    }

    /// Whether a policy came from the document's fields (not only from `<meta>`): its elements'
    /// nonces are then hidden from `getAttribute`.
    var hasFieldPolicy: Bool { fieldPolicy.load(ordering: .relaxed) }
    private let fieldPolicy = Atomic<Bool>(false)

    /// The policy now; `nil` for a document that has none (nothing is checked).
    var policy: ContentSecurityPolicy? { present.load(ordering: .acquiring) ? state.withLock { $0 } : nil }

    /// Adds a field's or a `<meta>`'s policies; returns the console's notices for what a
    /// `<meta>` policy ignores.
    @discardableResult
    func add(_ value: String, disposition: ContentSecurityPolicy.Disposition, fromMeta: Bool = false, origin: SecurityOrigin?) -> [String] {
        state.withLock { policy in
            var updated = policy ?? ContentSecurityPolicy(origin: origin)
            let notices = updated.add(value, disposition: disposition, fromMeta: fromMeta)
            policy = updated.isEmpty ? nil : updated
            present.store(policy != nil, ordering: .releasing)
            if !fromMeta, policy != nil { fieldPolicy.store(true, ordering: .relaxed) }
            return notices
        }
    }

    /// `url` as the document's policy sends a subresource request for it
    /// (`upgrade-insecure-requests`).
    func upgraded(_ url: URL) -> URL {
        guard let policy, policy.upgradesInsecureRequests else { return url }
        return ContentSecurityPolicy.upgraded(url)
    }

    /// Whether one more report may be sent.
    func takeReport() -> Bool {
        reportsSent.add(1, ordering: .relaxed).newValue <= Self.maximumReports
    }
}

extension DocumentEnvironment {
    /// The policy's fields of a response: `Content-Security-Policy` (enforced) and
    /// `Content-Security-Policy-Report-Only`.
    static func contentSecurityFields(of headers: [HTTPHeader]) -> [(String, ContentSecurityPolicy.Disposition)] {
        headers.compactMap { field in
            switch field.name.lowercased() {
            case "content-security-policy": (field.value, .enforce)
            case "content-security-policy-report-only": (field.value, .report)
            default: nil
            }
        }
    }

    /// Reports a verdict's violations as WebKit does: its console message each, and a report
    /// to the policy's `report-uri`. `location` is where it happened (a script's URL and
    /// line); a document's own element has its line only.
    @discardableResult
    func report(
        _ verdict: ContentSecurityPolicy.Verdict, script: WebPage.DocumentScript? = nil, location: (url: String, line: Int)? = nil,
        console: Bool = true
    ) -> [ContentSecurityPolicy.Violation] {
        verdict.violations.map { violation in
            var violation = violation
            if console { loader.events?(.console(ConsoleMessage(level: .error, text: violation.message), url: url)) }
            if let location {
                violation.sourceFile = location.url
                violation.line = location.line
            } else if let script {
                violation.line = script.line
            }
            sendReports(of: violation)
            return violation
        }
    }

    /// Reports them, and fires each one's `securitypolicyviolation` event in the page's world
    /// (`context`), at the `<script>` element it concerns or at the document.
    func report(
        _ verdict: ContentSecurityPolicy.Verdict, script: WebPage.DocumentScript? = nil, location: (url: String, line: Int)? = nil,
        console: Bool = true, in context: isolated ScriptContext
    ) {
        for violation in report(verdict, script: script, location: location, console: console) {
            Self.dispatchViolation(violation, environment: self, script: script, in: context)
        }
    }

    /// Checks a connection a script opens (`connect-src`) and reports what the policy refuses;
    /// throws when an enforced policy refuses it.
    func checkConnection(to target: URL, in context: isolated ScriptContext) throws(PageError) {
        guard let policy = contentSecurity.policy else { return }
        let verdict = policy.connection(to: target)
        report(verdict, location: verdict.violations.isEmpty ? nil : context.callerLocation(), in: context)
        if !verdict.allowed { throw PageError(.contentSecurityPolicy, "refused by the document's Content Security Policy", url: target) }
    }

    /// Checks a worker's script (`worker-src`) and reports what the policy refuses; throws
    /// WebKit's `SecurityError` when an enforced policy refuses it.
    func checkWorker(_ url: URL, in context: isolated ScriptContext) throws(ScriptThrow) {
        guard let policy = contentSecurity.policy else { return }
        let verdict = policy.worker(url)
        report(verdict, location: verdict.violations.isEmpty ? nil : context.callerLocation(), in: context)
        if !verdict.allowed { throw ScriptThrow("SecurityError", "The operation is insecure.") }
    }

    /// Checks a redirect of a script's connection, its path not compared (CSP); a violation
    /// names the URL first asked for, as in WebKit.
    func checkRedirect(of original: URL, to target: URL) throws(PageError) {
        guard let policy = contentSecurity.policy else { return }
        try enforce(policy.connection(to: target, redirected: true), onRedirectOf: original, to: target)
    }

    /// Checks a redirect of a script's load (`script-src`, its path not compared): a nonce or an
    /// `integrity` hash the policy allows still allows it, and a module another imports under
    /// `'strict-dynamic'`; a violation names the URL first asked for, as a connection's does.
    func checkScriptRedirect(of original: URL, to target: URL, nonce: String, integrity: String, imported: Bool) throws(PageError) {
        guard let policy = contentSecurity.policy else { return }
        let verdict = policy.script(target, nonce: nonce, integrity: integrity, imported: imported, redirected: true)
        try enforce(verdict, onRedirectOf: original, to: target)
    }

    /// Reports a redirect's verdict (its violations naming `original`, as in WebKit), fires
    /// their events in the shown document, and throws when an enforced policy refuses it.
    private func enforce(_ verdict: ContentSecurityPolicy.Verdict, onRedirectOf original: URL, to target: URL) throws(PageError) {
        var verdict = verdict
        for index in verdict.violations.indices { verdict.violations[index].blockedURI = ContentSecurityPolicy.reportable(original) }
        let violations = report(verdict)
        if !violations.isEmpty { page.page?.dispatchViolations(violations, environment: self) }
        if !verdict.allowed { throw PageError(.contentSecurityPolicy, "refused by the document's Content Security Policy", url: target) }
    }

    /// Posts a violation's report: to its policy's `report-to` endpoint (the Reporting API's
    /// report; none when the document names no such endpoint), or else to each `report-uri`.
    private func sendReports(of violation: ContentSecurityPolicy.Violation) {
        let documentURI = ContentSecurityPolicy.reportable(url), status = contentSecurity.statusCode
        let body: [UInt8]
        let targets: [String]
        if let group = violation.reportTo {
            guard let endpoint = contentSecurity.endpoints[group] else { return }
            body = ContentSecurityPolicy.endpointReport(violation, documentURI: documentURI, referrer: referrer, statusCode: status)
            targets = [endpoint]
        } else {
            guard !violation.reportURIs.isEmpty else { return }
            body = ContentSecurityPolicy.report(violation, documentURI: documentURI, referrer: referrer, statusCode: status)
            targets = violation.reportURIs
        }
        for target in targets {
            guard let reportURL = URLResolution.resolve(target, against: url),
                ["http", "https"].contains(reportURL.scheme?.lowercased() ?? ""), contentSecurity.takeReport()
            else { continue }
            let request = PageRequest(
                url: reportURL, method: "POST", headers: [HTTPHeader("Content-Type", "application/csp-report")], body: body)
            let loader = self.loader, tracker = self.tracker, document = url
            let context = subresourceContext(for: reportURL, method: "POST")
            let sameOrigin = SecurityOrigin(url: reportURL) == SecurityOrigin(url: document)
            tracker.begin()
            Task {
                defer { tracker.end() }
                _ = try? await loader.load(
                    request, initiator: .fetch, fields: UserAgentFields(destination: "report", mode: "no-cors", initiator: document),
                    mixedContentFrom: document, reportsFailure: false
                ) { _ in sameOrigin ? .include(context) : .omit }
            }
        }
    }

    /// Makes `eval`, `Function` and a timer's code throw WebKit's `EvalError` in a world (a
    /// document's page world, a worker's scope) whose policy refuses them, each refusal reported.
    static func applyEvalPolicy(of environment: DocumentEnvironment, in context: isolated ScriptContext) {
        guard let policy = environment.contentSecurity.policy, let message = policy.evalRefusal else { return }
        context.refuseCodeFromStrings(message: message) { context, code in
            guard let policy = environment.contentSecurity.policy else { return }
            environment.report(policy.evaluation(sample: code), location: context.callerLocation(), in: context)
        }
        refuseEval(in: context)
    }

    /// Makes the page world's `eval` and `Function` report their refusals (once).
    static func refuseEval(in context: isolated ScriptContext) {
        guard let controls = context.attachment(DocumentControls.self), let refuse = unsafe controls.refuseEval else { return }
        context.enterJavaScript()
        do {
            try unsafe context.call(refuse, [])
        } catch {
            context.report(.uncaughtError(error))
        }
        context.leaveJavaScript()
    }

    static func dispatchViolation(
        _ violation: ContentSecurityPolicy.Violation, environment: DocumentEnvironment, script: WebPage.DocumentScript?,
        in context: isolated ScriptContext
    ) {
        guard let controls = context.attachment(DocumentControls.self), let dispatch = unsafe controls.violation else { return }
        let members: ScriptValue = .object([
            "documentURI": .string(ContentSecurityPolicy.reportable(environment.url)), "referrer": .string(environment.referrer),
            "blockedURI": .string(violation.blockedURI), "violatedDirective": .string(violation.directive),
            "effectiveDirective": .string(violation.directive), "originalPolicy": .string(violation.originalPolicy),
            "sourceFile": .string(violation.sourceFile), "sample": .string(violation.sample),
            "disposition": .string(violation.disposition.rawValue),
            "statusCode": .number(Double(environment.contentSecurity.statusCode)),
            "lineNumber": .number(Double(violation.line)), "columnNumber": .number(Double(violation.sourceFile.isEmpty ? 1 : 0)),
        ])
        let arguments: [RawValue?] = unsafe [
            context.jsValue(members), context.jsValue(.number(Double(script?.index ?? -1))),
            context.jsValue(.string(script?.src ?? "")), context.jsValue(attributesValue(script?.attributes ?? [:])),
            context.jsValue(.number(Double(script?.line ?? 0))),
        ]
        context.enterJavaScript()
        do {
            try unsafe context.call(dispatch, arguments)
        } catch {
            context.report(.uncaughtError(error))
        }
        context.leaveJavaScript()
    }
}
