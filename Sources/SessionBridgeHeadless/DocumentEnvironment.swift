import Dispatch
import Foundation
import HTTPTypes
import NIOHTTP1
import OrderedCollections
import SessionBridgeCookies
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import Synchronization

/// What the native side of a document's page APIs works with. Shared by every world of the
/// document, which is how isolated worlds see the same cookies and location.
struct DocumentEnvironment: Sendable {
    /// The document's URL, which `history` and fragment navigations change (``DocumentURL``).
    let documentURL: DocumentURL
    let title: String?
    let jar: CookieJar
    let loader: HTTPLoader
    let tracker: ActivityTracker
    let page: PageReference
    let configuration: WebPageConfiguration
    /// When the document's navigation started and how its request went: its
    /// `performance.timeOrigin` and the uptime `performance.now()` counts from.
    let timing: NavigationTiming
    /// `document.referrer`: the `Referer` its navigation's request sent, empty for none.
    let referrer: String
    /// The document's referrer policy (its `Referrer-Policy` field or `<meta name="referrer">`).
    let referrerPolicy: Referrer.Policy
    /// Where its first `<base href>` points, if it has one.
    let baseHref: URL?
    /// The encoding its bytes were read in (`document.characterSet`), and its classic
    /// scripts' unless their answers name another.
    let encoding: DocumentEncoding
    /// Its Content Security Policy, if it has one.
    let contentSecurity: DocumentContentSecurity
    /// The bodies of its `keepalive` requests in flight.
    let keepaliveBytes = KeepaliveQuota()
    /// The document's import map and the modules its page world was given.
    let modules = DocumentModules()
    /// The messages it posts to other windows, delivered in order.
    let postedMessages = PostedMessages()
    /// Its scripts of another origin fetched without CORS, whose errors the page sees muted.
    let mutedScripts = MutedScripts()
    /// A worker's own URL where it is not ``url``: a worker made from a `blob:` URL
    /// has it as its location, and its document's URL for its origin, cookies and base.
    var locationURL: URL? = nil
    var timeOrigin: (epochMilliseconds: Double, uptime: UInt64) { timing.origin }

    /// The document's URL now.
    var url: URL { documentURL.url }

    /// What the document's relative URLs resolve against (HTML's document base URL): its
    /// `<base href>`, or its URL.
    var baseURL: URL { baseHref ?? url }

    /// The base URL a `<base href>` gives a document at `url`: `nil` for none, and for one that is
    /// no URL or a `data:` or `javascript:` one, as in HTML.
    static func baseHref(_ href: String?, of url: URL) -> URL? {
        guard let href, let base = URLResolution.resolve(href, against: url) else { return nil }
        return ["data", "javascript"].contains(base.scheme?.lowercased() ?? "") ? nil : base
    }

    /// The referrer of a request the document makes (Fetch's `client`).
    var clientReferrer: Referrer { Referrer(source: url, policy: referrerPolicy) }

    /// The referrer a page's request names: `""` none, `about:client` (or nothing) the
    /// document, a URL of its origin that URL (another origin's is the document's), with
    /// `policy` or the document's.
    func referrer(named name: String?, policy: String?) -> Referrer {
        let policy = policy.flatMap { Referrer.Policy(rawValue: $0) } ?? referrerPolicy
        switch name {
        case "": return Referrer(source: nil, policy: policy)
        case nil, "about:client": return Referrer(source: url, policy: policy)
        case let name?:
            let given = URLResolution.resolve(name, against: baseURL)
            let origin = given.flatMap { SecurityOrigin(url: $0) }
            return Referrer(source: origin != nil && origin == SecurityOrigin(url: url) ? given : url, policy: policy)
        }
    }

    /// Whether the document is a secure context (Secure Contexts): its URL is `https`, `wss` or
    /// `file`, or its host is loopback (`localhost`, `127.0.0.0/8`, `::1`).
    var isSecureContext: Bool { Referrer.isPotentiallyTrustworthy(url) }

    /// The request context for a subresource request from this document to `target`; the
    /// document is top-level, so its site keys partitioned cookies.
    func subresourceContext(for target: URL, method: String) -> RequestContext {
        RequestContext(
            isCrossSite: !Self.isSameSite(url, target, jar.publicSuffixList), isTopLevelNavigation: false, method: method,
            topLevelSite: jar.site(of: url))
    }

    static func isSameSite(_ a: URL, _ b: URL, _ list: PublicSuffixList?) -> Bool {
        guard let hostA = a.host?.lowercased(), let hostB = b.host?.lowercased() else { return false }
        if hostA == hostB { return true }
        guard let list, let siteA = list.registrableDomain(of: hostA) else { return false }
        return siteA == list.registrableDomain(of: hostB)
    }
}

/// The page a document belongs to, held weakly so documents never keep a closed page alive.
final class PageReference: Sendable {
    private let storage = Mutex<WeakPage>(WeakPage())

    private struct WeakPage: @unchecked Sendable {
        // `@unchecked Sendable` is safe: `WebPage` is an actor (Sendable); a weak reference to
        // it is only read and written under the enclosing Mutex.
        weak var page: WebPage?
    }

    init(_ page: WebPage) { storage.withLock { $0.page = page } }

    var page: WebPage? { storage.withLock { $0.page } }
}

/// Counts work a page waits for outside JavaScript (navigations, new windows).
final class ActivityTracker: Sendable {
    private let count = Atomic<Int>(0)
    func begin() { count.add(1, ordering: .relaxed) }
    func end() { count.subtract(1, ordering: .relaxed) }
    /// Until when work that may call for more keeps the page busy, and whether a task waits
    /// for that moment (one at most, however much such work comes).
    private let lingering = Mutex<(until: ContinuousClock.Instant, waiting: Bool)>((.now, false))

    /// Work that may call for more soon (a WebSocket's message, which an answer may follow):
    /// the page is not quiet for `duration` after it.
    func linger(_ duration: Duration = .milliseconds(500)) {
        let start = lingering.withLock { state in
            state.until = max(state.until, .now + duration)
            defer { state.waiting = true }
            return !state.waiting
        }
        guard start else { return }
        begin()
        Task {
            while true {
                let until = lingering.withLock { $0.until }
                if until <= .now {
                    let done = lingering.withLock { state in
                        guard state.until <= .now else { return false }
                        state.waiting = false
                        return true
                    }
                    if done { break }
                    continue
                }
                try? await Task.sleep(until: until)
            }
            self.end()
        }
    }
    var isIdle: Bool { count.load(ordering: .relaxed) == 0 }

    /// Whether a document of the page started or connected to a worker (``PageWorker``): only
    /// then does the page's quiet wait for workers (a look into each document costs a hop).
    var hasWorkers: Bool { workers.load(ordering: .relaxed) }
    private let workers = Atomic<Bool>(false)
    func noteWorker() { workers.store(true, ordering: .relaxed) }
}

/// The functions of a document's prelude native code calls (its stages' events: `finish`).
@safe  // its JavaScriptCore references are used only on its context's engine thread, while the context lives
final class DocumentControls {
    let finish: RawObject
    /// Fires `storage` at the window: `(key, oldValue, newValue, url)`.
    let storage: RawObject?
    /// Fires the events of a document being left: `("beforeunload")` as a navigation starts,
    /// `()` for `pagehide`, `visibilitychange` and `unload` as the next document replaces it.
    let leave: RawObject?
    /// Fires a `message` from another window: `(json, origin, windowID or null for the opener)`.
    let message: RawObject?
    /// Fires an external script's `load` or `error`: `(type, index, src, attributes, line)`.
    let scriptEvent: RawObject?
    /// Fires `securitypolicyviolation`: `(init, index, src, attributes, line)`, `index` the
    /// `<script>` element's or -1 for the document.
    var violation: RawObject?
    /// Makes `eval` and `Function` report their refusals.
    var refuseEval: RawObject?
    /// Fires a `message` from its `Worker` object at a dedicated worker's global scope: `(wire, ports)`.
    var workerMessage: RawObject?
    /// Fires `connect` at a shared worker's global scope: `(ends)`, the port's.
    var workerConnect: RawObject?
    /// Whether a script added a listener or a handler of those events (only then is `leave` called).
    var listensForLeave = false
    /// Whether `beforeunload` is being dispatched: the document starts no navigation and opens
    /// no window meanwhile (kept here, where a listener the time limit ended cannot leave it set).
    var dismissing = false
    /// Whether a script can see a `<script>` element's events by other means than its handler
    /// attributes: a capture listener of `load` or `error` on the window or the document, or an
    /// element it was given (`document.currentScript`).
    var listensForScriptEvents = false
    init(finish: RawObject, storage: RawObject?, leave: RawObject?, message: RawObject?, scriptEvent: RawObject?) {
        unsafe self.finish = unsafe finish
        unsafe self.storage = unsafe storage
        unsafe self.leave = unsafe leave
        unsafe self.message = unsafe message
        unsafe self.scriptEvent = unsafe scriptEvent
    }
}

/// A page world listening for `BroadcastChannel` messages: the platform's function that gives
/// them to its channels.
@safe  // its JavaScriptCore reference is used only on its context's engine thread, while the context lives
final class BroadcastListener {
    let receive: RawObject
    init(receive: RawObject) { unsafe self.receive = unsafe receive }
}

/// A page world watching its cookies (`cookieStore`'s `change` events): the platform's
/// function that fires them, and the jar's observation.
@safe  // its JavaScriptCore reference is used only on its context's engine thread, while the context lives
final class CookieWatcher {
    let receive: RawObject
    let observation: CookieObservation
    init(receive: RawObject, observation: CookieObservation) {
        unsafe self.receive = unsafe receive
        self.observation = observation
    }
}

/// A connection a page's script holds open (a `WebSocket`'s, an `EventSource`'s).
protocol PageConnection: AnyObject, Sendable {
    /// What the page hears of it.
    associatedtype Event: Sendable
    /// Ends it, as a browser does when the page's document goes away.
    func end()
}

extension WebSocketConnection: PageConnection {
    func end() { goAway() }
}

extension EventSourceConnection: PageConnection {
    func end() { cancel() }
}

/// A page world's connections of one kind, by the ids its scripts' objects hold (with the
/// reconnections that wait), and the platform's function that gives them what happened.
@safe  // its JavaScriptCore reference is used only on its context's engine thread, while the context lives
final class PageConnections<Connection: PageConnection> {
    let receive: RawObject
    let inbox: ScriptContextInbox<(id: Int, event: Connection.Event)>
    var connections: [Int: Connection] = [:]
    var reconnections: [Int: Task<Void, Never>] = [:]
    var nextID = 1
    /// The most connections (reconnections that wait included) one world holds at once.
    static var maximumConnections: Int { 200 }
    init(receive: RawObject, inbox: ScriptContextInbox<(id: Int, event: Connection.Event)>) {
        unsafe self.receive = unsafe receive
        self.inbox = inbox
    }
}

typealias WebSocketClients = PageConnections<WebSocketConnection>
typealias EventSourceClients = PageConnections<EventSourceConnection>

/// Whether a WebSocket's opening handshake has ended (reported once, whichever way it ended).
private final class HandshakeEnd: Sendable {
    private let ended = Atomic<Bool>(false)
    /// `true` the first time only.
    func end() -> Bool { !ended.exchange(true, ordering: .relaxed) }
}

/// A page world using Web Locks: the platform's function that hears of its requests.
@safe  // its JavaScriptCore reference is used only on its context's engine thread, while the context lives
final class LockClient {
    let receive: RawObject
    init(receive: RawObject) { unsafe self.receive = unsafe receive }
}

/// A document's page APIs made before its response: the prelude has run with an empty
/// `native` object and an empty location record; ``DocumentEnvironment/install`` binds the
/// functions to the document once its URL is known, and `native.locate` fills the record when a
/// script first reads it (the prelude reads both only when a script calls it).
@safe  // its JavaScriptCore references are used only on its context's engine thread, while the context lives
final class PreparedDocument {
    let native: RawObject
    let location: RawObject
    init(native: RawObject, location: RawObject) {
        unsafe self.native = unsafe native
        unsafe self.location = unsafe location
    }
}

/// The environment of the document a context serves, bound at commit; the page APIs' native
/// functions, made ahead with the document, hold it and read it when called (no lookup per
/// call). Only touched on the context's thread.
final class BoundEnvironment {
    var environment: DocumentEnvironment?
}

