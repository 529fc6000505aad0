import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import Synchronization

/// A worker pages started: a document's dedicated worker (HTML's `Worker`), or a shared
/// worker (`SharedWorker`) that the documents of one origin in a data store connect to by its
/// URL and name. Its script runs in a global scope of its own (``DocumentPrelude`` made as a
/// `DedicatedWorkerGlobalScope` or a `SharedWorkerGlobalScope`), in a script context on a
/// thread of its own, as a browser runs one beside its pages, so that a worker's long task
/// holds up neither the pages nor the pages sharing their thread.
///
/// A dedicated worker and its document exchange their messages as the text of their
/// structured clones' wire form (``WebPlatformPrelude/wireFormSource``), each side handling
/// them in the order they were posted; the document's messages wait until the worker's script
/// has run, as the worker's port is enabled only then. A shared worker gets a `connect` event
/// for each `SharedWorker` made, with the port entangled with that object's
/// (``MessagePortPipes``), once its script has run. Its fetches go through the data store,
/// cookies and loader of the document that started it, under that document's origin and time
/// limit.
///
/// A dedicated worker ends when its `Worker` is terminated, when it closes itself, and when
/// its document goes away; a shared worker when it closes itself, and when the last document
/// connected to it goes away. Its context is then closed and its thread stopped. Its scripts
/// run under the pages' time limit and memory limit (past which it ends).
///
/// Pages run in the app's process, and a worker costs it a thread and a JavaScriptCore VM
/// (about 5 MB resident: 64 idle workers took 326 MB in a probe): a data store's pages run at
/// most ``maximumPerDataStore`` workers at once, and a page asking for more gets an `error`
/// event at its `Worker` and a console error saying why.
final class PageWorker: Sendable {
    /// How many workers the pages of one data store may run at once.
    static let maximumPerDataStore = 16

    /// What the worker tells its `Worker` (or its `SharedWorker`s).
    enum Event: Sendable {
        /// A message, as the text of its wire form, and the ports it carries.
        case message(String, ports: [MessagePortPipes.End])
        /// An error its own listeners did not cancel, as its `ErrorEvent` describes it.
        case error(message: String, filename: String, line: Int, column: Int)
        /// Its script could not be loaded or started (a plain `error` event).
        case failed
    }

    /// Its script's URL, as `self.location` gives it.
    let url: URL
    /// Whether it is a shared worker.
    let isShared: Bool
    /// Where it is counted (``WebsiteDataStore/workerThreads``) from its reservation
    /// (``reserve(in:)``) until it ends or fails.
    private let store: WebsiteDataStore
    private let counted: Atomic<Bool>
    private let state = Mutex(State())

    /// What comes to the worker: a dedicated worker's message, or a shared worker's connection.
    enum Inbound: Sendable {
        case message(Posted)
        case connect(MessagePortPipes.End)
    }

    private struct State {
        var context: ScriptContext?
        var thread: EngineThread?
        /// Where its events go, by connection (a dedicated worker's `Worker`, each of a shared
        /// worker's `SharedWorker`s), on their documents' threads.
        var listeners: [Int: @Sendable (Event) -> Void] = [:]
        /// The worker's inbox, made once its script ran; what comes waits in `waiting` until then.
        var inbox: ScriptContextInbox<Inbound>?
        var waiting: [Inbound] = []
        /// Closed by its own `close()`: the document's messages are dropped.
        var closing = false
        /// Its script has run, or it could not start.
        var settled = false
        var ended = false
    }

    /// A worker's script, loaded.
    private enum Script {
        case classic(String)
        /// A module script's graph (``ModuleGraph/load(_:environment:credentials:integrity:nonce:)``).
        case module(key: String, records: [ScriptValue])
    }

    /// A worker of a page of `store`, `counted` there when ``reserve(in:)`` let it start; a
    /// dedicated worker's events go to `tell`, a shared worker's to its connections.
    init(url: URL, store: WebsiteDataStore, counted: Bool, shared: Bool = false, tell: (@Sendable (Event) -> Void)? = nil) {
        self.url = url
        self.store = store
        self.counted = Atomic(counted)
        self.isShared = shared
        if let tell { state.withLock { $0.listeners[0] = tell } }
    }

    /// Numbers a shared worker's connections.
    private static let connections = Atomic<Int>(0)

