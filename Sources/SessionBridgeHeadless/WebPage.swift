public import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTPCompression
public import SessionBridgeCookies
import SessionBridgeHTTP
public import SessionBridgeMessaging
public import SessionBridgeScriptEngine
import Synchronization

/// A headless embedded web view: what a `WKWebView` is to an app, minus rendering.
///
/// It loads pages over real HTTP with the cookies of its ``WebsiteDataStore``, runs their
/// scripts in JavaScriptCore with `window.webkit.messageHandlers`, `fetch`, `document.cookie`,
/// `location` and timers, and asks its ``NavigationDelegate`` before every navigation, so native
/// code can refresh a session and write cookies before the request leaves.
///
/// ```swift
/// let page = WebPage(configuration: WebPageConfiguration(userContentController: controller))
/// try await page.load(URL(string: "http://127.0.0.1:8080/app")!)
/// _ = await page.runUntilQuiescent(timeout: .seconds(5))
/// ```
///
/// The page is an actor on its engine thread: every script runs there. A page with a
/// ``UIDelegate`` runs on a lane of that thread, with a VM of its own, so that its panels
/// suspend that page only (see ``WebPageConfiguration/thread``).
///
/// App code that makes several calls on a page in a row can run isolated to it, as a
/// `WKWebView` app's `@MainActor` code drives its view; each call then takes no hop between the
/// app's executor and the page's thread:
///
/// ```swift
/// func refreshAndOpen(_ page: isolated WebPage, _ url: URL) async throws {
///     _ = try await page.callAsyncJavaScript("return await sessionBridge.refresh()")
///     try await page.load(url)
/// }
/// ```
public actor WebPage {
    /// The client pages use unless configured otherwise (``defaultHTTPClientConfiguration``).
    public static let defaultHTTPClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: defaultHTTPClientConfiguration)

    /// It never follows redirects itself, and a connection the server refuses fails the load at
    /// once, as in WebKit (the client's own retries would hold the page until the connect
    /// timeout). As a browser does, it asks for compressed bodies (`Accept-Encoding: deflate,
    /// gzip`) and hands on their decoded bytes, the response's fields as the server sent them
    /// (a script reads `Content-Encoding: gzip`); a body may not decode to more than
    /// ``decodedBodyLimit`` bytes (the page's own `maxResponseBytes` is smaller by default). An
    /// answer with a status code below 100 fails the load (`refusingMalformedStatusCodes()`).
    package static var defaultHTTPClientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: .seconds(30)),
            decompression: .enabled(limit: .size(decodedBodyLimit)))
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.refusingMalformedStatusCodes()
        return configuration
    }

    /// The most a compressed response body of the default client may decode to.
    package static let decodedBodyLimit = 256 << 20

    public nonisolated let configuration: WebPageConfiguration
    /// Its documents' session history (``SessionHistory``).
    var sessionHistory = SessionHistory()
    /// The executor the page's scripts run on: an engine thread, or for a page with a
    /// ``UIDelegate`` a lane of one (its `EngineThread.hostThread`).
    public nonisolated let thread: EngineThread
    let tracker = ActivityTracker()
    private var documents: [ContentWorld: ScriptContext] = [:]
    /// The shown document's environment, `nil` while a new one commits.
    private var shown: DocumentEnvironment?
    /// Counts the documents shown, so that a world made for one is not given to the next.
    private var shownDocuments = 0
    /// The next document's contexts, made and prepared while the page is idle after a
    /// navigation, as WebKit prewarms a web process for the next one: a navigation takes them
    /// instead of making its own while its request is out.
    private var prewarmed: [ContentWorld: ScriptContext] = [:]
    /// The process's resident memory past which a script of the page is ended:
    /// ``WebPageConfiguration/memoryLimitMB``, raised once a document was ended for it and the
    /// process could not hand all of that document's memory back (see
    /// ``documentExceededMemoryLimit(_:)``). One for all the page's documents (the next ones,
    /// made ahead, too) and its workers, so that a raise holds for each whenever it was made.
    nonisolated let memoryLimit: MemoryLimit?
    /// What a document may allocate under ``memoryLimit``: the limit less what the process held
    /// when the page was made (64 MB at least).
    private nonisolated let memoryBudgetMB: Int
    /// Stops the page's scripts as it closes (``close()``), even one that never returns.
    nonisolated let interruption = ScriptInterruption()
    private var isPrewarming = false
    /// How long the next document's preparation waits for the shown one to go quiet (its
    /// fetches answered, its bridge calls replied, its timers run) before it starts anyway.
    var prewarmQuietWait: Duration = .milliseconds(500)
    private var latestNavigation = 0
    /// The current document's URL.
    public private(set) var url: URL?
    /// The current document's title.
    public private(set) var title: String?
    /// Whether ``close()`` was called.
    public private(set) var isClosed = false
    /// ``isClosed``, readable from any thread (a window proxy's `closed`).
    nonisolated let isClosedFlag = Atomic<Bool>(false)
    /// The windows this page opened (`window.open`).
    nonisolated let openedWindows = OpenedWindows()
    /// The page that opened this one with `window.open`, and the id its proxy of this window
    /// carries; `window.opener` reaches it.
    nonisolated let opener = Mutex<OpenerLink?>(nil)
    /// A document's `<script>` element, as its page APIs show it.
    struct DocumentScript: Sendable {
        /// Its index among the document's scripts.
        var index: Int
        /// Its URL, resolved; empty for an inline script.
        var src: String
        var attributes: [String: String]
        /// Its line in the document.
        var line: Int
        /// Its `nonce`, as the Content Security Policy reads it (HTML's white space trimmed).
        var nonce: String { attributes["nonce"]?.trimmingCharacters(in: ContentSecurityPolicy.Policy.whitespace) ?? "" }
    }

    /// The document's `<script>` running now (`document.currentScript`).
    nonisolated let runningScript = Mutex<DocumentScript?>(nil)
    /// The page's `sessionStorage`, one area per origin: it lasts across the page's navigations,
    /// and a window the page opens starts with a copy of its document's origin's area.
    public nonisolated let sessionStorage = WebStorage()

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        unsafe thread.asUnownedSerialExecutor()
    }

    public init(configuration: WebPageConfiguration = WebPageConfiguration()) {
        self.configuration = configuration
        self.thread = PageThread.choose(for: configuration)
        // So that ``close()`` stops a script of the page's that never returns within one
        // quantum (100 ms) of its CPU time, not at its time limit.
        thread.makeInterruptible()
        if let megabytes = configuration.memoryLimitMB, megabytes > 0 {
            memoryLimit = MemoryLimit(bytes: Int(clamping: UInt64(megabytes) << 20))
            let resident = ResidentMemory.bytes().map { Int($0 >> 20) } ?? 0
            memoryBudgetMB = max(Self.leastMemoryBudgetMB, megabytes - resident)
        } else {
            memoryLimit = nil
            memoryBudgetMB = 0
        }
    }

    /// The page's cookie jar.
    public nonisolated var cookieJar: CookieJar { configuration.websiteDataStore.cookieJar }

    // MARK: Loading

    /// Loads `url` as the app would: a user-initiated top-level navigation.
    @discardableResult
    public func load(_ url: URL) async throws(PageError) -> Navigation {
        try await load(PageRequest(url: url))
    }

    /// Loads a request as a user-initiated top-level navigation.
    @discardableResult
    public func load(_ request: PageRequest) async throws(PageError) -> Navigation {
        try await navigate(
            NavigationAction(request: request, navigationType: .other, isUserInitiated: true, isMainFrame: true, sourceURL: url))
    }

    /// Loads HTML as if `baseURL` had served it (no request is made).
    @discardableResult
    public func loadHTMLString(_ html: String, baseURL: URL) async throws(PageError) -> Navigation {
        try await navigate(
            NavigationAction(
                request: PageRequest(url: baseURL), navigationType: .other, isUserInitiated: true, isMainFrame: true, sourceURL: url),
            preloaded: .html(html))
    }

    /// Runs a script as the document of `baseURL` (no request is made).
    @discardableResult
    public func loadScript(_ source: String, baseURL: URL) async throws(PageError) -> Navigation {
        try await navigate(
            NavigationAction(
                request: PageRequest(url: baseURL), navigationType: .other, isUserInitiated: true, isMainFrame: true, sourceURL: url),
            preloaded: .script(source))
    }

    /// Reloads the current document.
    @discardableResult
    public func reload() async throws(PageError) -> Navigation {
        guard let url else { throw PageError(.invalidURL, "nothing to reload") }
        return try await navigate(
            NavigationAction(
                request: PageRequest(url: url), navigationType: .reload, isUserInitiated: true, isMainFrame: true, sourceURL: url))
    }

    /// What a document's response says of it beyond its body: its `document.referrer` (the
    /// `Referer` its request sent), the policy of its `Referrer-Policy` field, and its `Refresh`.
    struct DocumentReferral {
        var referrer = ""
        var policy: Referrer.Policy?
        var refresh: DeclarativeRefresh?
        /// Its Content Security Policy fields.
        var contentSecurity: [(String, ContentSecurityPolicy.Disposition)] = []
        /// Its `Reporting-Endpoints` (for the policy's `report-to`).
        var reportingEndpoints: [String: String] = [:]
    }

    /// What a document is made of.
    enum Content {
        /// HTML, decoded from the bytes in `encoding` (`document.characterSet`).
        case html(String, encoding: DocumentEncoding = .utf8)
        case script(String)
        case other
    }

    /// Numbers a navigation a script scheduled, as the script schedules it: one scheduled (or
    /// started) after it replaces it before it asks the delegate or sends anything, as WebKit's
    /// navigation scheduler keeps only the last (`location.href = "/logout"` then
    /// `location.href = "/app"` in one script never sends the first).
    func scheduleNavigation() -> Int {
        latestNavigation += 1
        return latestNavigation
    }

    /// The navigation pipeline: policy, request with redirects, response policy, commit, scripts.
    /// `scheduled` is the number ``scheduleNavigation()`` gave a script's navigation.
    func navigate(_ action: NavigationAction, preloaded: Content? = nil, scheduled: Int? = nil) async throws(PageError) -> Navigation {
        guard !isClosed else { throw PageError(.closed, "the page is closed") }
        let id = scheduled ?? scheduleNavigation()
        tracker.begin()
        defer { tracker.end() }
        do throws(PageError) {
            // Replaced while it waited to start: nothing was asked or sent.
            try checkCurrent(id, action.request.url)
            var timing = NavigationTiming(action)
            let clock = ContinuousClock()
            let asked = clock.now
            let policy = await configuration.navigationDelegate?.webPage(self, decidePolicyFor: action) ?? .allow
            emit(.navigationPolicy(action, policy: policy, waited: clock.now - asked))
            guard policy == .allow else {
                throw PageError(.cancelled, "the navigation delegate cancelled the navigation", url: action.request.url)
            }
            try checkCurrent(id, action.request.url)
            // The document being left hears of it as the navigation starts, as in WebKit.
            for context in documents.values { await DocumentEnvironment.beforeUnload(in: context) }
            try checkCurrent(id, action.request.url)

            var navigation = Navigation(url: action.request.url, statusCode: 200, redirects: [], title: nil)
            var referral = DocumentReferral()
            let content: Content
            var prepared: [ContentWorld: ScriptContext] = [:]
            if let preloaded {
                content = preloaded
                prepared = takePrewarmed()
            } else {
                let response: HTTPLoader.Response
                timing.requestStart = DispatchTime.now().uptimeNanoseconds
                do throws(PageError) {
                    // The next document's contexts are made while the request is out (on the
                    // pool), instead of after the response, when the page would wait for them;
                    // the response wakes this thread directly, not through the pool.
                    response = try await thread.resumingHere {
                        await withTaskGroup(of: Result<HTTPLoader.Response, PageError>.self) { group in
                            group.addTask(executorPreference: globalConcurrentExecutor) {
                                await self.loadDocument(for: action, navigation: id)
                            }
                            prepared = await makeDocumentContexts(name: action.request.url.absoluteString)
                            return await group.next()!
                        }
                    }.get()
                    timing.responseEnd = DispatchTime.now().uptimeNanoseconds
                    try checkCurrent(id, response.url)
                    navigation = Navigation(url: response.url, statusCode: response.statusCode, redirects: response.redirects, title: nil)
                    referral = DocumentReferral(
                        referrer: response.referrer ?? "",
                        policy: Referrer.Policy(field: response.headers.filter { $0.name.lowercased() == "referrer-policy" }.map(\.value)),
                        refresh: response.headers.first { $0.name.lowercased() == "refresh" }.flatMap { DeclarativeRefresh($0.value) },
                        contentSecurity: DocumentEnvironment.contentSecurityFields(of: response.headers),
                        reportingEndpoints: DocumentContentSecurity.reportingEndpoints(
                            response.headers.filter { $0.name.lowercased() == "reporting-endpoints" }.map(\.value)))
                    // Counted when every hop stayed at the document's origin, as Navigation Timing counts them.
                    let origin = SecurityOrigin(url: response.url)
                    if ([action.request.url] + response.redirects).allSatisfy({ SecurityOrigin(url: $0) == origin }) {
                        timing.redirectCount = response.redirects.count
                    }
                    let decision =
                        await configuration.navigationDelegate?.webPage(
                            self,
                            decidePolicyFor: NavigationResponse(
                                url: response.url, statusCode: response.statusCode, headers: response.headers,
                                setCookieNames: response.setCookieNames)) ?? .allow
                    guard decision == .allow else {
                        throw PageError(.cancelled, "the navigation delegate refused the response", url: response.url)
                    }
                    try checkCurrent(id, response.url)
                } catch {
                    for context in prepared.values { await context.close() }
                    throw error
                }
                content = Self.content(of: response)
            }
            let placement: SessionHistory.Placement =
                action.historyEntry.map { .traverse($0) }
                ?? (action.navigationType == .reload || action.replacesHistoryEntry ? .replace : .push)
            sessionHistory.commit(navigation.url, leaving: url, placement: placement)
            return await commit(navigation, content: content, timing: timing, referral: referral, prepared: prepared)
        } catch {
            if error.code != .superseded { emit(.navigationFailed(error)) }
            if error.code != .cancelled && error.code != .superseded {
                await configuration.navigationDelegate?.webPage(self, didFail: error)
            }
            throw error
        }
    }

    /// The navigation's request, its redirects each offered to the delegate; off the page's
    /// thread, so that the thread can make the next document's contexts meanwhile.
    private nonisolated func loadDocument(for action: NavigationAction, navigation id: Int) async -> Result<HTTPLoader.Response, PageError>
    {
        let source = action.sourceURL
        let list = cookieJar.publicSuffixList
        // A page's navigation is cross-site from its first hop to another site on, a redirect
        // back to the page's own site included (RFC 6265bis: the redirect chain counts), as in
        // WebKit: an identity provider's redirect back to the app sends no `SameSite=Strict` cookie.
        let crossedSites = Atomic<Bool>(false)
        do throws(PageError) {
            return .success(
                try await loader.load(
                    action.request, initiator: .navigation, referrer: action.referrer,
                    fields: .navigation(from: action.isUserInitiated ? nil : action.sourceURL),
                    cookies: { target in
                        if action.navigationType == .scriptInitiated, let source, !DocumentEnvironment.isSameSite(source, target, list) {
                            crossedSites.store(true, ordering: .relaxed)
                        }
                        let crossSite = crossedSites.load(ordering: .relaxed)
                        return .include(RequestContext(isCrossSite: crossSite, isTopLevelNavigation: true, method: action.request.method))
                    },
                    willRedirect: { next throws(PageError) in
                        try await self.decidePolicy(forRedirectTo: next, of: action, navigation: id)
                    }))
        } catch {
            return .failure(error)
        }
    }

    /// Offers one server redirect hop to the delegate as a navigation action with
    /// ``NavigationAction/isRedirect``, as WebKit offers server redirects: the delegate can
    /// prepare it (refresh a session, write cookies) or cancel it (catch an OAuth redirect URI).
    private func decidePolicy(forRedirectTo request: PageRequest, of action: NavigationAction, navigation id: Int) async throws(PageError) {
        try checkCurrent(id, request.url)
        var hop = action
        hop.request = request
        hop.isRedirect = true
        let clock = ContinuousClock()
        let asked = clock.now
        let policy = await configuration.navigationDelegate?.webPage(self, decidePolicyFor: hop) ?? .allow
        emit(.navigationPolicy(hop, policy: policy, waited: clock.now - asked))
        guard policy == .allow else { throw PageError(.cancelled, "the navigation delegate cancelled the redirect", url: request.url) }
        try checkCurrent(id, request.url)
    }

    private func checkCurrent(_ id: Int, _ url: URL) throws(PageError) {
        if isClosed { throw PageError(.closed, "the page is closed", url: url) }
        if id != latestNavigation { throw PageError(.superseded, "a newer navigation replaced this one", url: url) }
    }

    private static func content(of response: HTTPLoader.Response) -> Content {
        let contentType = response.headers.first { $0.name.lowercased() == "content-type" }?.value
        let type = contentType?.lowercased() ?? ""
        let encoding = DocumentEncoding.of(response.body, contentType: contentType)
        let text = encoding.decode(response.body)
        if type.contains("javascript") || type.contains("ecmascript") { return .script(text) }
        if type.contains("html") { return .html(text, encoding: encoding) }
        if type.isEmpty, text.drop(while: \.isWhitespace).first == "<" { return .html(text, encoding: encoding) }
        return .other
    }

    nonisolated var loader: HTTPLoader {
        HTTPLoader(
            client: configuration.httpClient, jar: cookieJar, timeout: configuration.requestTimeout,
            maxRedirects: configuration.maxRedirects, maxBytes: configuration.maxResponseBytes,
            userAgent: configuration.userAgent, events: configuration.eventHandler)
    }

    // MARK: Documents

    /// Replaces the document: the old one's timers stop and its pending bridge calls reject
    /// with `NavigationError`; then user scripts at document start (those that read nothing of
    /// the document ran when it was prepared), the document's scripts in order, user scripts at
    /// document end, `DOMContentLoaded` and `load`.
    private func commit(
        _ navigation: Navigation, content: Content, timing: NavigationTiming = NavigationTiming(kind: .navigate),
        referral: DocumentReferral = DocumentReferral(), prepared: [ContentWorld: ScriptContext] = [:]
    ) async -> Navigation {
        var navigation = navigation
        var prepared = prepared
        // The document's title and scripts, from one pass over its HTML.
        var html: HTMLDocumentScripts?
        var encoding = DocumentEncoding.utf8
        if case .html(let text, let used) = content {
            html = HTMLDocumentScripts(html: text)
            encoding = used
        }
        if let html { navigation.title = html.title }
        for context in documents.values { await DocumentEnvironment.leave(in: context) }
        for context in documents.values { await context.close(releasingLater: true) }
        documents.removeAll()
        shown = nil
        url = navigation.url
        title = navigation.title

        // The document's policy from its fields, which may refuse its `<base href>` (`base-uri`),
        // as may the `<meta>` policies that stand before it.
        let contentSecurity = DocumentContentSecurity(
            statusCode: navigation.url.scheme?.lowercased() == "https" ? 0 : navigation.statusCode, endpoints: referral.reportingEndpoints)
        for (value, disposition) in referral.contentSecurity {
            contentSecurity.add(value, disposition: disposition, origin: SecurityOrigin(url: navigation.url))
        }
        var baseHref = DocumentEnvironment.baseHref(html?.baseHref, of: navigation.url)
        var basePolicy = contentSecurity.policy
        if let html, html.policiesBeforeBase > 0 {
            var policy = basePolicy ?? ContentSecurityPolicy(origin: SecurityOrigin(url: navigation.url))
            for (value, _) in html.contentSecurityPolicies.prefix(html.policiesBeforeBase) {
                _ = policy.add(value, disposition: .enforce, fromMeta: true)
            }
            if !policy.isEmpty { basePolicy = policy }
        }
        let baseVerdict = baseHref.flatMap { basePolicy?.baseURI($0) }
        if baseVerdict?.allowed == false { baseHref = nil }
        let environment = DocumentEnvironment(
            documentURL: DocumentURL(navigation.url), title: navigation.title, jar: cookieJar, loader: loader,
            tracker: tracker, page: PageReference(self), configuration: configuration, timing: timing, referrer: referral.referrer,
            referrerPolicy: html?.referrerPolicy ?? referral.policy ?? .strictOriginWhenCrossOrigin,
            baseHref: baseHref, encoding: encoding, contentSecurity: contentSecurity)
        if let baseVerdict { environment.report(baseVerdict) }
        let controller = configuration.userContentController
        let events = configuration.eventHandler
        let url = navigation.url
        let userScripts = controller.userScripts
        // Per world, the scripts at document start that ran while the document was prepared.
        var ranAhead: [ContentWorld: (count: Int, reports: [ScriptsRunAhead.Report])] = [:]
        for world in Self.worlds(of: controller) {
            // Made during the request, or now (a preloaded document, a world added meanwhile).
            var context = prepared.removeValue(forKey: world) ?? makeContext(name: url.absoluteString)
            // A handler added or removed since the bridge was built ahead, user scripts changed
            // since some ran ahead, or one that ran ahead ended for the memory limit: a document
            // of its own.
            let ahead = await Self.takeScriptsRunAhead(from: context, scripts: userScripts, world: world)
            let usable = await Self.isUsable(context, controller: controller, world: world)
            if ahead == nil || !usable {
                await context.close()
                context = makeContext(name: url.absoluteString)
            } else {
                ranAhead[world] = ahead
            }
            await Self.reportEvents(of: context, url: url, to: events)
            do {
                try await install(environment, world: world, into: context)
            } catch {
                events?(.scriptError(error, unhandledRejection: false, url: url))
            }
            documents[world] = context
        }
        await applyEvalPolicy(of: environment)
        for context in prepared.values { await context.close() }  // worlds removed meanwhile
        shown = environment
        shownDocuments += 1
        let document = shownDocuments
        emit(.documentCommitted(navigation))

        for (_, ahead) in ranAhead.sorted(by: { $0.key.name < $1.key.name }) {
            for report in ahead.reports { emit(Self.pageEvent(report, url: url)) }
        }
        var skipped: [ContentWorld: Int] = [:]
        for script in userScripts where script.injectionTime == .atDocumentStart {
            let world = script.contentWorld
            if skipped[world, default: 0] < ranAhead[world]?.count ?? 0 {
                skipped[world, default: 0] += 1
                continue
            }
            await run(script.source, sourceURL: script.sourceURL, in: world)
        }
        // External scripts with an empty `src`, or one that is no URL: never fetched, their
        // elements get `error` in a later task, as HTML has it (after `load`, as in WebKit).
        var unfetchable: [DocumentScript] = []
        switch content {
        case .script(let source):
            await run(source, sourceURL: url.absoluteString, in: .page)
        case .html:
            // An external script marked `defer` (or `async`) runs once the others have, in
            // document order, before `DOMContentLoaded`, as the parser runs deferred scripts
            // (an `async` one may run earlier in a browser, whenever it has loaded).
            var deferred: [(script: DocumentScript, root: ModuleGraph.Root?, target: URL?)] = []
            var metaPolicies = html?.contentSecurityPolicies[...] ?? []
            // A navigation a script schedules (or the app starts) stops the parser before the
            // next script, as WebKit's parser yields while a location change is pending and the
            // new load stops it: the document's later scripts, deferred ones too, do not run.
            let parsing = latestNavigation
            for (index, script) in (html?.scripts ?? []).enumerated() {
                if latestNavigation != parsing { break }
                let attributes = html?.attributes[index] ?? [:], line = html?.lines[index] ?? 1
                // A `<meta>` policy applies from where it stands.
                if let first = metaPolicies.first, first.scriptsBefore <= index {
                    await addMetaPolicies(&metaPolicies, upTo: index, environment: environment)
                }
                switch script {
                case .inline(let source, let line):
                    let running = DocumentScript(index: index, src: "", attributes: attributes, line: line)
                    if await !allowsInlineScript(source, of: running, environment: environment) { continue }
                    runningScript.withLock { $0 = running }
                    await run(source, sourceURL: url.absoluteString, line: line, in: .page)
                    runningScript.withLock { $0 = nil }
                case .external(let src):
                    var script = DocumentScript(index: index, src: src, attributes: attributes, line: line)
                    guard !src.isEmpty, let asked = URLResolution.resolve(src, against: environment.baseURL) else {
                        // Its `src` shows what the attribute resolves to: the document's URL for an empty one.
                        script.src = src.isEmpty ? url.absoluteString : src
                        unfetchable.append(script)
                        continue
                    }
                    script.src = asked.absoluteString
                    let target = environment.contentSecurity.upgraded(asked)
                    if await !allowsScriptSource(target, of: script, environment: environment) {
                        unfetchable.append(script)
                        continue
                    }
                    if attributes["defer"] != nil || attributes["async"] != nil {
                        deferred.append((script, nil, target))
                    } else {
                        await runExternal(script, from: target, environment: environment)
                    }
                case .module(let src, let source, let line):
                    // Module scripts are deferred, in document order with the other deferred
                    // scripts (an `async` one runs with them too).
                    var script = DocumentScript(index: index, src: "", attributes: attributes, line: line)
                    guard let src else {
                        if await !allowsInlineScript(source, of: script, environment: environment) { continue }
                        deferred.append((script, .inline(source: source, documentURL: url, base: environment.baseURL, line: line), nil))
                        continue
                    }
                    guard !src.isEmpty, let asked = URLResolution.resolve(src, against: environment.baseURL) else {
                        script.src = src.isEmpty ? url.absoluteString : src
                        unfetchable.append(script)
                        continue
                    }
                    script.src = asked.absoluteString
                    let target = environment.contentSecurity.upgraded(asked)
                    if await !allowsScriptSource(target, of: script, environment: environment) {
                        unfetchable.append(script)
                        continue
                    }
                    deferred.append((script, .url(target, type: nil), nil))
                case .importMap(let source):
                    do {
                        environment.modules.addImportMap(try ImportMap(json: source, base: environment.baseURL))
                    } catch {
                        emit(.console(ConsoleMessage(level: .error, text: "import map not used: \(error.message)"), url: url))
                    }
                case .noModule:
                    break
                case .skipped(let type):
                    emit(
                        .console(
                            ConsoleMessage(level: .warn, text: "script of type '\(type)' not run (only classic scripts are supported)"),
                            url: url))
                }
            }
            if !metaPolicies.isEmpty { await addMetaPolicies(&metaPolicies, upTo: Int.max, environment: environment) }
            // Parsed: `readyState` is `interactive` for the deferred and module scripts.
            for context in documents.values { await finish("interactive", context) }
            for (script, root, target) in deferred where latestNavigation == parsing {
                if let root {
                    await runModuleScript(script, root: root, environment: environment)
                } else if let target {
                    await runExternal(script, from: target, environment: environment)
                }
            }
        case .other:
            break
        }
        for script in userScripts where script.injectionTime == .atDocumentEnd {
            await run(script.source, sourceURL: script.sourceURL, in: script.contentWorld)
        }
        for context in documents.values { await finish("contentLoaded", context) }
        for context in documents.values { await finish("load", context) }
        if let context = documents[.page], !unfetchable.isEmpty, shownDocuments == document {
            for script in unfetchable { await fireScriptEvent(loaded: false, script: script, in: context) }
        }
        emit(.navigationFinished(navigation))
        await configuration.navigationDelegate?.webPage(self, didFinish: navigation)
        if let refresh = referral.refresh ?? html?.refresh { scheduleRefresh(refresh, environment: environment, document: document) }
        schedulePrewarming()
        return navigation
    }

    /// Adds the document's `<meta>` policies that stand before script `index` (all for
    /// `Int.max`), with WebKit's notices of what they ignore.
    private func addMetaPolicies(
        _ pending: inout ArraySlice<(policy: String, scriptsBefore: Int)>, upTo index: Int, environment: DocumentEnvironment
    ) async {
        let origin = SecurityOrigin(url: environment.url)
        while let first = pending.first, first.scriptsBefore <= index {
            pending.removeFirst()
            for notice in environment.contentSecurity.add(first.policy, disposition: .enforce, fromMeta: true, origin: origin) {
                emit(.console(ConsoleMessage(level: .error, text: notice), url: environment.url))
            }
        }
        await applyEvalPolicy(of: environment)
    }

    /// Turns off code from strings in the page's world when the document's policy refuses
    /// `'unsafe-eval'` (other worlds keep it, as in WebKit).
    private func applyEvalPolicy(of environment: DocumentEnvironment) async {
        guard let context = documents[.page] else { return }
        await DocumentEnvironment.applyEvalPolicy(of: environment, in: context)
    }

    /// Whether the document's policy lets a `<script>` written in it run (its nonce or hash),
    /// the refusal reported at the element.
    private func allowsInlineScript(_ source: String, of script: DocumentScript, environment: DocumentEnvironment) async -> Bool {
        guard let policy = environment.contentSecurity.policy else { return true }
        let verdict = policy.inlineScript(nonce: script.nonce, source: source)
        await report(verdict, script: script, environment: environment)
        return verdict.allowed
    }

    /// Whether the document's policy lets a `<script>` element load its source `target` (its
    /// nonce, its `integrity`, the source), the refusal reported at the document.
    private func allowsScriptSource(_ target: URL, of script: DocumentScript, environment: DocumentEnvironment) async -> Bool {
        guard let policy = environment.contentSecurity.policy else { return true }
        let verdict = policy.script(target, nonce: script.nonce, integrity: script.attributes["integrity"] ?? "")
        await report(verdict, script: nil, environment: environment)
        return verdict.allowed
    }

    /// Reports a verdict of the document's policy on one of its scripts: at its element (`script`),
    /// or at the document, without a line, for a refused source, as WebKit reports them.
    private func report(_ verdict: ContentSecurityPolicy.Verdict, script: DocumentScript?, environment: DocumentEnvironment) async {
        guard !verdict.violations.isEmpty else { return }
        guard let context = documents[.page] else { return _ = environment.report(verdict, script: script) }
        await Self.report(verdict, script: script, environment: environment, in: context)
    }

    private static func report(
        _ verdict: ContentSecurityPolicy.Verdict, script: DocumentScript?, environment: DocumentEnvironment,
        in context: isolated ScriptContext
    ) {
        environment.report(verdict, script: script, in: context)
    }

    /// Fires violations found off the page's thread (a redirect's) in their document, while it is shown.
    /// The page is busy until they are fired.
    nonisolated func dispatchViolations(_ violations: [ContentSecurityPolicy.Violation], environment: DocumentEnvironment) {
        let tracker = self.tracker
        tracker.begin()
        Task {
            await self.dispatchInShownDocument(violations, environment: environment)
            tracker.end()
        }
    }

    private func dispatchInShownDocument(_ violations: [ContentSecurityPolicy.Violation], environment: DocumentEnvironment) async {
        guard shown?.documentURL === environment.documentURL, let context = documents[.page] else { return }
        await Self.dispatch(violations, environment: environment, in: context)
    }

    private static func dispatch(
        _ violations: [ContentSecurityPolicy.Violation], environment: DocumentEnvironment, in context: isolated ScriptContext
    ) {
        for violation in violations { DocumentEnvironment.dispatchViolation(violation, environment: environment, script: nil, in: context) }
    }

    /// A declarative refresh: once the document has loaded, after its seconds, a navigation to
    /// its URL (resolved against the document's base URL; the document's own when it names
    /// none), referred by the document, unless the page has left it by then. The wait keeps the
    /// page busy, as a timer does.
    private func scheduleRefresh(_ refresh: DeclarativeRefresh, environment: DocumentEnvironment, document: Int) {
        let target = refresh.url.flatMap { URLResolution.resolve($0, against: environment.baseURL) } ?? environment.url
        guard let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return }
        let tracker = self.tracker
        tracker.begin()
        Task {
            defer { tracker.end() }
            if refresh.seconds > 0 { try? await Task.sleep(for: .seconds(refresh.seconds)) }
            guard !isClosed, shownDocuments == document else { return }
            // As in WebKit, a refresh within a second takes the current entry's place.
            environment.startNavigation(to: target, type: .scriptInitiated, replacing: refresh.seconds <= 1)
        }
    }

    /// The content worlds a document has: the page's first, then the controller's others by name.
    private static func worlds(of controller: UserContentController) -> [ContentWorld] {
        [ContentWorld.page] + controller.contentWorlds.filter { $0 != .page }.sorted { $0.name < $1.name }
    }

    /// The next document's contexts, with the preludes that depend on nothing the response
    /// decides already run (a failure there is met again, and reported, at commit).
    private func makeDocumentContexts(name: String) async -> [ContentWorld: ScriptContext] {
        var contexts = takePrewarmed()
        let userAgent = configuration.userAgent
        let controller = configuration.userContentController
        for world in Self.worlds(of: controller) where contexts[world] == nil {
            let context = makeContext(name: name)
            await Self.prepare(context, userAgent: userAgent, controller: controller, world: world)
            contexts[world] = context
        }
        return contexts
    }

    /// The worlds whose next document is prewarmed (for tests).
    var prewarmedWorlds: Set<ContentWorld> { Set(prewarmed.keys) }

    /// The worlds whose prewarmed document has its bridge built already (for tests).
    func prewarmedWorldsWithBridge() async -> Set<ContentWorld> {
        var worlds: Set<ContentWorld> = []
        for (world, context) in prewarmed where await Self.hasBridge(context) { worlds.insert(world) }
        return worlds
    }

    /// How many user scripts each prewarmed document has run already (for tests).
    package func prewarmedScriptsRunAhead() async -> [ContentWorld: Int] {
        var counts: [ContentWorld: Int] = [:]
        for (world, context) in prewarmed { counts[world] = await Self.scriptsRunAhead(in: context) }
        return counts
    }

    private static func scriptsRunAhead(in context: isolated ScriptContext) -> Int {
        context.attachment(ScriptsRunAhead.self)?.scripts.count ?? 0
    }

    private static func hasBridge(_ context: isolated ScriptContext) -> Bool {
        BridgeInstallation.isBuilt(in: context)
    }

    /// The prewarmed contexts, if any (a world added since is made by the caller, one removed
    /// since is closed at commit).
    private func takePrewarmed() -> [ContentWorld: ScriptContext] {
        defer { prewarmed = [:] }
        return prewarmed
    }

    /// Makes the next document's contexts once the current job is done: they are ready when
    /// the next navigation starts, which then waits only for its request.
    private func schedulePrewarming() {
        guard prewarmed.isEmpty, !isPrewarming, !isClosed else { return }
        isPrewarming = true
        Task { await self.prewarm() }  // on the page's thread, after the navigation returned
    }

    private func prewarm() async {
        defer { isPrewarming = false }
        guard prewarmed.isEmpty, !isClosed else { return }
        // Once the document is quiet: the preparation holds the page's thread for 1-3 ms, which
        // the document's first moments (its fetch's answer, a reply, a short timer) would
        // otherwise wait behind, as a browser prepares in idle time. A document that never goes
        // quiet (an interval timer) gets it after `prewarmQuietWait`.
        if let document = documents[.page] { _ = await document.runUntilQuiescent(timeout: prewarmQuietWait) }
        // And after what went quiet with it (another waiter for the quiet, resumed at once).
        await Task.yield()
        guard prewarmed.isEmpty, !isClosed else { return }
        let contexts = await makeDocumentContexts(name: "about:blank")
        guard !isClosed, prewarmed.isEmpty else {
            for context in contexts.values { await context.close() }
            return
        }
        prewarmed = contexts
    }

    private static func prepare(
        _ context: isolated ScriptContext, userAgent: String, controller: UserContentController, world: ContentWorld
    ) {
        // The bridge is built ahead too, and bound to the document's frame at commit.
        do {
            try DocumentEnvironment.prepare(userAgent: userAgent, warmingUp: true, in: context)
            try BridgeInstallation.build(controller, world: world, in: context)
        } catch {
            // Met again, and reported, at commit.
            return
        }
        // So are the user scripts that open the list and read nothing of the document: off
        // the navigation's path, where they took 150-320 µs (a fresh document's first
        // JavaScript runs cold).
        ScriptsRunAhead.run(controller.userScripts, world: world, in: context)
    }

    private static func takeScriptsRunAhead(
        from context: isolated ScriptContext, scripts: [UserScript], world: ContentWorld
    ) -> (count: Int, reports: [ScriptsRunAhead.Report])? {
        ScriptsRunAhead.take(from: context, scripts: scripts, world: world)
    }

    /// A script's report from before the commit, as the page's event for the document at `url`.
    private static func pageEvent(_ report: ScriptsRunAhead.Report, url: URL) -> PageEvent {
        switch report {
        case .thrown(let error), .event(.uncaughtError(let error)): .scriptError(error, unhandledRejection: false, url: url)
        case .event(.unhandledRejection(let error)): .scriptError(error, unhandledRejection: true, url: url)
        case .event(.console(let message)): .console(message, url: url)
        }
    }

    /// Whether a context made ahead can be the document's: its bridge is the controller's now,
    /// and no script run ahead in it was ended for the memory limit (it would run nothing more).
    private static func isUsable(
        _ context: isolated ScriptContext, controller: UserContentController, world: ContentWorld
    ) -> Bool {
        !context.endedForMemory && BridgeInstallation.isCurrent(for: controller, world: world, in: context)
    }

    /// Reports a world's console messages and uncaught errors as the page's events.
    /// Isolated to the context, which shares the page's thread: no hop (a nonisolated async
    /// function would run on the concurrency pool, and each commit would wait for a pool thread).
    private static func reportEvents(of context: isolated ScriptContext, url: URL, to events: (@Sendable (PageEvent) -> Void)?) {
        context.setEventHandler { event in
            switch event {
            case .console(let message): events?(.console(message, url: url))
            case .uncaughtError(let error): events?(.scriptError(error, unhandledRejection: false, url: url))
            case .unhandledRejection(let error): events?(.scriptError(error, unhandledRejection: true, url: url))
            }
        }
    }

    private func makeContext(name: String) -> ScriptContext {
        var settings = ScriptContext.Configuration(timeLimit: configuration.scriptTimeLimit, interruption: interruption)
        if let memoryLimit {
            settings.memoryLimit = memoryLimit
            // The page is busy from the stop until the end is reported: whoever waits for it
            // to be quiet sees the end.
            let tracker = self.tracker
            settings.memoryLimitExceeded = { [weak self] context in
                guard let page = self else { return }
                tracker.begin()
                Task {
                    await page.documentExceededMemoryLimit(context)
                    tracker.end()
                }
            }
        }
        return ScriptContext(onCurrentThread: thread, name: name, configuration: settings)
    }

    /// The least a document may allocate under the memory limit.
    static let leastMemoryBudgetMB = 64

    /// A script of `context` was ended for ``WebPageConfiguration/memoryLimitMB``: the
    /// document is ended, as WebKit ends a web process past its memory limit, so that what
    /// the page holds can be collected, and that is reported
    /// (``PageEvent/webContentProcessTerminated(_:url:)``, the navigation delegate). The next
    /// load or script starts a new document.
    private func documentExceededMemoryLimit(_ context: ScriptContext) async {
        guard !isClosed else { return }
        // The next document's, made ahead: made again when a navigation needs them.
        if prewarmed.values.contains(where: { $0 === context }) {
            for context in takePrewarmed().values { await context.close() }
            thread.collectGarbage()
            return
        }
        guard documents.values.contains(where: { $0 === context }) else { return }
        let url = self.url
        // Taken before the first suspension, so that a document committed meanwhile is not dropped unclosed.
        let ended = Array(documents.values) + Array(takePrewarmed().values)
        documents.removeAll()
        shown = nil
        for context in ended { await context.close() }
        thread.collectGarbage()
        // WebKit's next web process starts with nothing and the whole limit; this process keeps
        // what its allocator could not hand back (tens of megabytes). The next document's budget
        // counts from there, or a script of the next one running past a read of the memory would
        // be ended too. The limit is shared: documents made ahead meanwhile, and workers, have it.
        if let memoryLimit, let resident = ResidentMemory.bytes() {
            memoryLimit.raise(to: Int(clamping: resident) + memoryBudgetMB << 20)
        }
        emit(.webContentProcessTerminated(.exceededMemoryLimit, url: url))
        await configuration.navigationDelegate?.webPage(self, webContentProcessDidTerminate: .exceededMemoryLimit)
    }

    private func install(_ environment: DocumentEnvironment, world: ContentWorld, into context: isolated ScriptContext) throws(ScriptError)
    {
        try DocumentEnvironment.install(environment, world: world, in: context)
    }

    private func finish(_ stage: String, _ context: isolated ScriptContext) {
        DocumentEnvironment.finish(stage, in: context)
    }

    private func run(_ source: String, sourceURL: String, line: Int = 1, in world: ContentWorld) async {
        guard let context = documents[world], let url else { return }
        var source = source
        // A page script's `import()` loads modules through the page world's linker.
        if world == .page, let environment = shown, let rewritten = ClassicScriptImports.rewrite(source, referrer: sourceURL) {
            await exposeClassicImport(environment, in: context)
            source = rewritten
        }
        do {
            // An exception the script throws is the page's first (its `error` event), then reported.
            try await context.runPageScript(source, sourceURL: sourceURL, startingLine: line)
        } catch {
            // A document ended for its memory limit says so once.
            if error.kind == .memoryLimitExceeded, await !context.firstMemoryStopReport() { return }
            emit(.scriptError(error, unhandledRejection: false, url: url))
        }
    }

    /// Loads and runs an external script. One that cannot be loaded (no answer, or one that is
    /// not 2xx) is no error of the page's, as in browsers: its element gets `error` (the
    /// exchange shows what happened), and one that ran gets `load`.
    ///
    /// A script with a `crossorigin` attribute is fetched in `cors` mode (with credentials for
    /// `use-credentials`): another origin's answer must allow the document's, or the element
    /// gets `error`.
    private func runExternal(_ script: DocumentScript, from target: URL, environment: DocumentEnvironment) async {
        let cors = script.attributes["crossorigin"].map { value in
            CrossOriginFetch(
                origin: SecurityOrigin(url: environment.url), mode: .cors,
                credentials: value.lowercased() == "use-credentials" ? .include : .sameOrigin)
        }
        var response: HTTPLoader.Response?
        do throws(PageError) {
            let nonce = script.nonce, integrity = script.attributes["integrity"] ?? ""
            if let local = try environment.localScript(target) {
                response = local
            } else {
                response = try await loader.load(
                    PageRequest(url: target), initiator: .script, cors: cors,
                    preflights: configuration.websiteDataStore.preflights, referrer: environment.clientReferrer,
                    fields: UserAgentFields(destination: "script", mode: cors == nil ? "no-cors" : "cors", initiator: environment.url),
                    mixedContentFrom: environment.url,
                    cookies: { target in .include(environment.subresourceContext(for: target, method: "GET")) },
                    willRedirect: environment.contentSecurity.policy == nil
                        ? nil
                        : { @Sendable next throws(PageError) in
                            try environment.checkScriptRedirect(
                                of: target, to: next.url, nonce: nonce, integrity: integrity, imported: false)
                        })
            }
        } catch  where error.code == .mixedContent {
            environment.reportMixedContent(target)
        } catch  where error.code == .accessControl {
            for text in BlockedLoad.accessControlLines(error.message, loading: target, by: "script") {
                emit(.console(ConsoleMessage(level: .error, text: text), url: environment.url))
            }
        } catch {}
        var loaded = response.map { (200..<300).contains($0.statusCode) } ?? false
        // Subresource Integrity: another origin's script fetched without CORS is opaque.
        if let response, loaded, let integrity = script.attributes["integrity"] {
            let origin = SecurityOrigin(url: environment.url)
            let opaque = cors == nil && ([target] + response.redirects).contains { origin == nil || SecurityOrigin(url: $0) != origin }
            if !SubresourceIntegrity.matches(integrity, body: response.body, opaque: opaque) {
                loaded = false
                let text = "Cannot load script \(target.absoluteString). Failed integrity metadata check."
                emit(.console(ConsoleMessage(level: .error, text: text), url: environment.url))
            }
        }
        if let response, loaded {
            // Another origin's script fetched over the network without CORS (on any hop): the
            // page sees its errors muted.
            let origin = SecurityOrigin(url: environment.url)
            if cors == nil, ["http", "https"].contains(target.scheme?.lowercased() ?? ""),
                ([target] + response.redirects + [response.url]).contains(where: { origin == nil || SecurityOrigin(url: $0) != origin })
            {
                environment.mutedScripts.add(script.src)
            }
            runningScript.withLock { $0 = script }
            let contentType = response.headers.first { $0.name.lowercased() == "content-type" }?.value
            let encoding = DocumentEncoding.ofScript(response.body, contentType: contentType, document: environment.encoding)
            await run(encoding.decode(response.body), sourceURL: script.src, in: .page)
            runningScript.withLock { $0 = nil }
        }
        guard let context = documents[.page], shown?.documentURL === environment.documentURL else { return }
        await fireScriptEvent(loaded: loaded, script: script, in: context)
    }

    /// Loads a module script's graph and runs it in the page's world. A graph that cannot be
    /// fetched gives the element `error`; otherwise an external script's element gets `load`
    /// once its graph ran, unless a module of it had a syntax error (as in WebKit). What fails
    /// to link or throws is reported as an uncaught error.
    private func runModuleScript(_ script: DocumentScript, root: ModuleGraph.Root, environment: DocumentEnvironment) async {
        let graph: (key: String, records: [ScriptValue])?
        do throws(ModuleGraph.LoadFailure) {
            graph = try await ModuleGraph.load(
                root, environment: environment,
                credentials: script.attributes["crossorigin"]?.lowercased() == "use-credentials" ? .include : .sameOrigin,
                integrity: script.attributes["integrity"] ?? "", nonce: script.nonce)
        } catch {
            graph = nil
            if error.message.hasPrefix("Cannot load script") {
                // A module that failed its integrity check: WebKit's two lines.
                for text in [error.message, "TypeError: Cannot load script due to integrity mismatch"] {
                    emit(.console(ConsoleMessage(level: .error, text: text), url: environment.url))
                }
            } else if !error.message.hasPrefix("Importing") {
                emit(.console(ConsoleMessage(level: .error, text: "\(script.src): \(error.message)"), url: environment.url))
            }
        }
        guard let context = documents[.page], shown?.documentURL === environment.documentURL else { return }
        guard let graph else {
            await fireScriptEvent(loaded: false, script: script, in: context)
            return
        }
        let ran = await runModule(graph, environment: environment, in: context)
        if ran, case .url = root { await fireScriptEvent(loaded: true, script: script, in: context) }
    }

    private func exposeClassicImport(_ environment: DocumentEnvironment, in context: isolated ScriptContext) {
        DocumentEnvironment.exposeClassicImport(environment, in: context)
    }

    private func runModule(
        _ graph: (key: String, records: [ScriptValue]), environment: DocumentEnvironment, in context: isolated ScriptContext
    ) -> Bool {
        DocumentEnvironment.runModule(graph.records, key: graph.key, environment: environment, in: context)
    }

    private func fireScriptEvent(loaded: Bool, script: DocumentScript, in context: isolated ScriptContext) {
        DocumentEnvironment.fireScriptEvent(loaded: loaded, script: script, in: context)
    }

    // MARK: Scripts from the app

    /// Evaluates a script in the current document (a blank one if nothing was loaded).
    public func evaluateJavaScript(_ source: String, in world: ContentWorld = .page) async throws -> ScriptValue {
        try await context(for: world).evaluate(source, sourceURL: "sessionbridge://app-script.js")
    }

    /// Runs `body` as the body of an async function and returns what it resolves with.
    /// (WebKit's `callAsyncJavaScript`.)
    public func callAsyncJavaScript(
        _ body: String, in world: ContentWorld = .page, timeout: Duration = .seconds(30)
    ) async throws -> ScriptValue {
        try await context(for: world).evaluateAsync(
            "(async () => {\n\(body)\n})()", sourceURL: "sessionbridge://app-script.js", timeout: timeout)
    }

    /// The shown document's URL changed without a new document (`history`, a fragment).
    func documentURLChanged(_ documentURL: DocumentURL) {
        guard let shown, shown.documentURL === documentURL else { return }
        url = documentURL.url
    }

    /// The context of `world` in the current document, for layers that need it directly.
    package func context(for world: ContentWorld = .page) async throws -> ScriptContext {
        if documents.isEmpty && !isClosed {
            // A blank document, as a new web view has: no request and no navigation policy.
            latestNavigation += 1
            _ = await commit(Navigation(url: URL(string: "about:blank")!, statusCode: 200, redirects: [], title: nil), content: .other)
        }
        if let context = documents[world] { return context }
        guard !isClosed else { throw PageError(.closed, "the page is closed") }
        guard let environment = shown else { throw PageError(.invalidURL, "the document has no world \(world) while the next one commits") }
        // As in WebKit, a world the document has not used yet is made when a script first
        // runs in it: with the page APIs, and the handlers the world has now.
        let document = shownDocuments
        let context = makeContext(name: environment.url.absoluteString)
        await Self.reportEvents(of: context, url: environment.url, to: configuration.eventHandler)
        do {
            try await install(environment, world: world, into: context)
        } catch {
            emit(.scriptError(error, unhandledRejection: false, url: environment.url))
        }
        guard shownDocuments == document, shown != nil, documents[world] == nil else {
            // Another document, or another call that made the world, came first.
            await context.close()
            return try await self.context(for: world)
        }
        documents[world] = context
        return context
    }

    /// Lets timers, fetches, bridge replies and navigations run until nothing is pending or
    /// `timeout` passes. Returns `true` when the page went quiet.
    public func runUntilQuiescent(timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if !tracker.isIdle {
                try? await Task.sleep(for: .milliseconds(2))
                continue
            }
            var quiet = true
            for context in documents.values {
                let remaining = deadline - clock.now
                guard remaining > .zero else { return false }
                if await !context.runUntilQuiescent(timeout: remaining) { quiet = false }
            }
            // A document waiting on its workers (or on what they told it) is not quiet.
            for context in documents.values where tracker.hasWorkers {
                for worker in await DocumentEnvironment.workerActivity(in: context).workers
                where await !worker.waitUntilIdle(until: deadline) {
                    quiet = false
                }
                // Read after the workers went idle: what they told the document meanwhile counts.
                if await !DocumentEnvironment.workerActivity(in: context).delivered { quiet = false }
            }
            if !quiet {
                try? await Task.sleep(for: .milliseconds(1))
                continue
            }
            if quiet && tracker.isIdle {
                var stillQuiet = true
                for context in documents.values where await !context.isQuiescent { stillQuiet = false }
                if stillQuiet { return true }
            }
        }
        return false
    }

    /// Closes the page: a script of its still running is stopped, even one that never returns
    /// (within 100 ms of its CPU time, as WebKit ends the web process of a view it closes), its
    /// document goes away (pending calls reject with `NavigationError`) and nothing of it runs
    /// again.
    public nonisolated func close() async {
        // First, from here: a script of the page's that is running, and one that never
        // returns, holds the page's thread, where the rest of the close runs. WebKit ends the
        // web process of a view it closes at once.
        interruption.interrupt()
        await closeDocuments()
    }

    private func closeDocuments() async {
        guard !isClosed else { return }
        isClosed = true
        isClosedFlag.store(true, ordering: .releasing)
        latestNavigation += 1
        for context in documents.values { await context.close() }
        documents.removeAll()
        shown = nil
        for context in takePrewarmed().values { await context.close() }
    }

    // MARK: New windows

    /// Asks the navigation delegate about a new window's action, then the UI delegate for the
    /// view to open it in (WebKit's `createWebViewWith`); `nil` when either refuses. Runs while
    /// the opener's script waits, so it touches nothing isolated to the page.
    nonisolated func createWindow(for action: NavigationAction) async -> (any WebView)? {
        let clock = ContinuousClock()
        let asked = clock.now
        let policy = await configuration.navigationDelegate?.webPage(self, decidePolicyFor: action) ?? .allow
        emit(.navigationPolicy(action, policy: policy, waited: clock.now - asked))
        guard policy == .allow else { return nil }
        return await configuration.uiDelegate?.webPage(self, createWebPageFor: action)
    }

    /// Gives this page's shown document a `message` event: `wire` its data's structured clone in
    /// its wire form (``WebPlatformPrelude/wireFormSource``; a `messageerror` when it cannot be
    /// made again), `ports` the ends of the ports it transferred (of this page's data store),
    /// from `origin`, its `source` the proxy of the window `window` this page opened, or
    /// `window.opener` (`nil`).
    func deliverMessage(wire: String, ports: [MessagePortPipes.End] = [], origin: String, fromWindow window: Int?) async {
        // Ports that reach no document are closed, as their partners then learn.
        guard let context = documents[.page],
            await DocumentEnvironment.dispatchMessage(wire: wire, ports: ports, origin: origin, fromWindow: window, in: context)
        else { return ports.forEach(configuration.websiteDataStore.messagePorts.close) }
    }

    /// Loads `request` into a window this page opened.
    nonisolated static func load(_ request: PageRequest, into view: any WebView, referredBy referrer: Referrer) async {
        if let headless = view as? WebPage {
            // As a window another document opened loads it: referred by that document.
            var action = NavigationAction(
                request: request, navigationType: .other, isUserInitiated: false, isMainFrame: true, sourceURL: referrer.source)
            action.referrer = referrer
            _ = try? await headless.navigate(action)
        } else {
            _ = try? await view.load(request.url)
        }
    }

    nonisolated func emit(_ event: PageEvent) {
        // A script the page's close stopped is no error of the page's.
        if case .scriptError(let error, _, _) = event, error.isStop, interruption.isInterrupted { return }
        configuration.eventHandler?(event)
    }
}