extension DocumentEnvironment {
    /// Runs the document and bridge preludes in a context no script has touched yet, and makes
    /// the page APIs' native functions, ahead of the document (while its request is out, or
    /// when the page prewarms its next document): they depend on nothing the response decides.
    /// The functions read the document's environment, bound at ``install``.
    ///
    /// With `warmingUp` (a document prepared ahead of its navigation's response), the prelude
    /// also runs, once, the page APIs' code that documents run first (its `warmUp`: the load
    /// events' dispatch and fetch), off the navigation's path, where the document would
    /// otherwise run it cold.
    /// `navigator.platform` as WebKit makes it: the system's name and its processor's, as
    /// `uname` gives them ("Linux x86_64" here).
    static let navigatorPlatform: String = {
        #if arch(x86_64)
        let machine = "x86_64"
        #elseif arch(arm64)
        let machine = "aarch64"
        #else
        let machine = ""
        #endif
        #if os(Linux)
        let system = "Linux"
        #else
        let system = "Darwin"
        #endif
        return machine.isEmpty ? system : "\(system) \(machine)"
    }()

    /// `navigator.hardwareConcurrency` as WebKit reports it: 4 below 8 processors, else 8, so
    /// that the figure tells a page little about the machine.
    static let hardwareConcurrency = ProcessInfo.processInfo.activeProcessorCount < 8 ? 4 : 8

    static func prepare(
        userAgent: String, warmingUp: Bool = false, workerName: String? = nil, sharedWorker: Bool = false,
        in context: isolated ScriptContext
    ) throws(ScriptError) {
        guard context.attachment(PreparedDocument.self) == nil else { return }
        // A worker has no bridge: WebKit gives message handlers to windows only.
        if workerName == nil { try BridgeInstallation.prepare(in: context) }
        context.prepareAwaiting()
        let native = unsafe context.makeObject(), location = unsafe context.makeObject()
        // Protected as soon as they are made (compiling the prelude next allocates a lot) and
        // kept until ``install`` (the prelude's closures hold them after).
        unsafe context.protect(native)
        unsafe context.protect(location)
        // The location record gets its members now, ahead, and only their values when a script
        // first reads it (`locate`; adding the ten members at commit took 56 µs of figure 6's
        // cycle: a new object of a fresh global object gets a new shape with each member added).
        for key in locationKeys { unsafe context.setProperty(context.jsValue(.string("")), as: key, on: location) }
        var prepared = false
        defer {
            if !prepared { unsafe [native, location].forEach { unsafe context.unprotect($0) } }
        }
        let factory = try unsafe context.evaluateRaw(DocumentPrelude.script)
        guard let factoryFunction = unsafe context.function(factory) else {
            throw ScriptError(kind: .exception, name: "Error", message: "document prelude failed")
        }
        let controls = try unsafe context.call(
            factoryFunction,
            [
                native, location, context.jsValue(.string(userAgent)), context.jsValue(.string(Self.navigatorPlatform)),
                context.jsValue(.number(Double(Self.hardwareConcurrency))), context.jsValue(workerName.map { .string($0) } ?? .null),
                context.jsValue(.bool(sharedWorker)), context.jsValue(.string(PreferredLanguage.current)),
            ])
        unsafe defineNativeFunctions(on: native, in: context)
        unsafe context.attach(PreparedDocument(native: native, location: location))
        prepared = true
        if let finish = try? unsafe context.protectedFunction("finish", of: controls) {
            let storage = try? unsafe context.protectedFunction("storage", of: controls)
            let leave = try? unsafe context.protectedFunction("leave", of: controls)
            let message = try? unsafe context.protectedFunction("message", of: controls)
            let scriptEvent = try? unsafe context.protectedFunction("scriptEvent", of: controls)
            // Uncaught exceptions and rejections reach the window's listeners first.
            unsafe context.uncaughtHook = try? unsafe context.protectedFunction("uncaught", of: controls)
            let documentControls = unsafe DocumentControls(
                finish: finish, storage: storage, leave: leave, message: message, scriptEvent: scriptEvent)
            unsafe documentControls.refuseEval = try? unsafe context.protectedFunction("refuseEval", of: controls)
            if workerName != nil {
                unsafe documentControls.workerMessage = try? unsafe context.protectedFunction("workerMessage", of: controls)
                unsafe documentControls.workerConnect = try? unsafe context.protectedFunction("workerConnect", of: controls)
            }
            unsafe documentControls.violation = try? unsafe context.protectedFunction("violation", of: controls)
            context.attach(documentControls)
            context.onClose { context in
                guard let controls = context.attachment(DocumentControls.self) else { return }
                unsafe context.unprotect(controls.finish)
                if let storage = unsafe controls.storage { unsafe context.unprotect(storage) }
                if let leave = unsafe controls.leave { unsafe context.unprotect(leave) }
                if let message = unsafe controls.message { unsafe context.unprotect(message) }
                if let scriptEvent = unsafe controls.scriptEvent { unsafe context.unprotect(scriptEvent) }
                if let violation = unsafe controls.violation { unsafe context.unprotect(violation) }
                if let refuseEval = unsafe controls.refuseEval { unsafe context.unprotect(refuseEval) }
                if let workerMessage = unsafe controls.workerMessage { unsafe context.unprotect(workerMessage) }
                if let workerConnect = unsafe controls.workerConnect { unsafe context.unprotect(workerConnect) }
                if let hook = unsafe context.uncaughtHook { unsafe context.unprotect(hook) }
                unsafe context.uncaughtHook = nil
            }
        }
        if warmingUp, let warmUp = try? unsafe context.protectedFunction("warmUp", of: controls) {
            defer { unsafe context.unprotect(warmUp) }
            _ = try? unsafe context.call(warmUp, [])
        }
    }

    /// The world's open compression streams, made with the first.
    private static func compressionStreams(in context: isolated ScriptContext) -> CompressionStreamTable {
        attached(CompressionStreamTable.init, in: context)
    }

    /// The world's `crypto.subtle` keys, made with the first.
    private static func subtleKeys(in context: isolated ScriptContext) -> SubtleKeyTable {
        attached(SubtleKeyTable.init, in: context)
    }

    /// The context's table of type `T`, made (and attached) by `make` on first use.
    private static func attached<T: AnyObject>(_ make: () -> T, in context: isolated ScriptContext) -> T {
        if let table = context.attachment(T.self) { return table }
        let table = make()
        context.attach(table)
        return table
    }

    /// The window id the prelude passes first (0 for anything that is no integer).
    /// The `CryptoKey` a call describes from argument `first` on: its handle, type,
    /// `extractable`, algorithm (JSON text) and usages, with its material from the world's keys.
    private static func storedCryptoKey(_ call: RawCall, from first: Int, in context: isolated ScriptContext) throws -> StoredCryptoKey {
        let held = subtleKeys(in: context).keys(among: [try unsafe context.scriptValue(call[first])])
        guard let material = held.keys.values.first, let type = try unsafe context.scriptValue(call[first + 1]).stringValue,
            case .bool(let extractable) = try unsafe context.scriptValue(call[first + 2]),
            let algorithm = try unsafe context.scriptValue(call[first + 3]).stringValue,
            case .array(let usages) = try unsafe context.scriptValue(call[first + 4])
        else { throw ScriptThrow("DataCloneError", "The key could not be cloned.") }
        return StoredCryptoKey(
            key: material, type: type, extractable: extractable, algorithm: algorithm, usages: usages.compactMap(\.stringValue))
    }

    /// A kept key as the wire form reads it: `[handle, type, extractable, algorithm, usages]`,
    /// its material under a new handle of the world's keys.
    private static func keyParts(_ key: StoredCryptoKey, in context: isolated ScriptContext) -> ScriptValue {
        let handle = subtleKeys(in: context).insert(key.key)
        return .array([
            .number(Double(handle)), .string(key.type), .bool(key.extractable), .string(key.algorithm),
            .array(key.usages.map { .string($0) }),
        ])
    }

    private static func windowID(_ call: RawCall, in context: isolated ScriptContext) throws(ScriptError) -> Int {
        Int(javaScriptNumber: try unsafe context.scriptValue(call[0]).numberValue ?? 0) ?? 0
    }