    /// Connects a `SharedWorker` to this shared worker: it gets a `connect` event with the port
    /// holding `end`, and `tell` its events. Returns the connection's number (for
    /// ``disconnect(_:)``), or `nil` when the worker has ended or is closing.
    func connect(_ end: MessagePortPipes.End, tell: @escaping @Sendable (Event) -> Void) -> Int? {
        let connection = Self.connections.add(1, ordering: .relaxed).newValue
        let inbox = state.withLock { state -> ScriptContextInbox<Inbound>?? in
            guard !state.ended, !state.closing else { return .none }
            state.listeners[connection] = tell
            if state.inbox == nil { state.waiting.append(.connect(end)) }
            return .some(state.inbox)
        }
        guard let inbox else { return nil }
        inbox?.send(.connect(end))
        return connection
    }

    /// A connected document went away: a shared worker with no document left ends.
    func disconnect(_ connection: Int) {
        let last = state.withLock { state in
            state.listeners[connection] = nil
            return state.listeners.isEmpty
        }
        if last { end() }
    }

    /// Counts one more worker in `store`, unless it runs ``maximumPerDataStore`` already.
    static func reserve(in store: WebsiteDataStore) -> Bool {
        var running = store.workerThreads.load(ordering: .relaxed)
        while running < maximumPerDataStore {
            let (exchanged, found) = store.workerThreads.compareExchange(
                expected: running, desired: running + 1, ordering: .relaxed)
            if exchanged { return true }
            running = found
        }
        return false
    }

    /// No longer counted in its data store (once).
    private func uncount() {
        if counted.exchange(false, ordering: .relaxed) { store.workerThreads.subtract(1, ordering: .relaxed) }
    }

    /// Its script could not be started: its `Worker` (its `SharedWorker`s) gets `error`.
    func fail() {
        state.withLock { $0.settled = true }
        tellDocument(.failed)
        if isShared { end() } else { uncount() }
    }

    /// Whether the worker has ended (terminated, closed, or gone with its document).
    var hasEnded: Bool { state.withLock { $0.ended } }

    /// A message of the document's for the worker: the text of its wire form, and the ports
    /// it carries.
    struct Posted: Sendable {
        let wire: String
        let ports: [MessagePortPipes.End]
    }

    /// Posts a message of the document's to a dedicated worker.
    func post(_ message: Posted) {
        let inbox = state.withLock { state -> ScriptContextInbox<Inbound>? in
            guard !state.ended, !state.closing else { return nil }
            if state.inbox == nil { state.waiting.append(.message(message)) }
            return state.inbox
        }
        inbox?.send(.message(message))
    }

    /// Posts an event to the worker's `Worker` object (its `SharedWorker`s), unless it has ended.
    func tellDocument(_ event: Event) {
        let listeners = state.withLock { $0.ended ? [] : Array($0.listeners.values) }
        for tell in listeners { tell(event) }
    }

    /// The worker closed itself: it takes no more messages, and ends once its task has run.
    func close() {
        state.withLock { state in
            state.closing = true
            state.waiting.removeAll()
        }
    }

    /// Ends the worker: nothing more runs in it, and no event of it reaches its `Worker` object.
    func end() {
        let (context, thread) = state.withLock { state -> (ScriptContext?, EngineThread?) in
            state.ended = true
            state.waiting.removeAll()
            state.listeners.removeAll()
            state.inbox = nil
            defer { (state.context, state.thread) = (nil, nil) }
            return (state.context, state.thread)
        }
        // Not started yet: ``start`` stops what it made.
        if isShared { store.sharedWorkers.remove(self) }
        guard let context, let thread else { return uncount() }
        // A script still running is stopped (within 100 ms of its CPU time), not waited for.
        thread.interrupt()
        Task {
            await context.close()
            thread.shutdown()
            uncount()
        }
    }

