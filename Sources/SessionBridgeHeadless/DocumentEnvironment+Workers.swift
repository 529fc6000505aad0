import Dispatch
import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import Synchronization

extension DocumentEnvironment {
    /// The page APIs' native functions of dedicated workers (``PageWorker``): a document's
    /// `Worker` objects start, post to and terminate theirs; a worker's global scope posts to
    /// its `Worker`, closes itself, reports its errors and imports scripts.
    static func defineWorkerFunctions(
        _ add: (String, @escaping @Sendable (isolated ScriptContext, RawCall, DocumentEnvironment) throws -> RawValue?) -> Void
    ) {
        unsafe defineMessagePortFunctions(add)
        // `(receive, url, source, name, type)`: starts a dedicated worker and gives its id;
        // `source` is a `blob:` or `data:` URL's text (`null` for one not registered),
        // `receive(id, kind, ...)` the function that gives the document's `Worker` objects what
        // their workers tell.
        unsafe add("startWorker") { context, call, env in try unsafe startWorker(call, shared: false, env: env, in: context) }
        // The same for a `SharedWorker`: connects to the shared worker its origin, URL, type and
        // name name (started if none runs) and gives `[id, pipe]`, the pipe of the port
        // entangled with the worker's (the `SharedWorker`'s end 0).
        unsafe add("startSharedWorker") { context, call, env in try unsafe startWorker(call, shared: true, env: env, in: context) }
        // `(id, wire, ports)`: a message for a worker, as the text of its wire form, and the
        // ends of the ports it carries (``MessagePortPipes``).
        unsafe add("postToWorker") { context, call, _ in
            let id = Int(javaScriptNumber: try unsafe context.scriptValue(call[0]).numberValue ?? 0) ?? 0
            let wire = try unsafe context.scriptValue(call[1]).stringValue ?? "null"
            let ports = try unsafe carriedPorts(call[2], in: context)
            context.attachment(DocumentWorkers.self)?.workers[id]?.post(PageWorker.Posted(wire: wire, ports: ports))
            return nil
        }
        // `(id)`: `Worker.terminate()`.
        unsafe add("terminateWorker") { context, call, _ in
            let id = Int(javaScriptNumber: try unsafe context.scriptValue(call[0]).numberValue ?? 0) ?? 0
            context.attachment(DocumentWorkers.self)?.workers.removeValue(forKey: id)?.end()
            return nil
        }
        // In a worker: `(wire, ports)`, its `postMessage`.
        unsafe add("workerPost") { context, call, _ in
            let wire = try unsafe context.scriptValue(call[0]).stringValue ?? "null"
            let ports = try unsafe carriedPorts(call[1], in: context)
            context.attachment(WorkerScope.self)?.worker.tellDocument(.message(wire, ports: ports))
            return nil
        }
        // In a worker: `close()`. The task that called it runs to its end (what it posts is
        // delivered); no later one runs, and no more messages reach the worker.
        unsafe add("workerClose") { context, _, _ in
            guard let worker = context.attachment(WorkerScope.self)?.worker else { return nil }
            worker.close()
            context.schedule(after: .zero) { _ in worker.end() }
            return nil
        }
        // In a worker: `(message, filename, line, column)`, an error its listeners did not cancel.
        unsafe add("workerError") { context, call, _ in
            guard let worker = context.attachment(WorkerScope.self)?.worker else { return nil }
            let message = try unsafe context.scriptValue(call[0]).stringValue ?? ""
            let filename = try unsafe context.scriptValue(call[1]).stringValue ?? ""
            let line = Int(javaScriptNumber: try unsafe context.scriptValue(call[2]).numberValue ?? 0) ?? 0
            let column = Int(javaScriptNumber: try unsafe context.scriptValue(call[3]).numberValue ?? 0) ?? 0
            worker.tellDocument(.error(message: message, filename: filename, line: line, column: column))
            return nil
        }
        // In a worker: `(url)`, one script of `importScripts`, loaded (as a classic script is,
        // from any origin, with the origin's cookies) and run before the call returns. The
        // worker's thread is its own: waiting for the answer holds up no page.
        unsafe add("importScript") { context, call, env in
            let href = try unsafe context.scriptValue(call[0]).stringValue ?? ""
            guard let url = URL(string: href), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw ScriptThrow("NetworkError", "The script at '\(href)' could not be loaded.")
            }
            let source = importedScript(url, with: env)
            guard let source else { throw ScriptThrow("NetworkError", "The script at '\(href)' could not be loaded.") }
            _ = try unsafe context.evaluateRaw(source, sourceURL: href)
            return nil
        }
    }

    /// Starts a dedicated worker, or connects to a shared one (``defineWorkerFunctions(_:)``).
    private static func startWorker(
        _ call: RawCall, shared: Bool, env: DocumentEnvironment, in context: isolated ScriptContext
    ) throws -> RawValue? {
        guard let receive = unsafe context.function(call[0]) else { return nil }
        let href = try unsafe context.scriptValue(call[1]).stringValue ?? ""
        let source = try unsafe context.scriptValue(call[2]).stringValue
        let name = try unsafe context.scriptValue(call[3]).stringValue ?? ""
        let type = try unsafe context.scriptValue(call[4]).stringValue ?? "classic"
        guard let url = URL(string: href) else { throw ScriptThrow("SyntaxError", "'\(href)' is not a valid URL.") }
        try env.checkWorker(url, in: context)
        let workers = unsafe documentWorkers(receive, in: context)
        workers.lastID += 1
        let id = workers.lastID
        guard let inbox = workers.inbox else { return nil }
        env.tracker.noteWorker()
        let tell: @Sendable (PageWorker.Event) -> Void = { inbox.send((id, $0)) }
        let store = env.configuration.websiteDataStore
        var reserved = false
        let worker: PageWorker, made: Bool, answer: ScriptValue
        if shared {
            let key = [SecurityOrigin(url: env.url)?.description ?? "null", type, url.absoluteString, name].joined(separator: " ")
            (worker, made) = store.sharedWorkers.worker(for: key) {
                reserved = PageWorker.reserve(in: store)
                return PageWorker(url: url, store: store, counted: reserved, shared: true)
            }
            let pipe = store.messagePorts.makePipe()
            if let connection = worker.connect(MessagePortPipes.End(pipe: pipe, side: 1), tell: tell) {
                workers.connections[id] = (worker, connection)
            } else {
                tell(.failed)
            }
            answer = [.number(Double(id)), .number(Double(pipe))]
        } else {
            reserved = PageWorker.reserve(in: store)
            worker = PageWorker(url: url, store: store, counted: reserved, tell: tell)
            made = true
            workers.workers[id] = worker
            answer = .number(Double(id))
        }
        guard made else { return unsafe context.jsValue(answer) }
        if !reserved {
            env.configuration.eventHandler?(
                .console(
                    ConsoleMessage(
                        level: .error,
                        text: "Worker not started: the pages of this data store run \(PageWorker.maximumPerDataStore) workers already."),
                    url: env.url))
            worker.fail()
            return unsafe context.jsValue(answer)
        }
        let scheme = url.scheme?.lowercased()
        let fromBlob = scheme == "blob", given = fromBlob || scheme == "data"
        if given && source == nil {
            worker.fail()
            return unsafe context.jsValue(answer)
        }
        // A `blob:` URL's worker has its document's origin, a `data:` URL's an opaque one;
        // relative URLs resolve against the worker's URL (none does against a `blob:` one).
        let timing = NavigationTiming(kind: .navigate)
        let makeEnvironment = { (contentSecurity: DocumentContentSecurity) in
            var environment = DocumentEnvironment(
                documentURL: DocumentURL(fromBlob ? env.url : url), title: nil, jar: env.jar, loader: env.loader, tracker: env.tracker,
                page: env.page, configuration: env.configuration, timing: timing, referrer: "", referrerPolicy: env.referrerPolicy,
                baseHref: fromBlob ? url : nil, encoding: .utf8, contentSecurity: contentSecurity)
            if fromBlob { environment.locationURL = url }
            return environment
        }
        Task {
            await worker.start(
                source: given ? source : nil, module: type == "module", fetchingWith: env, environment: makeEnvironment, name: name)
        }
        return unsafe context.jsValue(answer)
    }

    /// The document's table of workers, made with its first (the prelude's `receive` kept).
    private static func documentWorkers(_ receive: RawObject, in context: isolated ScriptContext) -> DocumentWorkers {
        if let workers = context.attachment(DocumentWorkers.self) { return workers }
        unsafe context.protect(receive)
        let workers = unsafe DocumentWorkers(receive: receive)
        workers.inbox = ScriptContextInbox(for: context) { context, item in dispatchWorkerEvent(item.id, item.event, in: context) }
        context.attach(workers)
        // The document's workers go with it.
        context.onClose { context in
            guard let workers = context.attachment(DocumentWorkers.self) else { return }
            for worker in workers.workers.values { worker.end() }
            for (worker, connection) in workers.connections.values { worker.disconnect(connection) }
            workers.workers.removeAll()
            workers.connections.removeAll()
            unsafe context.unprotect(workers.receive)
        }
        return workers
    }

    /// `url`'s text for `importScripts`, or `nil` when it cannot be had (no answer within the
    /// worker's time limit, or one that is not 2xx). Called on the worker's own thread, which
    /// it holds until then.
    private static func importedScript(_ url: URL, with environment: DocumentEnvironment) -> String? {
        let answer = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            defer { done.signal() }
            do throws(PageError) {
                let response = try await environment.fetch(PageRequest(url: url), credentials: "same-origin", mode: .noCORS)
                guard (200..<300).contains(response.statusCode) else { return }
                answer.withLock { $0 = String(decoding: response.body, as: UTF8.self) }
            } catch {}
        }
        let limit = environment.configuration.scriptTimeLimit / .milliseconds(1)
        guard done.wait(timeout: .now() + .milliseconds(Int(min(limit, 600_000)))) == .success else { return nil }
        return answer.withLock { $0 }
    }

    /// Makes a worker's global scope in a context no script has touched: the page APIs as a
    /// `DedicatedWorkerGlobalScope` has them, bound to the worker's environment.
    static func installWorker(
        _ environment: DocumentEnvironment, name: String, shared: Bool, worker: PageWorker, in context: isolated ScriptContext
    ) throws(ScriptError) {
        try prepare(userAgent: environment.configuration.userAgent, workerName: name, sharedWorker: shared, in: context)
        guard let prepared = context.attachment(PreparedDocument.self) else {
            throw ScriptError(kind: .exception, name: "Error", message: "worker prelude failed")
        }
        context.detach(PreparedDocument.self)
        unsafe [prepared.native, prepared.location].forEach { unsafe context.unprotect($0) }
        context.attachment(BoundEnvironment.self)?.environment = environment
        context.timerCodeURL = (environment.locationURL ?? environment.url).absoluteString
        context.attach(WorkerScope(worker: worker))
    }

    /// Fires a `message` (or `messageerror`) from its `Worker` object at a worker's global scope.
    static func dispatchWorkerMessage(_ posted: PageWorker.Posted, in context: isolated ScriptContext) {
        guard let controls = context.attachment(DocumentControls.self), let message = unsafe controls.workerMessage else { return }
        unsafe callReporting(message, in: context) {
            unsafe [context.jsValue(.string(posted.wire)), context.jsValue(portsValue(posted.ports))]
        }
    }

    /// The workers a context started or connected to, and whether everything they and the
    /// ports entangled with its own told it has been handled.
    static func workerActivity(in context: isolated ScriptContext) -> (workers: [PageWorker], delivered: Bool) {
        let table = context.attachment(DocumentWorkers.self)
        let workers = table.map { Array($0.workers.values) + $0.connections.values.map(\.worker) } ?? []
        let delivered =
            (table?.inbox?.waitingCount ?? 0) == 0 && (context.attachment(PortEnds.self)?.inbox?.waitingCount ?? 0) == 0
        return (workers, delivered)
    }

    /// Fires `connect` at a shared worker's global scope, with the port holding `end`.
    static func dispatchWorkerConnect(_ end: MessagePortPipes.End, in context: isolated ScriptContext) {
        guard let controls = context.attachment(DocumentControls.self), let connect = unsafe controls.workerConnect else { return }
        unsafe callReporting(connect, in: context) { unsafe [context.jsValue(portsValue([end]))] }
    }

    /// Gives a worker's event to its `Worker` (or `SharedWorker`) object, unless it was terminated.
    static func dispatchWorkerEvent(_ id: Int, _ event: PageWorker.Event, in context: isolated ScriptContext) {
        guard let workers = context.attachment(DocumentWorkers.self), workers.workers[id] != nil || workers.connections[id] != nil
        else { return }
        unsafe callReporting(workers.receive, in: context) {
            let id = unsafe context.jsValue(.number(Double(id)))
            switch event {
            case .message(let wire, let ports):
                return unsafe [id, context.jsValue(.string("message")), context.jsValue(.string(wire)), context.jsValue(portsValue(ports))]
            case .error(let message, let filename, let line, let column):
                return unsafe [
                    id, context.jsValue(.string("error")), context.jsValue(.string(message)), context.jsValue(.string(filename)),
                    context.jsValue(.number(Double(line))), context.jsValue(.number(Double(column))),
                ]
            case .failed:
                return unsafe [id, context.jsValue(.string("failed"))]
            }
        }
    }
}