    /// The page APIs' native functions, on the prelude's `native` object.
    private static func defineNativeFunctions(on native: RawObject, in context: isolated ScriptContext) {
        // Made with the document ahead of it; each reads the environment bound at commit.
        let bound = BoundEnvironment()
        context.attach(bound)
        let held = EngineThreadOnly(bound)
        func add(_ name: String, _ body: @escaping @Sendable (isolated ScriptContext, RawCall, DocumentEnvironment) throws -> RawValue?) {
            let function = unsafe context.makeFunction { context, call in
                guard let env = held.value.environment else { return nil }
                return try unsafe body(context, call, env)
            }
            unsafe context.defineReadOnly(function, as: name, on: native)
        }
        unsafe add("cookieGet") { context, _, env in unsafe context.jsValue(.string(env.jar.documentCookie(for: env.url))) }
        unsafe add("cookieSet") { context, call, env in
            if let value = unsafe call[0], let text = try unsafe context.scriptValue(value).stringValue {
                env.jar.setDocumentCookie(text, for: env.url)
            }
            return nil
        }
        // `(receive)`: the page world's first `BroadcastChannel` listens for its origin's messages
        // from other documents, given to `receive(name, data, origin)`, until the world closes.
        unsafe add("broadcastListen") { context, call, env in
            guard context.attachment(BroadcastListener.self) == nil, let receive = unsafe context.function(call[0]),
                let origin = SecurityOrigin(url: env.url)
            else { return nil }
            unsafe context.protect(receive)
            unsafe context.attach(BroadcastListener(receive: receive))
            let channels = env.configuration.websiteDataStore.broadcastChannels
            let id = ObjectIdentifier(context)
            let inbox = ScriptContextInbox<BroadcastChannels.Message>(for: context) { context, message in
                dispatchBroadcast(message, in: context)
            }
            channels.listen(origin, as: id) { inbox.send($0) }
            context.onClose { context in
                channels.stopListening(id)
                if let listener = context.attachment(BroadcastListener.self) { unsafe context.unprotect(listener.receive) }
            }
            return nil
        }
        // `(name, data)`: a channel's message for the other documents of this origin.
        unsafe add("broadcastPost") { context, call, env in
            let name = try unsafe context.scriptValue(call[0]).stringValue ?? ""
            let data: ScriptValue
            do throws(ScriptError) {
                data = try unsafe context.scriptValue(call[1])
            } catch {
                throw ScriptThrow("DataCloneError", "BroadcastChannel.postMessage: \(error.message)")
            }
            guard let origin = SecurityOrigin(url: env.url) else { return nil }
            env.configuration.websiteDataStore.broadcastChannels.post(
                BroadcastChannels.Message(name: name, data: data, origin: origin.description), from: origin, by: ObjectIdentifier(context))
            return nil
        }
        // `(receive)`: the page world's first lock request joins the data store's Web Locks;
        // `receive(kind, id)` hears of its requests granted later or stolen, until it closes
        // (its locks are then released).
        unsafe add("lockJoin") { context, call, env in
            // An opaque origin has no locks (`false`: the requests are a `SecurityError`).
            guard let origin = SecurityOrigin(url: env.url) else { return unsafe context.jsValue(.bool(false)) }
            guard context.attachment(LockClient.self) == nil, let receive = unsafe context.function(call[0]) else {
                return unsafe context.jsValue(.bool(true))
            }
            unsafe context.protect(receive)
            unsafe context.attach(LockClient(receive: receive))
            let locks = env.configuration.websiteDataStore.webLocks
            let id = ObjectIdentifier(context)
            let inbox = ScriptContextInbox<WebLocks.Notice>(for: context) { context, notice in dispatchLockNotice(notice, in: context) }
            locks.join(id, origin: origin) { inbox.send($0) }
            context.onClose { context in
                locks.leave(id)
                if let client = context.attachment(LockClient.self) { unsafe context.unprotect(client.receive) }
            }
            return unsafe context.jsValue(.bool(true))
        }
        // `(id, name, exclusive, ifAvailable, steal)`: "granted", "queued" or "unavailable".
        unsafe add("lockRequest") { context, call, env in
            guard context.attachment(LockClient.self) != nil else { return unsafe context.jsValue(.string("unavailable")) }
            let request = WebLocks.Request(
                id: Int(try unsafe context.scriptValue(call[0]).numberValue ?? 0), client: ObjectIdentifier(context),
                name: try unsafe context.scriptValue(call[1]).stringValue ?? "",
                exclusive: try unsafe context.scriptValue(call[2]) == .bool(true))
            let outcome = env.configuration.websiteDataStore.webLocks.request(
                request, ifAvailable: try unsafe context.scriptValue(call[3]) == .bool(true),
                steal: try unsafe context.scriptValue(call[4]) == .bool(true))
            return unsafe context.jsValue(.string(outcome.rawValue))
        }
        unsafe add("lockRelease") { context, call, env in
            let id = Int(try unsafe context.scriptValue(call[0]).numberValue ?? 0)
            env.configuration.websiteDataStore.webLocks.release(id, by: ObjectIdentifier(context))
            return nil
        }
        unsafe add("lockAbort") { context, call, env in
            let id = Int(try unsafe context.scriptValue(call[0]).numberValue ?? 0)
            return unsafe context.jsValue(.bool(env.configuration.websiteDataStore.webLocks.abort(id, by: ObjectIdentifier(context))))
        }
        // `[held, pending]`, each a list of `[name, exclusive, clientId]`.
        unsafe add("lockQuery") { context, _, env in
            let (held, pending) = env.configuration.websiteDataStore.webLocks.query(by: ObjectIdentifier(context))
            func list(_ snapshots: [WebLocks.Snapshot]) -> ScriptValue {
                .array(snapshots.map { .array([.string($0.name), .bool($0.exclusive), .string($0.clientID)]) })
            }
            return unsafe context.jsValue(.array([list(held), list(pending)]))
        }
        // The Cookie Store API's: `("list")` the cookies a script sees, `[[name, value]]`;
        // `("set", name, value, expires or null, domain or null, path, sameSite)` stores one
        // (`Secure`), and gives `null` or why the jar refused it; `("watch", receive)` calls
        // `receive(kind, name, value)` for each change to a cookie the document sees.
        unsafe add("cookieStore") { context, call, env in
            switch try unsafe context.scriptValue(call[0]).stringValue {
            case "list":
                return unsafe context.jsValue(
                    .array(env.jar.documentCookies(for: env.url).map { .array([.string($0.name), .string($0.value)]) }))
            case "set":
                let text = { (index: Int) throws(ScriptError) -> String? in try unsafe context.scriptValue(call[index]).stringValue }
                let expires = try unsafe context.scriptValue(call[3]).numberValue
                var attributes: [CookieAttribute] = [
                    .path(try text(5) ?? "/"), .secure, .sameSite(SameSite(rawValue: try text(6) ?? "strict") ?? .strict),
                ]
                if let domain = try text(4) { attributes.append(.domain(domain.lowercased())) }
                if let expires { attributes.append(.expires(Date(timeIntervalSince1970: expires / 1000))) }
                let cookie = ParsedSetCookie(name: try text(1) ?? "", value: try text(2) ?? "", attributes: attributes)
                guard let error = env.jar.store(cookie, from: env.url, context: .sameSite, fromScript: true).error else { return nil }
                return unsafe context.jsValue(.string("The cookie was not stored: \(error)"))
            case "watch":
                guard context.attachment(CookieWatcher.self) == nil, let receive = unsafe context.function(call[1]) else { return nil }
                unsafe context.protect(receive)
                // Sent on in the order they were made, to the page's thread; none once the world closed.
                let inbox = ScriptContextInbox<CookieChange>(for: context) { context, change in dispatchCookieChange(change, in: context) }
                let observation = env.jar.observe { change in if !change.cookie.isHttpOnly { inbox.send(change) } }
                unsafe context.attach(CookieWatcher(receive: receive, observation: observation))
                context.onClose { context in
                    guard let watcher = context.attachment(CookieWatcher.self) else { return }
                    watcher.observation.cancel()
                    unsafe context.unprotect(watcher.receive)
                }
                return nil
            default:
                return nil
            }
        }
        // `WebSocket`'s: `("open", url, protocols, receive)` opens a connection and gives its id;
        // `("send", id, text or bytes)`; `("close", id, code, reason)`.
        unsafe add("webSocket") { context, call, env in
            let operation = try unsafe context.scriptValue(call[0]).stringValue
            if operation == "open" {
                // Checked again here, whatever the page did to the builtins the platform's checks use:
                // nothing else reaches the handshake's request line and fields.
                guard let asked = URL(string: try unsafe context.scriptValue(call[1]).stringValue ?? ""),
                    ["ws", "wss"].contains(asked.scheme?.lowercased() ?? ""), asked.host?.isEmpty == false,
                    (0...65_535).contains(asked.port ?? 0)
                else { return nil }
                let url = env.contentSecurity.upgraded(asked)
                let protocols = try unsafe context.scriptValue(call[2]).stringValue ?? ""
                let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
                guard
                    protocols.isEmpty
                        || protocols.split(separator: ", ", omittingEmptySubsequences: false).allSatisfy({
                            !$0.isEmpty && $0.allSatisfy(tokenCharacters.contains)
                        })
                else { return nil }
                // Refused by the document's Content Security Policy: WebKit's `SecurityError`.
                do { try env.checkConnection(to: url, in: context) } catch {
                    throw ScriptThrow("SecurityError", "The operation is insecure.")
                }
                guard
                    let clients: WebSocketClients = unsafe pageConnections(
                        in: context, receive: call[3], dispatch: { context, id, event in dispatchWebSocket(id, event, in: context) })
                else { return nil }
                let id = clients.nextID
                clients.nextID += 1
                // A page past its share of connections has the next one fail, as a browser past its limit
                // does; so does one to a restricted port, with WebKit's console line.
                let restricted = BlockedLoad.isRestrictedPort(url)
                if restricted {
                    env.loader.events?(
                        .console(ConsoleMessage(level: .error, text: "WebSocket port \(url.port ?? 0) blocked"), url: env.url))
                }
                if restricted || clients.connections.count >= WebSocketClients.maximumConnections {
                    clients.inbox.send((id, .closed(code: 1006, reason: "", wasClean: false, failed: true)))
                } else {
                    clients.connections[id] = openWebSocket(url, protocols: protocols, id: id, inbox: clients.inbox, env: env)
                }
                return unsafe context.jsValue(.number(Double(id)))
            }
            guard let clients = context.attachment(WebSocketClients.self),
                let connection = clients.connections[Int(try unsafe context.scriptValue(call[1]).numberValue ?? 0)]
            else { return nil }
            switch (operation, try unsafe context.scriptValue(call[2])) {
            case ("send", .string(let text)):
                env.tracker.linger()
                connection.send(.text(text))
            case ("send", .bytes(let bytes)):
                env.tracker.linger()
                connection.send(.binary(bytes))
            case ("close", let code):
                let reason = try unsafe context.scriptValue(call[3]).stringValue ?? ""
                connection.send(.close(code: Int(code.numberValue ?? 1000), reason: reason))
            default: break
            }
            return nil
        }
        // `EventSource`'s: `("open", url, withCredentials, lastEventID, receive)` starts a source's
        // request and gives its id; `("reconnect", id, milliseconds, lastEventID)` starts it again
        // after the delay; `("close", id)` ends it.
        unsafe add("eventSource") { context, call, env in
            let operation = try unsafe context.scriptValue(call[0]).stringValue
            if operation == "open" {
                guard let asked = URL(string: try unsafe context.scriptValue(call[1]).stringValue ?? ""),
                    ["http", "https"].contains(asked.scheme?.lowercased() ?? ""), asked.host?.isEmpty == false
                else { return nil }
                let url = env.contentSecurity.upgraded(asked)
                // Refused by the document's Content Security Policy: WebKit's `SecurityError`.
                do { try env.checkConnection(to: url, in: context) } catch {
                    throw ScriptThrow("SecurityError", "The operation is insecure.")
                }
                let withCredentials = try unsafe context.scriptValue(call[2]) == .bool(true)
                let lastEventID = try unsafe context.scriptValue(call[3]).stringValue ?? ""
                guard
                    let clients: EventSourceClients = unsafe pageConnections(
                        in: context, receive: call[4], dispatch: { context, id, event in dispatchEventSource(id, event, in: context) })
                else { return nil }
                let id = clients.nextID
                clients.nextID += 1
                // A page past its share of sources has the next one fail, as with its sockets; so does
                // one to a restricted port, with WebKit's console line.
                let restricted = BlockedLoad.isRestrictedPort(url)
                if restricted {
                    env.loader.events?(.console(ConsoleMessage(level: .error, text: BlockedLoad.restrictedPortLine(url)), url: env.url))
                }
                guard !restricted, clients.connections.count + clients.reconnections.count < WebSocketClients.maximumConnections else {
                    clients.inbox.send((id, .failed))
                    return unsafe context.jsValue(.number(Double(id)))
                }
                clients.connections[id] = startEventSource(
                    url, withCredentials: withCredentials, lastEventID: lastEventID, id: id, inbox: clients.inbox, env: env)
                return unsafe context.jsValue(.number(Double(id)))
            }
            guard let clients = context.attachment(EventSourceClients.self) else { return nil }
            let id = Int(try unsafe context.scriptValue(call[1]).numberValue ?? 0)
            clients.connections.removeValue(forKey: id)?.cancel()
            clients.reconnections.removeValue(forKey: id)?.cancel()
            guard operation == "reconnect", let url = URL(string: try unsafe context.scriptValue(call[4]).stringValue ?? "") else {
                return nil
            }
            let delay = min(max(try unsafe context.scriptValue(call[2]).numberValue ?? 3000, 0), 86_400_000)
            let lastEventID = try unsafe context.scriptValue(call[3]).stringValue ?? ""
            let withCredentials = try unsafe context.scriptValue(call[5]) == .bool(true)
            let inbox = clients.inbox
            // A reconnection soon is the page's work still; a longer wait leaves the page quiet
            // (a stream that a server ends every time would hold it busy for good).
            if delay <= 1000 { env.tracker.linger(.milliseconds(Int64(delay) + 500)) }
            clients.reconnections[id] = Task {
                try? await Task.sleep(for: .milliseconds(Int64(delay)))
                guard !Task.isCancelled else { return }
                inbox.send(
                    (
                        id,
                        .reconnecting(
                            startEventSource(
                                url, withCredentials: withCredentials, lastEventID: lastEventID, id: id, inbox: inbox, env: env))
                    ))
            }
            return nil
        }
        // `(sourceURL)`: whether an error thrown there reaches the page muted (``MutedScripts``).
        unsafe add("muted") { context, call, env in
            let source = try unsafe context.scriptValue(call[0]).stringValue ?? ""
            return unsafe context.jsValue(.bool(!source.isEmpty && env.mutedScripts.contains(source)))
        }
        unsafe add("listensForLeave") { context, _, _ in
            context.attachment(DocumentControls.self)?.listensForLeave = true
            return nil
        }
        unsafe add("listensForScriptEvents") { context, _, _ in
            context.attachment(DocumentControls.self)?.listensForScriptEvents = true
            return nil
        }
        // The platform's dispatch (``DocumentPrelude``'s `hooks.callbacks`): a task of its own
        // marks its entry as the platform's, and each event callback in such an entry ends
        // with a microtask checkpoint.
        unsafe add("platformTask") { context, _, _ in
            context.markPlatformEntry(nativeCallsBelow: 1)
            return nil
        }
        unsafe add("checkpoint") { context, _, _ in
            context.runMicrotasksBetweenCallbacks()
            return nil
        }
        unsafe add("report") { context, call, env in
            unsafe context.reportUncaught(call[0] ?? context.undefined)
            return nil
        }
        // `(record, version)`: fills the location record with the committed document's values
        // unless `version` is the document URL's (the record is current), and returns the
        // URL's version; nothing before the document is committed.
        unsafe add("locate") { context, call, env in
            guard let record = unsafe context.object(call[0]) else { return nil }
            let (url, version) = env.documentURL.current
            if try unsafe context.scriptValue(call[1]).numberValue != Double(version) {
                for (key, value) in zip(locationKeys, locationValues(of: env.locationURL ?? url, origin: url, title: env.title)) {
                    unsafe context.setProperty(context.jsValue(.string(value)), as: key, on: record)
                }
            }
            return unsafe context.jsValue(.number(Double(version)))
        }
        unsafe add("navigate") { context, call, env in
            if context.attachment(DocumentControls.self)?.dismissing == true { return nil }
            let kind = try unsafe context.scriptValue(call[0]).stringValue ?? "assign"
            let target = try unsafe context.scriptValue(call[1]).stringValue ?? ""
            guard let url = URLResolution.resolve(target, against: env.baseURL) else {
                throw ScriptThrow("SyntaxError", "'\(target)' is not a valid URL")
            }
            // To a `javascript:` URL: its code runs in this document, in a task of its own
            // (``DocumentEnvironment/runJavaScriptURL(_:in:)``), as in WebKit.
            if kind != "reload", url.scheme?.lowercased() == "javascript" {
                env.runJavaScriptURL(target, in: context)
                return nil
            }
            // To a fragment of this document: no new document; the prelude fires `hashchange`
            // with the old URL it gets back.
            let old = env.url
            if kind != "reload", DocumentURL.isFragmentNavigation(old, to: url) {
                env.changeURL(to: url)
                return unsafe context.jsValue(.string(old.absoluteString))
            }
            env.startNavigation(to: url, type: kind == "reload" ? .reload : .scriptInitiated, replacing: kind == "replace")
            return nil
        }
        // The page's session history across documents (``SessionHistory``): `("counts")` the
        // documents before and after this one, `("push")` when this document added an entry
        // (those after it are dropped), `("go", delta)` loads the document `delta` away;
        // whether there was one.
        unsafe add("sessionHistory") { context, call, env in
            let operation = try unsafe context.scriptValue(call[0]).stringValue ?? ""
            guard let page = env.page.page, page.thread.isIsolatingCurrentContext() == true else {
                return unsafe context.jsValue(operation == "counts" ? [0, 0] : false)
            }
            switch operation {
            case "counts":
                let counts = page.assumeIsolated { $0.sessionHistory.counts }
                return unsafe context.jsValue([.number(Double(counts.before)), .number(Double(counts.after))])
            case "push":
                page.assumeIsolated { $0.sessionHistory.dropForward() }
                return nil
            case "go":
                let delta = try unsafe context.scriptValue(call[1]).numberValue.flatMap { Int(javaScriptNumber: $0) } ?? 0
                guard let entry = page.assumeIsolated({ $0.sessionHistory.entry(by: delta) }) else {
                    return unsafe context.jsValue(.bool(false))
                }
                env.startNavigation(to: entry.url, type: .backForward, historyEntry: entry.index)
                return unsafe context.jsValue(.bool(true))
            default:
                return nil
            }
        }
        // `history.pushState`, `replaceState` and their traversals: `(url)` shows `url`
        // (resolved against the document's) as the document's URL, and returns it; a
        // `SecurityError` when the document cannot have that URL.
        unsafe add("history") { context, call, env in
            let target = try unsafe context.scriptValue(call[0]).stringValue
            guard let target else { return unsafe context.jsValue(.string(env.url.absoluteString)) }
            // An empty URL is the document's own, without its fragment (the URL Standard's
            // parse of "" against it).
            let resolved =
                target.isEmpty
                ? URL(string: env.url.absoluteString.components(separatedBy: "#")[0]) : URLResolution.resolve(target, against: env.baseURL)
            guard let url = resolved?.absoluteURL else {
                throw ScriptThrow("SecurityError", "'\(target)' is not a valid URL")
            }
            guard DocumentURL.canRewrite(env.url, to: url) else {
                throw ScriptThrow(
                    "SecurityError",
                    "A history state object with URL '\(url.absoluteString)' cannot be created in a document with URL '\(env.url.absoluteString)'."
                )
            }
            env.changeURL(to: url)
            return unsafe context.jsValue(.string(url.absoluteString))
        }
        unsafe add("resolve") { context, call, env in
            let target = try unsafe context.scriptValue(call[0]).stringValue ?? ""
            guard let url = URLResolution.resolve(target, against: env.baseURL) else {
                throw ScriptThrow("TypeError", "'\(target)' is not a valid URL")
            }
            return unsafe context.jsValue(.string(url.absoluteString))
        }
        // ``WebPlatformPrelude``'s function (`("make")`), its randomness and its clock:
        // `("random", count)` gives `count` bytes (at most 65,536) from the system's generator;
        // `("now")` the milliseconds since the document's time origin, coarsened to 100 µs;
        // `("origin")` that origin; `("secure")` whether the document is a secure context;
        // `("isProxy", value)` whether `value` is a `Proxy`.
        unsafe add("platform") { context, call, env in
            switch try unsafe context.scriptValue(call[0]).stringValue {
            case "random":
                let asked = try unsafe context.scriptValue(call[1]).numberValue ?? 0
                let count = asked.isFinite ? Int(min(max(asked, 0), 65_536)) : 0
                var generator = SystemRandomNumberGenerator()
                var bytes = [UInt8](repeating: 0, count: count)
                for start in stride(from: 0, to: count, by: 8) {
                    var word = generator.next()
                    for index in start..<min(start + 8, count) {
                        bytes[index] = UInt8(truncatingIfNeeded: word)
                        word >>= 8
                    }
                }
                return unsafe context.jsValue(.bytes(bytes))
            case "now":
                let elapsed = DispatchTime.now().uptimeNanoseconds &- env.timeOrigin.uptime
                return unsafe context.jsValue(.number(Double(elapsed / 100_000) / 10))
            case "origin":
                return unsafe context.jsValue(.number(env.timeOrigin.epochMilliseconds))
            case "referrer":
                return unsafe context.jsValue(.string(env.referrer))
            case "base":
                return unsafe context.jsValue(.string(env.baseURL.absoluteString))
            case "charset":
                return unsafe context.jsValue(.string(env.encoding.rawValue))
            case "nonceHidden":
                // A document with a policy from its fields hides its elements' nonces from
                // `getAttribute` (HTML's nonce hiding), as WebKit does.
                return unsafe context.jsValue(.bool(env.contentSecurity.hasFieldPolicy))
            case "secure":
                return unsafe context.jsValue(.bool(env.isSecureContext))
            case "navigation":
                // `[type, redirectCount, fetchStart, responseEnd]`, the times in milliseconds
                // from the time origin (0 for a document that was not fetched).
                let timing = env.timing
                return unsafe context.jsValue(
                    .array([
                        .string(timing.kind.rawValue), .number(Double(timing.redirectCount)),
                        .number(timing.requestStart.map(timing.milliseconds(at:)) ?? 0),
                        .number(timing.responseEnd.map(timing.milliseconds(at:)) ?? 0),
                    ]))
            case "registerBlob":
                // `("registerBlob", url, bytes, type)`: a blob URL this context made, for the
                // origin's other contexts (``BlobURLRegistry``); its own list has it already.
                let url = try unsafe context.scriptValue(call[1]).stringValue ?? ""
                guard Self.isOwnBlobURL(url, env: env), case .bytes(let bytes) = try unsafe context.scriptValue(call[2]) else {
                    return nil
                }
                let type = try unsafe context.scriptValue(call[3]).stringValue ?? ""
                let registry = env.configuration.websiteDataStore.blobURLs
                let owner = ObjectIdentifier(context)
                guard registry.register(url, bytes: bytes, type: type, owner: owner) else { return nil }
                if context.attachment(BlobURLOwner.self) == nil {
                    context.attach(BlobURLOwner())
                    context.onClose { _ in registry.removeAll(ownedBy: owner) }
                }
                return nil
            case "revokeBlob":
                let url = try unsafe context.scriptValue(call[1]).stringValue ?? ""
                if Self.isOwnBlobURL(url, env: env) { env.configuration.websiteDataStore.blobURLs.revoke(url) }
                return nil
            case "blobURL":
                // `("blobURL", url)`: `{url, type, bytes}` of a blob URL of this origin another
                // context made, or `null`.
                let url = try unsafe context.scriptValue(call[1]).stringValue ?? ""
                guard Self.isOwnBlobURL(url, env: env), let entry = env.configuration.websiteDataStore.blobURLs.entry(url) else {
                    return unsafe context.jsValue(.null)
                }
                return unsafe context.jsValue(.object(["url": .string(url), "type": .string(entry.type), "bytes": .bytes(entry.bytes)]))
            case "isProxy":
                // `("isProxy", value)`: whether `value` is a `Proxy`, which `structuredClone`
                // refuses (JavaScript cannot tell one from its target).
                return unsafe context.jsValue(.bool(context.isProxy(call[1])))
            case "make":
                return try unsafe context.evaluateRaw(WebPlatformPrelude.script)
            case "indexedDB":
                return try unsafe context.evaluateRaw(WebPlatformPrelude.indexedDBScript)
            case "caches":
                return try unsafe context.evaluateRaw(WebPlatformPrelude.cacheStorageScript)
            case "wireForm":
                return try unsafe context.evaluateRaw(WebPlatformPrelude.wireFormScript)
            case "shareKey":
                // `("shareKey", handle, type, extractable, algorithm, usages)`: a `CryptoKey` in a
                // message to another document; its id (``SharedCryptoKeys``).
                let key = try storedCryptoKey(call, from: 1, in: context)
                return unsafe context.jsValue(.string(SharedCryptoKeys.shared.share(key)))
            case "sharedKey":
                // `("sharedKey", id)`: the key of a message from another document (``keyParts(_:in:)``).
                let id = try unsafe context.scriptValue(call[1]).stringValue ?? ""
                guard let key = SharedCryptoKeys.shared.key(id) else {
                    throw ScriptThrow("DataCloneError", "A key the message refers to is no longer kept.")
                }
                return unsafe context.jsValue(keyParts(key, in: context))
            case "subtle":
                // `("subtle", [operation, ...])`: a promise of the operation's result, worked
                // out on a global queue (``SubtleCryptoOperations``).
                guard case .array(let arguments) = try unsafe context.scriptValue(call[1]) else { return nil }
                let keys = subtleKeys(in: context), held = keys.keys(among: arguments)
                let (promise, deferred) = unsafe try context.makeDeferredPromise()
                context.startTask(settling: deferred) {
                    await withCheckedContinuation { continuation in
                        DispatchQueue.global().async {
                            let result = Result<ScriptValue, any Error> {
                                try SubtleCryptoOperations.perform(arguments, held: held, keys: keys)
                            }
                            continuation.resume(returning: result)
                        }
                    }
                }
                return unsafe promise
            case "copyKey":
                // `("copyKey", handle)`: a new handle to a copy of a key's material (a cloned `CryptoKey`).
                let keys = subtleKeys(in: context)
                let held = keys.keys(among: [try unsafe context.scriptValue(call[1])])
                guard let key = held.keys.values.first else { throw ScriptThrow("DataCloneError", "The key could not be cloned.") }
                return unsafe context.jsValue(.number(Double(keys.insert(key))))
            case "zlib":
                // The Compression Streams: `("zlib", "open", format, compresses)` gives a
                // handle, `("zlib", "push", handle, bytes)` and `("zlib", "finish", handle)` the
                // output, `("zlib", "close", handle)` lets a stream go (``CompressionStreamTable``).
                let streams = compressionStreams(in: context)
                let operation = try unsafe context.scriptValue(call[1]).stringValue
                let first = try unsafe context.scriptValue(call[2])
                let handle = first.numberValue.flatMap(Int.init(javaScriptNumber:)) ?? 0
                let result: Result<ScriptValue?, ZlibStream.Failure>
                switch operation {
                case "open":
                    let compresses = try unsafe context.scriptValue(call[3]).boolValue ?? false
                    result = Result { () throws(ZlibStream.Failure) in
                        guard let format = first.stringValue.flatMap(ZlibStream.Format.init(rawValue:)) else {
                            throw ZlibStream.Failure(message: "Unsupported compression format")
                        }
                        return .number(Double(try streams.open(format, compresses: compresses)))
                    }
                case "push":
                    guard case .bytes(let input) = try unsafe context.scriptValue(call[3]) else {
                        throw ScriptThrow("TypeError", "A chunk must be an ArrayBuffer or an ArrayBufferView")
                    }
                    result = Result { () throws(ZlibStream.Failure) in .bytes(try streams.push(handle, input)) }
                case "finish":
                    result = Result { () throws(ZlibStream.Failure) in .bytes(try streams.finish(handle)) }
                case "close":
                    streams.close(handle)
                    result = .success(nil)
                default:
                    result = .success(nil)
                }
                switch result {
                case .success(let value): return unsafe value.map { unsafe context.jsValue($0) }
                case .failure(let failure): throw ScriptThrow("TypeError", failure.message)
                }
            case "forget":
                // `("forget", handle)`: a collected `CryptoKey`'s material goes.
                if let handle = try unsafe context.scriptValue(call[1]).numberValue.flatMap(Int.init(javaScriptNumber:)) {
                    subtleKeys(in: context).remove(handle)
                }
                return nil
            default:
                return nil
            }
        }
        // `localStorage` and `sessionStorage` (``WebPlatformPrelude/storageSource``):
        // `(area, operation, ...)`, area `"local"` or `"session"`; a document without an origin
        // of its own gets a `SecurityError`.
        unsafe add("storage") { context, call, env in
            let area = try unsafe context.scriptValue(call[0]).stringValue
            let storage = area == "local" ? env.configuration.websiteDataStore.localStorage : env.page.page?.sessionStorage
            guard let storage, let origin = WebStorage.origin(of: env.url) else {
                throw ScriptThrow("SecurityError", "The operation is insecure.")
            }
            let first = try unsafe context.scriptValue(call[2]), key = first.stringValue ?? ""
            let document = (id: ObjectIdentifier(env.documentURL), url: env.url)
            switch try unsafe context.scriptValue(call[1]).stringValue {
            case "length":
                return unsafe context.jsValue(.number(Double(storage.count(forOrigin: origin))))
            case "key":
                let index = first.numberValue.flatMap(Int.init(javaScriptNumber:)) ?? -1
                return unsafe context.jsValue(storage.key(at: index, forOrigin: origin).map { .string($0) } ?? .null)
            case "get":
                return unsafe context.jsValue(storage.item(key, forOrigin: origin).map { .string($0) } ?? .null)
            case "set":
                let value = try unsafe context.scriptValue(call[3]).stringValue ?? ""
                return unsafe context.jsValue(.bool(storage.setItem(value, forKey: key, origin: origin, by: document)))
            case "remove":
                storage.removeItem(key, forOrigin: origin, by: document)
            case "clear":
                storage.removeItems(forOrigin: origin, by: document)
            case "keys":
                return unsafe context.jsValue(.array(storage.items(forOrigin: origin).map { .string($0.key) }))
            default:
                break
            }
            return nil
        }
        // Cache Storage (``WebPlatformPrelude/cacheStorageSource``): `(operation, ...)` on the
        // data store's caches of the document's origin.
        unsafe add("caches") { context, call, env in
            let caches = env.configuration.websiteDataStore.cacheStorages
            guard let origin = WebStorage.origin(of: env.url) else {
                throw ScriptThrow("SecurityError", "The operation is insecure.")
            }
            let number = { (index: Int) throws(ScriptError) -> Int in
                try unsafe context.scriptValue(call[index]).numberValue.flatMap(Int.init(javaScriptNumber:)) ?? -1
            }
            switch try unsafe context.scriptValue(call[0]).stringValue {
            case "names":
                return unsafe context.jsValue(.array(caches.names(forOrigin: origin).map { .string($0) }))
            case "id":
                // `("id", name, creating)`: the cache's id, or `null`.
                let name = try unsafe context.scriptValue(call[1]).stringValue ?? ""
                let creating = try unsafe context.scriptValue(call[2]).boolValue ?? false
                return unsafe context.jsValue(
                    caches.cacheID(name, forOrigin: origin, creating: creating).map { .number(Double($0)) } ?? .null)
            case "delete":
                let name = try unsafe context.scriptValue(call[1]).stringValue ?? ""
                return unsafe context.jsValue(.bool(caches.removeCache(name, forOrigin: origin)))
            case "heads":
                return unsafe context.jsValue(
                    caches.heads(ofCache: try number(1), forOrigin: origin).map { .array($0.map(ScriptValue.array)) } ?? .null)
            case "body":
                let body = caches.body(ofEntry: try number(2), inCache: try number(1), forOrigin: origin)
                return unsafe context.jsValue(body.map { .bytes($0) } ?? .null)
            case "change":
                // `("change", id, removing, adding)`: `adding` a list of `[head, body]`.
                let elements = { (value: ScriptValue) -> [ScriptValue] in if case .array(let elements) = value { elements } else { [] } }
                let removing = elements(try unsafe context.scriptValue(call[2]))
                let read = Result { () throws(ScriptError) in
                    try unsafe context.scriptValue(call[3], limits: ConversionLimits(maxBytes: CacheStorages.quota + 1024 * 1024))
                }
                if case .failure(let error) = read, error.kind == .conversion { return unsafe context.jsValue(.string("quota")) }
                let adding: [(head: [ScriptValue], body: [UInt8])] = elements(try read.get()).compactMap { pair in
                    guard case .array(let parts) = pair, parts.count == 2, case .array(let head) = parts[0] else { return nil }
                    if case .bytes(let body) = parts[1] { return (head, body) }
                    return (head, [])
                }
                let outcome = caches.change(
                    cache: try number(1), forOrigin: origin,
                    removing: Set(removing.compactMap { $0.numberValue.flatMap(Int.init(javaScriptNumber:)) }), adding: adding)
                return unsafe context.jsValue(.string(outcome == .done ? "done" : outcome == .noCache ? "gone" : "quota"))
            default:
                return nil
            }
        }
        // `indexedDB` (``WebPlatformPrelude/indexedDBSource``): `(operation, name, ...)` on the
        // data store's databases of the document's origin; a document without an origin of its
        // own gets a `SecurityError`.
        unsafe add("indexedDB") { context, call, env in
            let databases = env.configuration.websiteDataStore.indexedDatabases
            guard let origin = WebStorage.origin(of: env.url) else {
                throw ScriptThrow("SecurityError", "IDBFactory.open() called in an invalid security context")
            }
            let name = try unsafe context.scriptValue(call[1]).stringValue ?? ""
            let operation = try unsafe context.scriptValue(call[0]).stringValue
            switch operation {
            case "generation":
                return unsafe context.jsValue(.number(Double(databases.generation(of: name, forOrigin: origin))))
            case "load":
                guard let stored = databases.database(name, forOrigin: origin) else { return unsafe context.jsValue(.null) }
                return unsafe context.jsValue(
                    .array([.number(Double(stored.generation)), .number(Double(stored.version)), .string(stored.state)]))
            case "commit":
                let version = try unsafe context.scriptValue(call[2]).numberValue.flatMap(Int.init(javaScriptNumber:)) ?? 1
                // A state larger than an origin may hold is refused as the quota refuses it.
                let read = Result { () throws(ScriptError) in
                    try unsafe context.scriptValue(call[3], limits: ConversionLimits(maxBytes: IndexedDatabases.quota))
                }
                if case .failure(let error) = read, error.kind == .conversion { return unsafe context.jsValue(.null) }
                let state = try read.get().stringValue ?? ""
                // The database's epoch the connection was opened in: after a deletion by the app
                // or a clearing, nothing is committed (`false`; `null` for the quota).
                let epoch = try unsafe context.scriptValue(call[4]).numberValue.flatMap(Int.init(javaScriptNumber:))
                guard let generation = databases.commit(name, version: version, state: state, forOrigin: origin, epoch: epoch) else {
                    let ended = epoch.map { $0 != databases.epoch(of: name, forOrigin: origin) } ?? false
                    return unsafe context.jsValue(ended ? .bool(false) : .null)
                }
                return unsafe context.jsValue(.number(Double(generation)))
            case "delete":
                return unsafe context.jsValue(.bool(databases.removeDatabase(name, forOrigin: origin, endingConnections: false)))
            case "epoch":
                return unsafe context.jsValue(.number(Double(databases.epoch(of: name, forOrigin: origin))))
            case "connect":
                let holder = ObjectIdentifier(context)
                // The document's connections are forgotten with its world.
                if context.attachment(IndexedDBConnectionsHeld.self) == nil {
                    context.attach(IndexedDBConnectionsHeld())
                    context.onClose { _ in databases.release(holder) }
                }
                databases.connect(name, forOrigin: origin, holder: holder)
                return unsafe context.jsValue(.number(Double(databases.epoch(of: name, forOrigin: origin))))
            case "disconnect":
                databases.disconnect(name, forOrigin: origin, holder: ObjectIdentifier(context))
            case "others":
                return unsafe context.jsValue(
                    .number(Double(databases.connections(to: name, forOrigin: origin, besides: ObjectIdentifier(context)))))
            case "acquire", "relinquish":
                // (operation, name, exclusive, stores): a transaction's object stores, taken from
                // and given back to the store's other pages (the document holds a connection, so
                // they are let go with its world).
                let exclusive = try unsafe context.scriptValue(call[2]) == .bool(true)
                guard case .array(let items) = try unsafe context.scriptValue(call[3]) else { return nil }
                let stores = items.compactMap(\.stringValue)
                let holder = ObjectIdentifier(context)
                let answer =
                    operation == "acquire"
                    ? databases.acquire(stores, of: name, forOrigin: origin, exclusive: exclusive, holder: holder)
                    : databases.relinquish(stores, of: name, forOrigin: origin, exclusive: exclusive, holder: holder)
                return unsafe context.jsValue(.bool(answer))
            case "names":
                return unsafe context.jsValue(
                    .array(databases.databases(forOrigin: origin).map { .array([.string($0.name), .number(Double($0.version))]) }))
            case "storeKey":
                // (operation, "", handle, type, extractable, algorithm, usages): a `CryptoKey` put
                // in a database, kept natively; the state refers to it by the id returned.
                let key = try storedCryptoKey(call, from: 2, in: context)
                return unsafe context.jsValue(.string(databases.storeKey(key, forOrigin: origin)))
            case "readKey":
                // (operation, "", id): the key read back (``keyParts(_:in:)``).
                let id = try unsafe context.scriptValue(call[2]).stringValue ?? ""
                guard let key = databases.storedKey(id, forOrigin: origin) else {
                    throw ScriptThrow("DataCloneError", "A key the database refers to is missing.")
                }
                return unsafe context.jsValue(keyParts(key, in: context))
            default:
                break
            }
            return nil
        }
        unsafe add("open") { context, call, env in
            if context.attachment(DocumentControls.self)?.dismissing == true { return unsafe context.jsValue(.null) }
            let target = try unsafe context.scriptValue(call[0]).stringValue ?? ""
            let name = try unsafe context.scriptValue(call[1]).stringValue ?? "_blank"
            var url: URL? = nil
            if !target.isEmpty {
                guard let resolved = URLResolution.resolve(target, against: env.baseURL) else {
                    throw ScriptThrow("SyntaxError", "'\(target)' is not a valid URL")
                }
                url = resolved
            }
            return unsafe context.jsValue(env.openWindow(url, name: name, on: context.thread).map { .number(Double($0)) } ?? .null)
        }
        unsafe add("windowClosed") { context, call, env in
            let id = try windowID(call, in: context)
            return unsafe context.jsValue(.bool(env.page.page?.openedWindows.isClosed(id) ?? true))
        }
        // Whether a window this page opened may be another engine's, which takes a message as
        // JSON (`true` too while the UI delegate has not yet given its view).
        unsafe add("windowForeign") { context, call, env in
            let id = try windowID(call, in: context)
            return unsafe context.jsValue(.bool(!(env.page.page?.openedWindows.view(id) is WebPage)))
        }
        unsafe add("windowClose") { context, call, env in
            env.closeWindow(try windowID(call, in: context))
            return nil
        }
        unsafe add("windowHref") { context, call, env in
            let id = try windowID(call, in: context)
            return unsafe context.jsValue(.string(env.page.page?.openedWindows.href(of: id) ?? "about:blank"))
        }
        unsafe add("windowNavigate") { context, call, env in
            let id = try windowID(call, in: context)
            let target = try unsafe context.scriptValue(call[1]).stringValue ?? ""
            guard let url = URLResolution.resolve(target, against: env.baseURL) else {
                throw ScriptThrow("SyntaxError", "'\(target)' is not a valid URL")
            }
            env.navigateWindow(id, to: url)
            return nil
        }
        // `()`: `null` for a page no other page opened, else whether its opener is still open.
        unsafe add("opener") { context, _, env in
            guard env.page.page?.opener.withLock({ $0 }) != nil else { return unsafe context.jsValue(.null) }
            return unsafe context.jsValue(.bool(env.openerIsOpen))
        }
        // `()`: the `<script>` running now as `[index, src, attributes, line]`, or `null`.
        unsafe add("currentScript") { context, _, env in
            guard let script = env.page.page?.runningScript.withLock({ $0 }) else { return unsafe context.jsValue(.null) }
            return unsafe context.jsValue(
                .array([
                    .number(Double(script.index)), .string(script.src), attributesValue(script.attributes), .number(Double(script.line)),
                ]))
        }
        unsafe add("closeSelf") { _, _, env in
            env.closeOpenedSelf()
            return nil
        }
        unsafe add("openerPost") { context, call, env in
            let wire = try unsafe context.scriptValue(call[0]).stringValue ?? "null"
            let targetOrigin = try unsafe context.scriptValue(call[1]).stringValue ?? "/"
            let ports = try unsafe carriedPorts(call[3], in: context)
            env.postMessageToOpener(wire: wire, ports: ports, targetOrigin: targetOrigin)
            return nil
        }
        unsafe add("windowPost") { context, call, env in
            let id = try windowID(call, in: context)
            let wire = try unsafe context.scriptValue(call[1]).stringValue ?? "null"
            let targetOrigin = try unsafe context.scriptValue(call[2]).stringValue ?? "/"
            let json = try unsafe context.scriptValue(call[3]).stringValue ?? "null"
            let ports = try unsafe carriedPorts(call[4], in: context)
            env.postMessage(to: id, wire: wire, json: json, ports: ports, targetOrigin: targetOrigin)
            return nil
        }
        unsafe add("panel") { context, call, env in
            let name = try unsafe context.scriptValue(call[0]).stringValue ?? ""
            guard let kind = PanelKind(rawValue: name) else { throw ScriptThrow("TypeError", "unknown panel '\(name)'") }
            let message = try unsafe context.scriptValue(call[1]).stringValue ?? ""
            let defaultText = try unsafe context.scriptValue(call[2]).stringValue
            return unsafe context.jsValue(env.runPanel(kind, message, defaultText, on: context.thread))
        }
        // `(index, src, attributes, line, type, source)`: a `<script>` element's handler attribute,
        // made as HTML makes one: a function of `(element, document)` that gives the handler,
        // `null` when the document's Content Security Policy refuses it (`script-src-attr`), or the
        // `SyntaxError` of code that does not parse. Made natively, so that a policy refusing
        // `eval` does not refuse it.
        unsafe add("handler") { context, call, env in
            var attributes: [String: String] = [:]
            if case .object(let members) = try unsafe context.scriptValue(call[2]) {
                for (name, value) in members { attributes[name] = value.stringValue }
            }
            let script = WebPage.DocumentScript(
                index: Int(try unsafe context.scriptValue(call[0]).numberValue ?? -1),
                src: try unsafe context.scriptValue(call[1]).stringValue ?? "",
                attributes: attributes, line: Int(try unsafe context.scriptValue(call[3]).numberValue ?? 0))
            let type = (try unsafe context.scriptValue(call[4]).stringValue ?? "").filter { $0.isASCII && $0.isLetter }
            let source = try unsafe context.scriptValue(call[5]).stringValue ?? ""
            if let policy = env.contentSecurity.policy {
                let verdict = policy.handlerAttribute(source)
                env.report(verdict, script: script, in: context)
                if !verdict.allowed { return unsafe context.jsValue(.null) }
            }
            var exception: RawValue? = nil
            let url = env.url.absoluteString
            guard
                unsafe context.makeFunction(
                    parameters: ["event"], body: source, sourceURL: url, startingLine: script.line, exception: &exception) != nil
            else { return unsafe exception }
            let made = unsafe context.makeFunction(
                parameters: ["element", "document"],
                body: "with (document) with (element) return function on\(type)(event) {\n\(source)\n};",
                sourceURL: url, startingLine: script.line, exception: &exception)
            return unsafe made ?? exception
        }
        // `(url)`: whether the document's Content Security Policy refuses a connection to `url`
        // (a `data:` or blob URL the page reads itself), reported as WebKit reports it.
        unsafe add("connectRefused") { context, call, env in
            guard env.contentSecurity.policy != nil, let url = URL(string: try unsafe context.scriptValue(call[0]).stringValue ?? "") else {
                return unsafe context.jsValue(.bool(false))
            }
            do { try env.checkConnection(to: url, in: context) } catch { return unsafe context.jsValue(.bool(true)) }
            return unsafe context.jsValue(.bool(false))
        }
        // `(url)`: whether a beacon to `url` is refused before it is queued (a restricted port:
        // `sendBeacon` returns `false`, as in WebKit, whose console lines it writes).
        unsafe add("beaconRefused") { context, call, env in
            guard let url = URL(string: try unsafe context.scriptValue(call[0]).stringValue ?? ""), BlockedLoad.isRestrictedPort(url) else {
                return unsafe context.jsValue(.bool(false))
            }
            for text in [
                BlockedLoad.restrictedPortLine(url),
                "Beacon API cannot load \(url.absoluteString). Not allowed to use restricted network port",
            ] {
                env.loader.events?(.console(ConsoleMessage(level: .error, text: text), url: env.url))
            }
            return unsafe context.jsValue(.bool(true))
        }
        // `(code)`: `eval` or `Function` was refused by the document's policy (they throw next).
        unsafe add("evalRefused") { context, call, env in
            guard let policy = env.contentSecurity.policy else { return nil }
            let sample = try unsafe context.scriptValue(call[0]).stringValue ?? ""
            env.report(policy.evaluation(sample: sample), location: context.callerLocation(), console: false, in: context)
            return nil
        }
        unsafe add("fetch") { context, call, env in
            let target = try unsafe context.scriptValue(call[0]).stringValue ?? ""
            let method = try unsafe context.scriptValue(call[1]).stringValue ?? "GET"
            let headerPairs = try unsafe context.scriptValue(call[2])
            // Text (sent as UTF-8) or bytes (an ArrayBuffer or a view of one).
            let body: [UInt8]? =
                switch try unsafe context.scriptValue(call[3]) {
                case .string(let text): Array(text.utf8)
                case .bytes(let bytes): bytes
                default: nil
                }
            let credentials = try unsafe context.scriptValue(call[4]).stringValue ?? "same-origin"
            // "follow", or "manual" / "error": a redirect answers as an opaque redirect or fails.
            let redirect = try unsafe context.scriptValue(call[5]).stringValue ?? "follow"
            // `keepalive` (a beacon's): the request goes on when the document is gone, and the
            // page's activity counts it until it ends.
            let keepalive = try unsafe context.scriptValue(call[6]) == .bool(true)
            // "cors", "no-cors" or "same-origin" (the prelude refused any other).
            let mode = try unsafe context.scriptValue(call[7]).stringValue.flatMap(CrossOriginFetch.Mode.init) ?? .cors
            // Who asked ("Fetch API", "XMLHttpRequest"), for the console's message when the CORS protocol refuses.
            let api = try unsafe context.scriptValue(call[8]).stringValue ?? "Fetch API"
            // Subresource Integrity's metadata: the digests the body may have.
            let integrity = try unsafe context.scriptValue(call[11]).stringValue ?? ""
            // The cache mode (the prelude checked it). There is no HTTP cache: `only-if-cached` finds nothing.
            let cache = try unsafe context.scriptValue(call[12]).stringValue ?? "default"
            if cache == "only-if-cached" { throw ScriptThrow("TypeError", "Load failed") }
            // The request's `referrer` and `referrerPolicy` (the prelude checked them).
            let referrer = try env.referrer(
                named: unsafe context.scriptValue(call[9]).stringValue, policy: unsafe context.scriptValue(call[10]).stringValue)
            // A URL that does not parse, or that holds credentials (`fetch`'s, not `XMLHttpRequest`'s),
            // is refused, as WebKit refuses it.
            guard let asked = URLResolution.resolve(target, against: env.baseURL),
                api != "Fetch API" || (asked.user == nil && asked.password == nil)
            else {
                throw ScriptThrow("TypeError", "URL is not valid or contains user credentials.")
            }
            let url = env.contentSecurity.upgraded(asked)
            var headers: [HTTPHeader] = []
            let checkedMethod: String
            do throws(FetchRequestRules.Violation) {
                checkedMethod = try FetchRequestRules.method(method)
                if case .array(let pairs) = headerPairs {
                    for pair in pairs {
                        guard case .array(let kv) = pair, kv.count == 2, let name = kv[0].stringValue, let value = kv[1].stringValue else {
                            throw FetchRequestRules.Violation(message: "a header must be a name and a value")
                        }
                        if let field = try FetchRequestRules.header(name: name, value: value) {
                            headers.append(HTTPHeader(field.name, field.value))
                        }
                    }
                }
            } catch {
                throw ScriptThrow("TypeError", "fetch: \(error.message)")
            }
            // Refused by the document's Content Security Policy (`connect-src`): a failed load, as in WebKit.
            if env.contentSecurity.policy != nil {
                do { try env.checkConnection(to: url, in: context) } catch { throw ScriptThrow("TypeError", "Load failed") }
            }
            let request = PageRequest(url: url, method: checkedMethod, headers: headers, body: body)
            // The bodies of a document's keepalive requests in flight stay within 64 KB, as the
            // Fetch Standard has it; WebKit's console lines, and a failed load, past it.
            let quota = keepalive ? body?.count ?? 0 : 0
            if keepalive, !env.keepaliveBytes.take(quota) {
                for text in [
                    "Reached maximum amount of queued data of 64Kb for keepalive requests",
                    "\(api) cannot load \(url.absoluteString) due to access control checks.",
                ] {
                    env.loader.events?(.console(ConsoleMessage(level: .error, text: text), url: env.url))
                }
                throw ScriptThrow("TypeError", "Load failed")
            }
            let (promise, deferred) = unsafe try context.makeDeferredPromise()
            let tracker = keepalive ? env.tracker : nil
            let keepaliveBytes = env.keepaliveBytes
            tracker?.begin()
            let task = context.startTask(settling: deferred, outlivingTheContext: keepalive) {
                defer {
                    tracker?.end()
                    if keepalive { keepaliveBytes.give(quota) }
                }
                do throws(PageError) {
                    let response = try await env.fetch(
                        request, credentials: credentials, mode: mode, referrer: referrer, cache: cache,
                        followRedirects: redirect == "follow")
                    if redirect != "follow", HTTPLoader.isRedirect(response) {
                        guard redirect == "manual" else {
                            // WebKit's words: the redirect refused, then as if access control had refused it.
                            for text in [
                                "Not allowed to follow a redirection while loading \(request.url.absoluteString)",
                                "\(api) cannot load \(request.url.absoluteString) due to access control checks.",
                            ] {
                                env.loader.events?(.console(ConsoleMessage(level: .error, text: text), url: env.url))
                            }
                            return .failure(ScriptThrow("TypeError", "Load failed"))
                        }
                        return .success(
                            .object([
                                "status": 0, "statusText": "", "url": .string(request.url.absoluteString), "redirected": false,
                                "headers": .array([]), "body": "", "type": "opaqueredirect",
                            ]))
                    }
                    if !integrity.isEmpty,
                        !SubresourceIntegrity.matches(integrity, body: response.body, opaque: response.type == "opaque")
                    {
                        let text = "\(api) cannot load \(request.url.absoluteString). Failed integrity metadata check."
                        env.loader.events?(.console(ConsoleMessage(level: .error, text: text), url: env.url))
                        return .failure(ScriptThrow("TypeError", "Load failed"))
                    }
                    if response.type == "opaque" {
                        return .success(
                            .object([
                                "status": 0, "statusText": "", "url": "", "redirected": false, "headers": .array([]), "body": "",
                                "type": "opaque",
                            ]))
                    }
                    var members: OrderedDictionary<String, ScriptValue> = [
                        "status": .number(Double(response.statusCode)), "statusText": .string(response.statusText),
                        // Without its fragment, as Fetch serializes it (`response.url`, `responseURL`).
                        "url": .string(DocumentURL.withoutFragment(response.url)), "redirected": .bool(!response.redirects.isEmpty),
                        "headers": .array(response.headers.map { .array([.string($0.name.lowercased()), .string($0.value)]) }),
                        "type": .string(response.type),
                    ]
                    members.merge(Self.bodyMembers(response.body)) { $1 }
                    return .success(.object(members))
                } catch  where error.code == .mixedContent {
                    env.reportMixedContent(request.url)
                    return .failure(ScriptThrow("TypeError", "Load failed"))
                } catch  where error.code == .contentSecurityPolicy {
                    return .failure(ScriptThrow("TypeError", "Load failed"))
                } catch  where error.code == .accessControl {
                    // As WebKit: the reason goes to the console, the page learns only that it failed.
                    for text in BlockedLoad.accessControlLines(error.message, loading: request.url, by: api) {
                        env.loader.events?(.console(ConsoleMessage(level: .error, text: text), url: env.url))
                    }
                    return .failure(ScriptThrow("TypeError", "Load failed"))
                } catch {
                    // As WebKit: the page learns only that it failed (the exchange shows why).
                    return .failure(ScriptThrow("TypeError", "Load failed"))
                }
            }
            // `(…, ticket)`: the request's number, for ``cancelFetch`` when the page aborts it.
            if let ticket = unsafe context.object(call[13]) {
                unsafe context.setProperty(call.makeNumber(Double(task)), as: "id", on: ticket)
            }
            return unsafe promise
        }
        // `(id)`: the page aborted request `id` (its signal, `XMLHttpRequest.abort()`, a
        // timeout): WebKit cancels the load, so no later redirect hop is sent and none of its
        // cookies is set. An answer that already arrived stays as it was.
        unsafe add("cancelFetch") { context, call, _ in
            let id = call.number(at: 0)
            if let id = Int(exactly: id) { context.cancelTask(id) }
            return nil
        }
        unsafe defineWorkerFunctions(add)
    }

