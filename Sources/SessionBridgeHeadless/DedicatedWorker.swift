import Foundation
import SessionBridgeScriptEngine
import Synchronization

/// A document's dedicated worker (HTML's `Worker`): its script in a global scope of its own
/// (``DocumentPrelude`` made as a `DedicatedWorkerGlobalScope`), in a script context on a
/// thread of its own, as a browser runs one beside its page, so that a worker's long task holds
/// up neither the page nor the pages sharing its thread.
///
/// The two sides exchange their messages as the text of their structured clones' wire form
/// (``WebPlatformPrelude/wireFormSource``), each side handling them in the order they were
/// posted; the document's messages wait until the worker's script has run, as the worker's
/// port is enabled only then. Its fetches go through the document's data store, cookies and
/// loader, under the document's origin and time limit.
///
/// A worker ends when its `Worker` is terminated, when it closes itself, and when its document
/// goes away; its context is then closed and its thread stopped. Its scripts run under the
/// pages' time limit and memory limit (past which it ends).
///
/// Pages run in the app's process, and a worker costs it a thread and a JavaScriptCore VM
/// (about 5 MB resident: 64 idle workers took 326 MB in a probe): a data store's pages run at
/// most ``maximumPerDataStore`` workers at once, and a page asking for more gets an `error`
/// event at its `Worker` and a console error saying why.
final class DedicatedWorker: Sendable {
    /// How many workers the pages of one data store may run at once.
    static let maximumPerDataStore = 16

    /// What the worker tells its `Worker` object.
    enum Event: Sendable {
        /// A message, as the text of its wire form, and the ports it carries.
        case message(String, ports: [MessagePortPipes.End])
        /// An error its own listeners did not cancel, as its `ErrorEvent` describes it.
        case error(message: String, filename: String, line: Int, column: Int)
        /// Its script could not be loaded or started (a plain `error` event).
        case failed
    }

    /// The worker's id in its document (``DocumentWorkers``).
    let id: Int
    /// Its script's URL, as `self.location` gives it.
    let url: URL
    /// Sends an event to the `Worker` object, on the document's thread.
    private let tell: @Sendable (Event) -> Void
    /// Where it is counted (``WebsiteDataStore/workerThreads``) from its reservation
    /// (``reserve(in:)``) until it ends or fails.
    private let store: WebsiteDataStore
    private let counted: Atomic<Bool>
    private let state = Mutex(State())

    private struct State {
        var context: ScriptContext?
        var thread: EngineThread?
        /// The worker's inbox, made once its script ran; messages wait in `waiting` until then.
        var inbox: ScriptContextInbox<Posted>?
        var waiting: [Posted] = []
        /// Closed by its own `close()`: the document's messages are dropped.
        var closing = false
        var ended = false
    }

    /// A worker's script, loaded.
    private enum Script {
        case classic(String)
        /// A module script's graph (``ModuleGraph/load(_:environment:credentials:integrity:nonce:)``).
        case module(key: String, records: [ScriptValue])
    }

    /// A worker of a page of `store`, `counted` there when ``reserve(in:)`` let it start.
    init(id: Int, url: URL, store: WebsiteDataStore, counted: Bool, tell: @escaping @Sendable (Event) -> Void) {
        self.id = id
        self.url = url
        self.store = store
        self.counted = Atomic(counted)
        self.tell = tell
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

    /// Its script could not be started: its `Worker` gets `error`.
    func fail() {
        tellDocument(.failed)
        uncount()
    }

    /// Whether the worker has ended (terminated, closed, or gone with its document).
    var hasEnded: Bool { state.withLock { $0.ended } }

    /// A message of the document's for the worker: the text of its wire form, and the ports
    /// it carries.
    struct Posted: Sendable {
        let wire: String
        let ports: [MessagePortPipes.End]
    }

    /// Posts a message of the document's to the worker.
    func post(_ message: Posted) {
        let inbox = state.withLock { state -> ScriptContextInbox<Posted>? in
            guard !state.ended, !state.closing else { return nil }
            if state.inbox == nil { state.waiting.append(message) }
            return state.inbox
        }
        inbox?.send(message)
    }

    /// Posts an event to the worker's `Worker` object, unless it has ended.
    func tellDocument(_ event: Event) {
        guard !hasEnded else { return }
        tell(event)
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
            state.inbox = nil
            defer { (state.context, state.thread) = (nil, nil) }
            return (state.context, state.thread)
        }
        // Not started yet: ``start`` stops what it made.
        guard let context, let thread else { return uncount() }
        Task {
            await context.close()
            thread.shutdown()
            uncount()
        }
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
    ///   - environment: the worker's own: its URL, the document's data store and loader.
    func start(
        source: String?, module: Bool, fetchingWith document: DocumentEnvironment, environment: DocumentEnvironment, name: String
    ) async {
        let script: Script
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
            } catch {
                return fail()
            }
        }
        let thread = EngineThread(name: "Worker")
        var settings = ScriptContext.Configuration(timeLimit: environment.configuration.scriptTimeLimit)
        if let megabytes = environment.configuration.memoryLimitMB, megabytes > 0 {
            settings.memoryLimit = Int(clamping: UInt64(megabytes) << 20)
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
        _ script: Script, of worker: DedicatedWorker, environment: DocumentEnvironment, name: String, in context: isolated ScriptContext
    ) {
        let url = environment.locationURL ?? environment.url
        let events = environment.configuration.eventHandler
        context.setEventHandler { event in
            switch event {
            case .console(let message): events?(.console(message, url: url))
            case .uncaughtError(let error): events?(.scriptError(error, unhandledRejection: false, url: url))
            case .unhandledRejection(let error): events?(.scriptError(error, unhandledRejection: true, url: url))
            }
        }
        do {
            try DocumentEnvironment.installWorker(environment, name: name, worker: worker, in: context)
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
        let inbox = ScriptContextInbox<Posted>(for: context) { context, message in
            DocumentEnvironment.dispatchWorkerMessage(message, in: context)
        }
        let waiting = worker.state.withLock { state -> [Posted] in
            guard !state.ended else { return [] }
            state.inbox = inbox
            defer { state.waiting = [] }
            return state.waiting
        }
        for message in waiting { inbox.send(message) }
    }
}

/// The dedicated workers a document started, by id, and the prelude's function that gives
/// their `Worker` objects what they tell.
@safe  // its JavaScriptCore reference is used only on its context's engine thread, while the context lives
final class DocumentWorkers {
    let receive: RawObject
    var workers: [Int: DedicatedWorker] = [:]
    var lastID = 0
    /// The workers' events, handled on the document's thread in the order they came.
    var inbox: ScriptContextInbox<(id: Int, event: DedicatedWorker.Event)>?

    init(receive: RawObject) { unsafe self.receive = unsafe receive }
}

/// The worker a global scope belongs to (``DocumentEnvironment/installWorker``).
final class WorkerScope {
    let worker: DedicatedWorker

    init(worker: DedicatedWorker) { self.worker = worker }
}