    /// Waits until the worker has nothing left to do, or `deadline`: it has started (or could
    /// not), nothing waits in its inbox, its context is quiescent, and so are its own workers
    /// (``WebPage/runUntilQuiescent(timeout:)``: a page waiting on its worker is not quiet).
    /// Returns `false` at the deadline.
    func waitUntilIdle(until deadline: ContinuousClock.Instant) async -> Bool {
        let clock = ContinuousClock()
        while clock.now < deadline {
            let (ended, settled, context, inbox) = state.withLock { ($0.ended, $0.settled, $0.context, $0.inbox) }
            if ended { return true }
            guard settled, (inbox?.waitingCount ?? 0) == 0, let context else {
                try? await Task.sleep(for: .milliseconds(1))
                continue
            }
            if await !context.runUntilQuiescent(timeout: deadline - clock.now) { return false }
            var idle = true
            for worker in await DocumentEnvironment.workerActivity(in: context).workers
            where await !worker.waitUntilIdle(until: deadline) {
                idle = false
            }
            // Read after its own workers went idle: what they told it meanwhile counts.
            if await !DocumentEnvironment.workerActivity(in: context).delivered { idle = false }
            if idle, await context.isQuiescent, (inbox?.waitingCount ?? 0) == 0 { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return false
    }

    /// Loads the worker's script (unless it is given: a `blob:` or `data:` URL's text), makes
    /// its global scope and runs the script, then takes the messages the document posted
    /// meanwhile.
    ///
    /// - Parameters:
    ///   - source: the script's text; `nil` to fetch it from ``url`` with the document's
    ///     `environment` (same origin, its cookies).
    ///   - module: whether it is a module script (`type: "module"`): its graph is loaded
    ///     first, with the worker's environment, as a document's module script's is.
    ///   - environment: makes the worker's own environment (its URL, the document's data store
    ///     and loader) with its Content Security Policy: the document's for a script it gave
    ///   (`blob:`, `data:`) or a module's, the policy of its script's response otherwise, as
    ///     WebKit has it.
    func start(
        source: String?, module: Bool, fetchingWith document: DocumentEnvironment,
        environment makeEnvironment: (DocumentContentSecurity) -> DocumentEnvironment, name: String
    ) async {
        let script: Script
        var environment = makeEnvironment(document.contentSecurity)
        if module {
            let location = environment.locationURL ?? environment.url
            let root: ModuleGraph.Root =
                if let source { .inline(source: source, documentURL: location, base: environment.baseURL, line: 1) } else {
                    .url(url, type: nil)
                }
            do throws(ModuleGraph.LoadFailure) {
                let graph = try await ModuleGraph.load(root, environment: environment)
                script = .module(key: graph.key, records: graph.records)
            } catch {
                environment.configuration.eventHandler?(
                    .console(ConsoleMessage(level: .error, text: "\(url.absoluteString): \(error.message)"), url: document.url))
                return fail()
            }
        } else if let source {
            script = .classic(source)
        } else {
            do throws(PageError) {
                let response = try await document.fetch(PageRequest(url: url), credentials: "same-origin", mode: .sameOrigin)
                guard (200..<300).contains(response.statusCode) else { return fail() }
                script = .classic(String(decoding: response.body, as: UTF8.self))
                let security = DocumentContentSecurity(
                    statusCode: response.url.scheme?.lowercased() == "https" ? 0 : response.statusCode,
                    endpoints: DocumentContentSecurity.reportingEndpoints(
                        response.headers.filter { $0.name.lowercased() == "reporting-endpoints" }.map(\.value)))
                for (value, disposition) in DocumentEnvironment.contentSecurityFields(of: response.headers) {
                    security.add(value, disposition: disposition, origin: SecurityOrigin(url: response.url))
                }
                environment = makeEnvironment(security)
            } catch {
                return fail()
            }
        }
        let thread = EngineThread(name: "Worker")
        // `terminate()` stops even a script that never returns, as WebKit stops its worker.
        thread.makeInterruptible()
        var settings = ScriptContext.Configuration(timeLimit: environment.configuration.scriptTimeLimit)
        // Its page's limit, raised with it after a document's end; the configured one when the
        // page is gone (a shared worker outliving the document that started it).
        let configured = environment.configuration.memoryLimitMB.flatMap { megabytes in
            megabytes > 0 ? MemoryLimit(bytes: Int(clamping: UInt64(megabytes) << 20)) : nil
        }
        if let memoryLimit = environment.page.page?.memoryLimit ?? configured {
            settings.memoryLimit = memoryLimit
            settings.memoryLimitExceeded = { [weak self] _ in self?.end() }
        }
        let context = await ScriptContext(thread: thread, name: url.absoluteString, configuration: settings)
        let started = state.withLock { state in
            guard !state.ended else { return false }
            (state.context, state.thread) = (context, thread)
            return true
        }
        guard started else {
            await context.close()
            thread.shutdown()
            return uncount()
        }
        await Self.run(script, of: self, environment: environment, name: name, in: context)
    }

    /// Makes the worker's global scope in `context`, runs its script, then opens its inbox.
    private static func run(
        _ script: Script, of worker: PageWorker, environment: DocumentEnvironment, name: String, in context: isolated ScriptContext
    ) {
        let url = environment.locationURL ?? environment.url
        let events = environment.configuration.eventHandler
        context.setEventHandler { event in
            // An ended worker's script, stopped or not, reports nothing, as in WebKit.
            guard !worker.hasEnded else { return }
            switch event {
            case .console(let message): events?(.console(message, url: url))
            case .uncaughtError(let error): events?(.scriptError(error, unhandledRejection: false, url: url))
            case .unhandledRejection(let error): events?(.scriptError(error, unhandledRejection: true, url: url))
            }
        }
        do {
            try DocumentEnvironment.installWorker(environment, name: name, shared: worker.isShared, worker: worker, in: context)
            DocumentEnvironment.applyEvalPolicy(of: environment, in: context)
        } catch {
            events?(.scriptError(error, unhandledRejection: false, url: url))
            return worker.fail()
        }
        // An exception the script throws is the worker's `error` first, then its `Worker`'s.
        switch script {
        case .classic(var source):
            // Its `import()` loads modules through the worker's own linker.
            if let rewritten = ClassicScriptImports.rewrite(source, referrer: url.absoluteString) {
                DocumentEnvironment.exposeClassicImport(environment, in: context)
                source = rewritten
            }
            do {
                try context.runPageScript(source, sourceURL: url.absoluteString)
            } catch {
                events?(.scriptError(error, unhandledRejection: false, url: url))
            }
        case .module(let key, let records):
            _ = DocumentEnvironment.runModule(records, key: key, environment: environment, in: context)
        }
        let inbox = ScriptContextInbox<Inbound>(for: context) { context, inbound in
            switch inbound {
            case .message(let message): DocumentEnvironment.dispatchWorkerMessage(message, in: context)
            case .connect(let end): DocumentEnvironment.dispatchWorkerConnect(end, in: context)
            }
        }
        // What waited goes into the inbox under the lock, with the inbox's publication: a
        // message posted meanwhile comes after it, and no one sees the worker settled with an
        // empty inbox while a message still waits outside it (its page would look quiet).
        worker.state.withLock { state in
            guard !state.ended else { return }
            for inbound in state.waiting { inbox.send(inbound) }
            state.waiting = []
            state.settled = true
            state.inbox = inbox
        }
    }
}

/// The shared workers of a data store's pages, by the origin that started each, its URL, type
/// and name: a `SharedWorker` made for the same connects to the one running.
final class SharedWorkers: Sendable {
    private let running = Mutex<[String: PageWorker]>([:])

    /// The worker running for `key`, or the one `make` gives, kept for `key` until it ends;
    /// whether it was made.
    func worker(for key: String, make: () -> PageWorker) -> (worker: PageWorker, made: Bool) {
        running.withLock { running in
            if let worker = running[key], !worker.hasEnded { return (worker, false) }
            let worker = make()
            running[key] = worker
            return (worker, true)
        }
    }

    /// Forgets an ended worker.
    func remove(_ worker: PageWorker) {
        running.withLock { running in
            for (key, kept) in running where kept === worker { running[key] = nil }
        }
    }
}

/// The workers a document started or connected to, by the id of their `Worker` or
/// `SharedWorker` object, and the prelude's function that gives those objects what their
/// workers tell.
@safe  // its JavaScriptCore reference is used only on its context's engine thread, while the context lives
final class DocumentWorkers {
    let receive: RawObject
    var workers: [Int: PageWorker] = [:]
    /// The shared workers' connections, by the id of their `SharedWorker` object.
    var connections: [Int: (worker: PageWorker, connection: Int)] = [:]
    var lastID = 0
    /// The workers' events, handled on the document's thread in the order they came.
    var inbox: ScriptContextInbox<(id: Int, event: PageWorker.Event)>?

    init(receive: RawObject) { unsafe self.receive = unsafe receive }
}

/// The worker a global scope belongs to (``DocumentEnvironment/installWorker``).
final class WorkerScope {
    let worker: PageWorker

    init(worker: PageWorker) { self.worker = worker }
}