    /// Whether `url` is a blob URL of the document's origin (`blob:<origin>/…`); never for an
    /// opaque origin, whose URLs no other context may read.
    static func isOwnBlobURL(_ url: String, env: DocumentEnvironment) -> Bool {
        guard let origin = SecurityOrigin(url: env.url) else { return false }
        return url.hasPrefix("blob:\(origin)/")
    }

    /// The members of the prelude's location record, in the order ``install`` fills them.
    private static let locationKeys = ["href", "origin", "protocol", "host", "hostname", "port", "pathname", "search", "hash", "title"]

    /// Installs the page APIs and the bridge into one world's context, before any script
    /// (preparing it first if that was not done during the request).
    static func install(_ environment: DocumentEnvironment, world: ContentWorld, in context: isolated ScriptContext) throws(ScriptError) {
        try prepare(userAgent: environment.configuration.userAgent, in: context)
        guard let prepared = context.attachment(PreparedDocument.self) else {
            throw ScriptError(kind: .exception, name: "Error", message: "document prelude failed")
        }
        context.detach(PreparedDocument.self)
        defer { unsafe [prepared.native, prepared.location].forEach { unsafe context.unprotect($0) } }
        try BridgeInstallation.install(
            environment.configuration.userContentController, world: world, frame: FrameInfo(url: environment.url), in: context)
        // The location record is filled when a script first reads it (`locate`).
        context.attachment(BoundEnvironment.self)?.environment = environment
        context.timerCodeURL = environment.url.absoluteString
        if world == .page { observeLocalStorage(of: environment, in: context) }
    }

    /// The page world hears of `localStorage` changes other documents of its origin make, as
    /// `storage` events, until it closes.
    private static func observeLocalStorage(of environment: DocumentEnvironment, in context: isolated ScriptContext) {
        guard let origin = WebStorage.origin(of: environment.url) else { return }
        let storage = environment.configuration.websiteDataStore.localStorage
        let id = ObjectIdentifier(environment.documentURL)
        // In the order they were made, on the page's thread; none once the world closed.
        let inbox = ScriptContextInbox<WebStorage.Change>(for: context) { context, change in dispatchStorage(change, in: context) }
        storage.observe(origin, as: id) { inbox.send($0) }
        context.onClose { _ in storage.stopObserving(id) }
    }

    /// Fires a `storage` event in a world.
    static func dispatchStorage(_ change: WebStorage.Change, in context: isolated ScriptContext) {
        guard let controls = context.attachment(DocumentControls.self), let storage = unsafe controls.storage else { return }
        func value(_ text: String?) -> ScriptValue { text.map { .string($0) } ?? .null }
        unsafe callReporting(storage, in: context) {
            unsafe [
                context.jsValue(value(change.key)), context.jsValue(value(change.oldValue)), context.jsValue(value(change.newValue)),
                context.jsValue(.string(change.url)),
            ]
        }
    }

    /// Calls one of a document's own functions in an entry of its own (its arguments made in
    /// it), reporting what it throws as uncaught, as a browser reports what a listener throws.
    static func callReporting(
        _ function: RawObject, in context: isolated ScriptContext, _ arguments: () -> [RawValue?] = { unsafe [] }
    ) {
        context.enterJavaScript()
        context.markPlatformEntry()
        do {
            try unsafe context.call(function, arguments())
        } catch {
            context.report(.uncaughtError(error))
        }
        context.leaveJavaScript()
    }

    /// The location record's values for the document, by ``locationKeys``.
    private static func locationValues(of url: URL, origin: URL, title: String?) -> [String] {
        [
            url.absoluteString, SecurityOrigin(url: origin)?.description ?? "null", (url.scheme ?? "") + ":",
            url.host.map { $0 + (url.port.map { ":\($0)" } ?? "") } ?? "", url.host ?? "",
            url.port.map(String.init) ?? "", url.path.isEmpty ? "/" : url.path, url.query.map { "?" + $0 } ?? "",
            url.fragment.map { "#" + $0 } ?? "", title ?? "",
        ]
    }

    /// Fires a `message` from another window at this world's window (``WebPage/deliverMessage(wire:ports:origin:fromWindow:)``).
    static func dispatchMessage(
        wire: String, ports: [MessagePortPipes.End], origin: String, fromWindow window: Int?, in context: isolated ScriptContext
    ) -> Bool {
        guard let controls = context.attachment(DocumentControls.self), let message = unsafe controls.message else { return false }
        unsafe callReporting(message, in: context) {
            unsafe [
                context.jsValue(.string(wire)), context.jsValue(.string(origin)),
                context.jsValue(window.map { .number(Double($0)) } ?? .null), context.jsValue(portsValue(ports)),
            ]
        }
        return true
    }

    /// The world's connections of one kind, made with the first: `receive` the platform's
    /// function that hears of them, `dispatch` what gives it an event. When the world closes,
    /// its connections end as a browser ends them, and the reconnections that wait are dropped.
    private static func pageConnections<Connection: PageConnection>(
        in context: isolated ScriptContext, receive: RawValue?,
        dispatch: @escaping @Sendable (isolated ScriptContext, Int, Connection.Event) -> Void
    ) -> PageConnections<Connection>? {
        if let clients = context.attachment(PageConnections<Connection>.self) { return clients }
        guard let receive = unsafe context.function(receive) else { return nil }
        unsafe context.protect(receive)
        // In the order they happened, on the page's thread; none once the world closed.
        let inbox = ScriptContextInbox<(id: Int, event: Connection.Event)>(for: context) { context, delivery in
            dispatch(context, delivery.id, delivery.event)
        }
        let clients = unsafe PageConnections<Connection>(receive: receive, inbox: inbox)
        context.attach(clients)
        context.onClose { context in
            guard let clients = context.attachment(PageConnections<Connection>.self) else { return }
            for connection in clients.connections.values { connection.end() }
            for reconnection in clients.reconnections.values { reconnection.cancel() }
            clients.connections.removeAll()
            clients.reconnections.removeAll()
            unsafe context.unprotect(clients.receive)
        }
        return clients
    }

    /// Opens a page's WebSocket: the handshake carries the cookies the jar sends to the URL
    /// (as a request from the document), its origin and user agent, and keeps the page busy
    /// (not quiet) until it ends; the page's events report it as an exchange. The answer's
    /// `Set-Cookie` lines are applied, as a browser applies them; an answer choosing a
    /// subprotocol the page did not offer fails the connection (RFC 6455, 4.1).
    private static func openWebSocket(
        _ url: URL, protocols: String, id: Int, inbox: ScriptContextInbox<(id: Int, event: WebSocketConnection.Event)>,
        env: DocumentEnvironment
    ) -> WebSocketConnection {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.scheme = url.scheme?.lowercased() == "wss" ? "https" : "http"
        let httpURL = components?.url ?? url
        var headers = HTTPFields()
        headers[.userAgent] = env.loader.userAgent
        headers[.origin] = SecurityOrigin(url: env.url)?.description ?? "null"
        // As WebKit's handshake: a fresh answer asked for, and Fetch Metadata; no `Accept`.
        let own = UserAgentFields(destination: "websocket", mode: "websocket", initiator: env.url, cache: "no-store")
        for field in own.fields(for: [httpURL], pageHeaders: [], publicSuffixes: env.jar.publicSuffixList) where field.name != "Accept" {
            if let name = HTTPField.Name(field.name) { headers[name] = field.value }
        }
        let sending = env.jar.cookiesToSend(to: httpURL, context: env.subresourceContext(for: httpURL, method: "GET"))
        if !sending.isEmpty { headers[.cookie] = CookieJar.cookieHeader(sending) }
        if !protocols.isEmpty { headers[.secWebSocketProtocol] = protocols }
        let tracker = env.tracker, events = env.loader.events, jar = env.jar, ended = HandshakeEnd(), started = ContinuousClock.now
        let context = env.subresourceContext(for: httpURL, method: "GET")
        let offered = Set(protocols.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        tracker.begin()
        // The handshake's end, reported once: `head` the server's upgrade, `nil` for none.
        @Sendable func handshakeEnded(_ head: HTTPResponseHead?) -> Bool {
            guard ended.end() else { return false }
            tracker.end()
            var set: [String] = [], deleted: [String] = [], rejected: [String] = []
            for line in head?.headers["Set-Cookie"] ?? [] {
                switch jar.setCookie(line, from: httpURL, context: context) {
                case .stored(let cookie), .replaced(let cookie, _): set.append(cookie.name)
                case .deleted: deleted.append(SetCookieParser.cookieName(of: line))
                case .rejected(let error): rejected.append("\(SetCookieParser.cookieName(of: line)): \(error)")
                }
            }
            events?(
                .http(
                    HTTPExchange(
                        initiator: .webSocket, method: "GET", url: url, statusCode: head.map { Int($0.status.code) },
                        cookiesSent: sending.map(\.name), cookiesSet: set, cookiesDeleted: deleted, cookiesRejected: rejected,
                        duration: ContinuousClock.now - started)))
            let chosen = head?.headers["Sec-WebSocket-Protocol"].first
            return head != nil && (chosen == nil || offered.contains(chosen!))
        }
        return WebSocketConnection(
            url: url, headers: headers, tlsConfiguration: env.configuration.webSocketTLSConfiguration, handshake: handshakeEnded
        ) { event in
            // A message, or the connection's opening, may be answered: the page stays busy a while.
            if case .closed = event { _ = handshakeEnded(nil) } else { tracker.linger() }
            inbox.send((id, event))
        }
    }

    /// Starts a source's request in `cors` mode: cookies go with a same-origin one, and with
    /// another only when the page asked (`withCredentials`); the page is busy until the answer
    /// arrives, and a while after each of the stream's bytes.
    private static func startEventSource(
        _ url: URL, withCredentials: Bool, lastEventID: String, id: Int,
        inbox: ScriptContextInbox<(id: Int, event: EventSourceConnection.Event)>, env: DocumentEnvironment
    ) -> EventSourceConnection {
        let tracker = env.tracker, answered = HandshakeEnd()
        let cors = CrossOriginFetch(
            origin: SecurityOrigin(url: env.url), mode: .cors, credentials: withCredentials ? .include : .sameOrigin)
        tracker.begin()
        return EventSourceConnection(
            url: url, lastEventID: lastEventID, loader: env.loader, cors: cors, referrer: env.clientReferrer, documentURL: env.url,
            cookies: { target in .include(env.subresourceContext(for: target, method: "GET")) }
        ) { event in
            // The answer's start and each of its bytes may be followed by more: busy a while.
            if case .bytes = event { tracker.linger() } else if case .open = event { tracker.linger() }
            if answered.end() { tracker.end() }
            inbox.send((id, event))
        }
    }

    /// Gives a world's `EventSource` what happened to its request.
    static func dispatchEventSource(_ id: Int, _ event: EventSourceConnection.Event, in context: isolated ScriptContext) {
        guard let clients = context.attachment(EventSourceClients.self) else { return }
        let values: [ScriptValue]
        switch event {
        case .reconnecting(let connection):
            // Closed meanwhile: the new request is not the page's.
            guard clients.reconnections.removeValue(forKey: id) != nil else {
                connection.cancel()
                return
            }
            clients.connections[id] = connection
            return
        case .open: values = ["open"]
        case .bytes(let bytes): values = ["bytes", .bytes(bytes)]
        case .ended: values = ["ended"]
        case .failed: values = ["failed"]
        }
        unsafe callReporting(clients.receive, in: context) {
            unsafe [context.jsValue(.number(Double(id)))] + values.map { unsafe context.jsValue($0) }
        }
    }

    /// Gives a world's `WebSocket` what happened to its connection.
    static func dispatchWebSocket(_ id: Int, _ event: WebSocketConnection.Event, in context: isolated ScriptContext) {
        guard let clients = context.attachment(WebSocketClients.self) else { return }
        let values: [ScriptValue] =
            switch event {
            case .open(let chosen): ["open", .string(chosen)]
            case .text(let text): ["text", .string(text)]
            case .binary(let bytes): ["binary", .bytes(bytes)]
            case .closed(let code, let reason, let wasClean, let failed):
                ["close", .number(Double(code)), .string(reason), .bool(wasClean), .bool(failed)]
            }
        if case .closed = event { clients.connections[id] = nil }
        unsafe callReporting(clients.receive, in: context) {
            unsafe [context.jsValue(.number(Double(id)))] + values.map { unsafe context.jsValue($0) }
        }
    }

    /// Fires `cookieStore`'s `change` for a change to a cookie the document sees now.
    static func dispatchCookieChange(_ change: CookieChange, in context: isolated ScriptContext) {
        guard let watcher = context.attachment(CookieWatcher.self),
            let environment = context.attachment(BoundEnvironment.self)?.environment,
            environment.jar.isVisibleToScripts(change.cookie, at: environment.url)
        else { return }
        let changed = change.kind == .added || change.kind == .replaced
        unsafe callReporting(watcher.receive, in: context) {
            unsafe [
                context.jsValue(.string(changed ? "changed" : "deleted")), context.jsValue(.string(change.cookie.name)),
                context.jsValue(.string(change.cookie.value)),
            ]
        }
    }

    /// Tells this world's lock requests they were granted or stolen.
    static func dispatchLockNotice(_ notice: WebLocks.Notice, in context: isolated ScriptContext) {
        guard let client = context.attachment(LockClient.self) else { return }
        let (kind, id) =
            switch notice {
            case .granted(let id): ("granted", id)
            case .stolen(let id): ("stolen", id)
            }
        unsafe callReporting(client.receive, in: context) { unsafe [context.jsValue(.string(kind)), context.jsValue(.number(Double(id)))] }
    }

    /// Gives another document's `BroadcastChannel` message to this world's channels of its name.
    static func dispatchBroadcast(_ message: BroadcastChannels.Message, in context: isolated ScriptContext) {
        guard let listener = context.attachment(BroadcastListener.self) else { return }
        unsafe callReporting(listener.receive, in: context) {
            unsafe [context.jsValue(.string(message.name)), context.jsValue(message.data), context.jsValue(.string(message.origin))]
        }
    }

    /// Fires the events of a document being replaced by the next (`pagehide`, `visibilitychange`,
    /// `unload`) in a world, if a script listens for one.
    static func leave(in context: isolated ScriptContext) {
        guard let controls = context.attachment(DocumentControls.self), controls.listensForLeave, let leave = unsafe controls.leave else {
            return
        }
        controls.listensForLeave = false
        unsafe callReporting(leave, in: context)
    }

    /// Fires `beforeunload` in a world whose script listens for it, as a navigation its delegate
    /// allowed starts (the document stays until the next one commits).
    static func beforeUnload(in context: isolated ScriptContext) {
        guard let controls = context.attachment(DocumentControls.self), controls.listensForLeave, let leave = unsafe controls.leave else {
            return
        }
        controls.dismissing = true
        unsafe callReporting(leave, in: context) { unsafe [context.jsValue(.string("beforeunload"))] }
        controls.dismissing = false
    }

    /// Fires an external `<script>`'s `load` (it ran) or `error` (it could not be loaded) in the
    /// page's world, when a script could see it: the element has a handler attribute for it, or
    /// the page listens (``DocumentControls/listensForScriptEvents``).
    static func fireScriptEvent(loaded: Bool, script: WebPage.DocumentScript, in context: isolated ScriptContext) {
        let type = loaded ? "load" : "error"
        guard let controls = context.attachment(DocumentControls.self), let scriptEvent = unsafe controls.scriptEvent,
            controls.listensForScriptEvents || script.attributes["on" + type] != nil
        else { return }
        unsafe callReporting(scriptEvent, in: context) {
            unsafe [
                context.jsValue(.string(type)), context.jsValue(.number(Double(script.index))), context.jsValue(.string(script.src)),
                context.jsValue(attributesValue(script.attributes)), context.jsValue(.number(Double(script.line))),
            ]
        }
    }

    /// A `<script>`'s attributes as the prelude's element reads them: an object, names sorted.
    static func attributesValue(_ attributes: [String: String]) -> ScriptValue {
        .object(
            OrderedDictionary(uniqueKeysWithValues: attributes.sorted { $0.key < $1.key }.map { ($0.key, ScriptValue.string($0.value)) }))
    }

    /// A stage of a world's document: `"interactive"` (parsed), `"contentLoaded"`
    /// (`DOMContentLoaded`) or `"load"`, each in an entry of its own (the microtasks one
    /// queued run before the next).
    static func finish(_ stage: String, in context: isolated ScriptContext) {
        guard let controls = context.attachment(DocumentControls.self) else { return }
        unsafe callReporting(controls.finish, in: context) { unsafe [context.jsValue(.string(stage))] }
    }

    // MARK: Native work

    /// A response body as the page APIs get it: `body` its text when it is UTF-8; otherwise
    /// `body` its bytes (an `arrayBuffer()` gets them as they came) and `text` them decoded,
    /// each malformed sequence a U+FFFD, as a browser decodes them for `text()`. A leading
    /// byte order mark is no part of the text (the Encoding Standard's UTF-8 decode: `json()`
    /// reads a body that starts with one), so such a body comes as its bytes too.
    static func bodyMembers(_ body: [UInt8]) -> OrderedDictionary<String, ScriptValue> {
        let marked = body.starts(with: [0xEF, 0xBB, 0xBF])
        if !marked, let text = String(validating: body, as: UTF8.self) { return ["body": .string(text)] }
        return ["body": .bytes(body), "text": .string(String(decoding: marked ? body.dropFirst(3) : body[...], as: UTF8.self))]
    }

    /// A request of the page's scripts (`fetch`, `XMLHttpRequest`) under the CORS protocol:
    /// `credentials` and `mode` as Fetch names them.
    func fetch(
        _ request: PageRequest, credentials: String, mode: CrossOriginFetch.Mode = .cors, referrer: Referrer? = nil,
        cache: String = "default", followRedirects: Bool = true
    ) async throws(PageError) -> HTTPLoader.Response {
        let cors = CrossOriginFetch(
            origin: SecurityOrigin(url: url), mode: mode, credentials: CrossOriginFetch.Credentials(rawValue: credentials) ?? .sameOrigin,
            followsRedirects: followRedirects)
        let original = request.url
        return try await loader.load(
            request, initiator: .fetch, followRedirects: followRedirects, cors: cors,
            preflights: configuration.websiteDataStore.preflights, referrer: referrer ?? clientReferrer,
            fields: UserAgentFields(destination: "empty", mode: mode.rawValue, initiator: url, cache: cache),
            mixedContentFrom: url,
            cookies: { target in .include(subresourceContext(for: target, method: request.method)) },
            willRedirect: contentSecurity.policy == nil
                ? nil : { @Sendable [self] next throws(PageError) in try checkRedirect(of: original, to: next.url) })
    }

    /// Fetches a module script as HTML fetches one: a `GET` in `cors` mode, with the page's
    /// cookies while it is of the document's origin (credentials `same-origin`, unless its
    /// element says `use-credentials`), redirects followed; another origin's module must allow
    /// the document's. Each redirect is checked against the document's `script-src`, with the
    /// module's `nonce`.
    func fetchModule(
        _ target: URL, credentials: CrossOriginFetch.Credentials = .sameOrigin, nonce: String = ""
    ) async throws(PageError) -> HTTPLoader.Response {
        if let local = try localScript(target) { return local }
        let cors = CrossOriginFetch(origin: SecurityOrigin(url: url), mode: .cors, credentials: credentials)
        return try await loader.load(
            PageRequest(url: target), initiator: .script, cors: cors, preflights: configuration.websiteDataStore.preflights,
            referrer: clientReferrer, fields: UserAgentFields(destination: "script", mode: "cors", initiator: url),
            mixedContentFrom: url, cookies: { [self] hop in .include(subresourceContext(for: hop, method: "GET")) },
            willRedirect: contentSecurity.policy == nil
                ? nil
                : { @Sendable [self] next throws(PageError) in
                    try checkScriptRedirect(of: target, to: next.url, nonce: nonce, integrity: "", imported: true)
                })
    }

    /// A script at a `data:` URL, or a blob URL of the document's origin, read here as WebKit
    /// reads them (a classic script's or a module's); nil for another scheme. A blob URL of
    /// another origin, or one not made (or revoked), fails.
    func localScript(_ target: URL) throws(PageError) -> HTTPLoader.Response? {
        switch target.scheme?.lowercased() {
        case "data":
            guard let data = DataURL(target) else { throw PageError(.invalidURL, "the data: URL is malformed") }
            return Self.localResponse(target, type: data.mimeType, body: data.body)
        case "blob":
            guard Self.isOwnBlobURL(target.absoluteString, env: self),
                let entry = configuration.websiteDataStore.blobURLs.entry(target.absoluteString)
            else { throw PageError(.network, "the blob: URL is not one of this origin's") }
            return Self.localResponse(target, type: entry.type, body: entry.bytes)
        default: return nil
        }
    }

    /// The answer a `data:` or blob URL gives: its bytes, with their type.
    private static func localResponse(_ url: URL, type: String, body: [UInt8]) -> HTTPLoader.Response {
        HTTPLoader.Response(
            url: url, statusCode: 200, statusText: "OK", headers: [HTTPHeader("content-type", type)], setCookieNames: [],
            body: body, redirects: [])
    }

    /// Tells the console that a request for `target` was blocked as mixed content, in WebKit's words.
    func reportMixedContent(_ target: URL) {
        loader.events?(.console(ConsoleMessage(level: .error, text: BlockedLoad.mixedContentLine(from: url, to: target)), url: url))
    }

    /// Shows `target` as the document's URL (`history`, a fragment navigation): its worlds'
    /// `location` reads it, and so does the page's ``WebPage/url`` while this document is shown.
    func changeURL(to target: URL) {
        documentURL.replace(with: target)
        guard let page = page.page else { return }
        let box = documentURL
        if page.thread.isIsolatingCurrentContext() == true {
            page.assumeIsolated { $0.documentURLChanged(box) }
        } else {
            Task { await page.documentURLChanged(box) }
        }
    }

    /// Runs the code of a navigation to a `javascript:` URL (`target`, as the script gave it) in
    /// this document, as WebKit does: in a task after the script that asked, if the document's
    /// policy allows inline code (``ContentSecurityPolicy/javaScriptURL(_:)``), what it throws
    /// reported as a script's uncaught error; a string it ends with replaces the document, at
    /// the same URL. No navigation is asked of the delegate, as none is in WebKit.
    func runJavaScriptURL(_ target: String, in context: isolated ScriptContext) {
        let encoded = target.drop { $0 != ":" }.dropFirst()
        let code = String(encoded).removingPercentEncoding ?? String(encoded)
        if let policy = contentSecurity.policy {
            let verdict = policy.javaScriptURL(code)
            report(verdict, in: context)
            guard verdict.allowed else { return }
        }
        tracker.begin()
        let tracker = self.tracker
        context.schedule(after: .zero) { [self] context in
            defer { tracker.end() }
            guard !context.isClosed, page.page != nil else { return }
            let value = try? unsafe context.evaluateRaw(code, sourceURL: url.absoluteString, reportingExceptions: true)
            guard let value = unsafe value, case .string(let html)? = try? unsafe context.scriptValue(value) else { return }
            replaceDocument(with: html)
        }
    }

    /// Replaces the document with `html`, at its URL (a `javascript:` URL's string result).
    private func replaceDocument(with html: String) {
        guard let page = page.page else { return }
        tracker.begin()
        let tracker = self.tracker, url = self.url
        Task {
            defer { tracker.end() }
            _ = try? await page.loadHTMLString(html, baseURL: url)
        }
    }

    func startNavigation(to target: URL, type: NavigationAction.NavigationType, replacing: Bool = false, historyEntry: Int? = nil) {
        guard let page = page.page else { return }
        var action = NavigationAction(
            request: PageRequest(url: target), navigationType: type, isUserInitiated: false, isMainFrame: true, sourceURL: url)
        action.replacesHistoryEntry = replacing
        action.historyEntry = historyEntry
        // A reload too is referred by the document, as in WebKit.
        action.referrer = clientReferrer
        tracker.begin()
        let tracker = self.tracker
        // A script's navigation starts once the script is done, as in WebKit. Called from the
        // script, on the page's thread: the navigation's task is queued there directly (a task
        // started on the concurrency pool would wake a pool thread only to hop back: 0.3 ms
        // between `location.assign` and the navigation policy in figure 6's probe).
        if page.thread.isIsolatingCurrentContext() == true {
            page.assumeIsolated { page in
                let scheduled = page.scheduleNavigation()
                _ = Task {
                    defer { tracker.end() }
                    _ = try? await page.navigate(action, scheduled: scheduled)
                }
            }
        } else {
            Task {
                defer { tracker.end() }
                _ = try? await page.navigate(action)
            }
        }
    }

    /// Runs an `alert`/`confirm`/`prompt` through the UI delegate, suspending the script (and
    /// only this page, on `thread`) as a browser does, for at most the panel timeout.
    func runPanel(_ kind: PanelKind, _ message: String, _ defaultText: String?, on thread: EngineThread) -> ScriptValue {
        guard let delegate = configuration.uiDelegate, let page = page.page else { return kind.dismissedValue }
        let frame = FrameInfo(url: url)
        return waitForDelegate(kind.dismissedValue, on: thread) {
            switch kind {
            case .alert:
                await delegate.webPage(page, runAlertPanelWithMessage: message, frame: frame)
                return .undefined
            case .confirm:
                return .bool(await delegate.webPage(page, runConfirmPanelWithMessage: message, frame: frame))
            case .prompt:
                return await delegate.webPage(page, runTextInputPanelWithPrompt: message, defaultText: defaultText, frame: frame)
                    .map(ScriptValue.string) ?? .null
            }
        }
    }
}
