import DequeModule
import Foundation
import Logging
package import SessionBridgeScriptEngine
import Synchronization

/// The bridge inside one document's world: `window.webkit.messageHandlers`, the calls in flight
/// and their timeouts, aborts and teardown.
///
/// Lives as an attachment of its ``ScriptContext`` and is only touched on that context's thread.
package final class BridgeInstallation {
    let controller: UserContentController
    let world: ContentWorld
    /// The document's frame: a placeholder while the bridge is built ahead of its document,
    /// bound at commit (``install(_:world:frame:in:)``).
    private(set) var frame: FrameInfo
    private var generation: Int
    private var handlers: [String: Installed] = [:]
    /// Each handler object the page was given (identity only, never read), and its handler:
    /// as in WebKit, a `postMessage` called on another handler posts to that one.
    private var handlerObjects: [UInt: Installed] = [:]
    /// What the prelude passes a handler's `postMessage` to introduce the handler object it
    /// belongs to: the address of the bridge's own abort function, which no page script can
    /// reach (a call that passes it is an introduction, not a message).
    private var introduction: UInt = 0
    private var pending: [Int: PendingCall] = [:]
    private var nextCallID = 1
    private let helpers: Helpers
    /// Deadlines of pending calls in order; one timer at a time sweeps them, so a call that
    /// settles leaves no timer behind.
    private var deadlines = Deque<(deadline: ContinuousClock.Instant, id: Int)>()
    private var sweepScheduled = false
    /// Calls whose handler is being started, innermost last (a handler may post again before
    /// it returns); rarely more than one, so a list, not a set.
    private var starting: [Int] = []
    /// Results of handlers that answered while being started.
    private var answeredAtOnce: [(id: Int, result: Result<ScriptValue, any Error>)] = []
    /// Replies sent later or from other threads, on their way to this thread.
    private let replies: ScriptContextInbox<Reply>
    /// The controller's calls after each handler change (see ``updateHandlers(in:)``).
    private var observation: HandlerObservation?

    /// A handler as this document sees it; its `postMessage` function holds it, so a call
    /// looks nothing up.
    final class Installed {
        let name: String
        var registration: UserContentController.Registration?
        /// Why this document may not call it, `nil` when it may.
        var refusal: ScriptMessageError?
        /// The name, frame and world every message of this document to this handler carries,
        /// and the log records.
        private(set) var route: ScriptMessage.Route
        /// The handler object the page was given (its address: identity only, never read).
        var object: UInt = 0

        init(name: String, registration: UserContentController.Registration?, frame: FrameInfo, world: ContentWorld) {
            self.name = name
            self.route = ScriptMessage.Route(name: name, frameInfo: frame, world: world)
            update(registration, frame: frame)
        }

        /// Binds the handler to its document's frame, with the registration it has now.
        func bind(_ registration: UserContentController.Registration?, frame: FrameInfo, world: ContentWorld) {
            route = ScriptMessage.Route(name: name, frameInfo: frame, world: world)
            update(registration, frame: frame)
        }

        func update(_ registration: UserContentController.Registration?, frame: FrameInfo) {
            self.registration = registration
            refusal = registration?.options.refusal(for: frame, handler: name)
        }
    }

    /// A call waiting for its handler.
    struct PendingCall {
        let deferred: DeferredPromise
        let installed: Installed
        let body: ScriptValue
        /// When the call began, if a log records it.
        let started: ContinuousClock.Instant?
        var task: Task<Void, Never>?
    }

    /// Functions captured from the pristine global object before any page script ran.
    @safe  // its JavaScriptCore references are used only on its context's engine thread, while the context lives
    struct Helpers {
        let resolve: RawObject
        let reject: RawObject
        let listen: RawObject
        let build: RawObject
        let add: RawObject
        let remove: RawObject

        var all: [RawObject] { unsafe [resolve, reject, listen, build, add, remove] }
    }

    private init(
        controller: UserContentController, world: ContentWorld, frame: FrameInfo, helpers: Helpers, in context: isolated ScriptContext
    ) {
        self.replies = ScriptContextInbox(for: context) { context, reply in
            context.attachment(BridgeInstallation.self)?.complete(reply.id, reply.result, in: context)
        }
        self.controller = controller
        self.world = world
        self.frame = frame
        self.helpers = helpers
        self.generation = controller.generation.load(ordering: .acquiring)
    }

    deinit {
        observation?.cancel()
    }

    /// The bridge's prelude, run ahead of the document it is for (while its request is out):
    /// it depends on nothing the response decides.
    final class Prepared {
        let helpers: Helpers
        init(_ helpers: Helpers) { self.helpers = helpers }
    }

    /// Runs the bridge's prelude in `context`, which no page script has touched yet; ``install``
    /// then only builds `window.webkit.messageHandlers`.
    package static func prepare(in context: isolated ScriptContext) throws(ScriptError) {
        guard context.attachment(Prepared.self) == nil else { return }
        let prelude = try unsafe context.evaluateRaw(prelude)
        func member(_ name: String) throws(ScriptError) -> RawObject {
            do {
                return try unsafe context.protectedFunction(name, of: prelude)
            } catch {
                throw ScriptError(kind: .exception, name: "Error", message: "bridge prelude is incomplete")
            }
        }
        let helpers = unsafe Helpers(
            resolve: try member("resolve"), reject: try member("reject"), listen: try member("listen"), build: try member("build"),
            add: try member("add"), remove: try member("remove"))
        context.attach(Prepared(helpers))
    }

    /// Installs `window.webkit.messageHandlers` for `world` into `context`, before any page
    /// script runs, for the document at `frame`: built now, or bound to `frame` if it was built
    /// ahead with ``build(_:world:in:)`` (check ``isCurrent(for:world:in:)`` first).
    package static func install(
        _ controller: UserContentController, world: ContentWorld, frame: FrameInfo, in context: isolated ScriptContext
    ) throws(ScriptError) {
        if let built = context.attachment(BridgeInstallation.self) {
            built.bind(to: frame)
        } else {
            try build(controller, world: world, frame: frame, in: context)
        }
    }

    /// Whether the bridge built ahead in `context`, if any, offers exactly the handlers
    /// `controller` has in `world` now (a handler added or removed since means a new document).
    package static func isCurrent(for controller: UserContentController, world: ContentWorld, in context: isolated ScriptContext) -> Bool {
        guard let installation = context.attachment(BridgeInstallation.self) else { return true }
        guard installation.controller === controller, installation.world == world else { return false }
        let names = controller.registrations(in: world).map(\.name)
        return names.count == installation.handlers.count && names.allSatisfy { installation.handlers[$0] != nil }
    }

    /// Whether `context` has its bridge built (ahead of its document, or installed).
    package static func isBuilt(in context: isolated ScriptContext) -> Bool {
        context.attachment(BridgeInstallation.self) != nil
    }

    /// The frame a bridge built ahead of its document carries until it is bound.
    private static let unboundFrame = FrameInfo(url: URL(string: "about:blank")!)

    /// Binds the installation to its document's frame: every handler's route, and its refusal
    /// with the registration it has now.
    private func bind(to frame: FrameInfo) {
        self.frame = frame
        generation = controller.generation.load(ordering: .acquiring)
        for (name, installed) in handlers {
            installed.bind(controller.registration(named: name, in: world), frame: frame, world: world)
        }
    }

    /// Builds `window.webkit.messageHandlers` for `world` into `context` ahead of its document
    /// (a page prewarming its next one; the prelude made by ``prepare(in:)`` if it was not):
    /// everything but the frame, which ``install(_:world:frame:in:)`` binds. Does nothing if
    /// the bridge is built already.
    package static func build(
        _ controller: UserContentController, world: ContentWorld, in context: isolated ScriptContext
    ) throws(ScriptError) {
        try build(controller, world: world, frame: unboundFrame, in: context)
    }

    /// Builds the bridge for the document at `frame` (a placeholder when built ahead).
    private static func build(
        _ controller: UserContentController, world: ContentWorld, frame: FrameInfo, in context: isolated ScriptContext
    ) throws(ScriptError) {
        guard context.attachment(BridgeInstallation.self) == nil else { return }
        try prepare(in: context)
        guard let prepared = context.attachment(Prepared.self) else {
            throw ScriptError(kind: .exception, name: "Error", message: "bridge prelude is incomplete")
        }
        let helpers = prepared.helpers
        let installation = BridgeInstallation(controller: controller, world: world, frame: frame, helpers: helpers, in: context)
        let abort = unsafe context.makeFunction { context, call in
            guard let id = Int(javaScriptNumber: call.number(at: 0)) else { return nil }
            context.attachment(BridgeInstallation.self)?.fail(id, with: .aborted, in: context)
            return nil
        }
        installation.introduction = UInt(bitPattern: abort)
        // Each function and name is held from the moment it is made: making the next could
        // otherwise collect it before `build` has it.
        var entries = context.holdArguments()
        unsafe context.hold(abort, in: &entries)
        for registration in controller.registrations(in: world) {
            unsafe installation.hold(installation.handler(for: registration, in: context), in: &entries, context)
        }
        try unsafe context.call(helpers.build, with: entries)
        // Attached only once built: a build that failed is tried again, and its error
        // reported, when the document commits.
        context.detach(Prepared.self)
        context.attach(installation)
        context.onClose { context in context.attachment(BridgeInstallation.self)?.documentWillClose(in: context) }
        // Handlers added or removed later change this document's namespace too, in order
        // with what the app asks of the page afterwards: the change is queued on the
        // context's thread before the app's next call can be.
        installation.observation = controller.observeHandlerChanges { [weak context] in
            guard let context else { return }
            Task.immediate { await BridgeInstallation.updateHandlers(in: context) }
        }
    }

    /// A handler's record in this document, and its `postMessage` function.
    private func handler(
        for registration: UserContentController.Registration, in context: isolated ScriptContext
    ) -> (
        name: String, post: RawValue?
    ) {
        let installed = Installed(name: registration.name, registration: registration, frame: frame, world: world)
        handlers[registration.name] = installed
        // The installation lives as long as the context and its native functions, and this
        // function only runs on the context's thread.
        let captured = EngineThreadOnly((self, installed))
        let post = unsafe context.makeFunction { context, call in
            let (installation, installed) = captured.value
            return try unsafe installation.post(to: installed, call, in: context)
        }
        return (registration.name, unsafe post)
    }

    /// Holds a handler's name and function as arguments of a helper, from the moment they
    /// are made: making the next could otherwise collect them first.
    private func hold(_ handler: (name: String, post: RawValue?), in entries: inout HeldArguments, _ context: isolated ScriptContext) {
        unsafe context.hold(context.jsValue(.string(handler.name)), in: &entries)
        unsafe context.hold(handler.post, in: &entries)
        if controller.collectsGarbageWhileInstalling { context.collectGarbage() }
    }

    /// Brings `window.webkit.messageHandlers` in line with the controller after a handler was
    /// added or removed, as WebKit does in existing documents: an added handler appears, a
    /// removed one disappears (a reference the page kept rejects its calls with
    /// `handler_removed`, and stays so if the name is added again).
    package static func updateHandlers(in context: isolated ScriptContext) {
        guard !context.isClosed, let installation = context.attachment(BridgeInstallation.self) else { return }
        installation.updateHandlers(in: context)
    }

    private func updateHandlers(in context: isolated ScriptContext) {
        generation = controller.generation.load(ordering: .acquiring)
        let registrations = controller.registrations(in: world)
        var names = Set<String>()
        for registration in registrations {
            names.insert(registration.name)
            if let installed = handlers[registration.name] {
                installed.update(registration, frame: frame)
                continue
            }
            var entries = context.holdArguments()
            unsafe hold(handler(for: registration, in: context), in: &entries, context)
            _ = try? unsafe context.call(helpers.add, with: entries)
        }
        for (name, installed) in handlers where !names.contains(name) {
            installed.update(nil, frame: frame)
            handlers[name] = nil
            // Its own postMessage still finds it (and rejects); the map would keep every
            // removed handler of a long-lived document.
            handlerObjects[installed.object] = nil
            var entries = context.holdArguments()
            unsafe context.hold(context.jsValue(.string(name)), in: &entries)
            _ = try? unsafe context.call(helpers.remove, with: entries)
        }
    }

    // MARK: The call

    /// `postMessage(body, options)`: the hot path.
    private func post(to bound: Installed, _ call: RawCall, in context: isolated ScriptContext) throws -> RawValue? {
        // As in WebKit, `postMessage` is its handler object's: called on another handler it
        // posts to that one, and on anything else it rejects, before anything else is read.
        var installed = bound
        let this = UInt(bitPattern: unsafe call.this)
        if this != bound.object {
            if bound.object == 0, this != 0, UInt(bitPattern: unsafe call[0]) == introduction {
                bound.object = this
                handlerObjects[this] = bound
                return nil
            }
            guard this != 0, let other = handlerObjects[this] else {
                return unsafe call.settledPromise(resolving: false, with: call.makeError(Self.notAHandler))
            }
            installed = other
        }
        // As in WebKit, a call without a body is refused before it reaches anything.
        guard unsafe !call.arguments.isEmpty else {
            return unsafe call.settledPromise(resolving: false, with: call.makeError(ScriptThrow("TypeError", "Not enough arguments")))
        }
        // The clock is read only for a log that records the call.
        let started = controller.log == nil ? nil : ContinuousClock.now
        let current = controller.generation.load(ordering: .acquiring)
        if current != generation { refreshRegistrations(current) }
        let body: ScriptValue
        do {
            body = try unsafe context.scriptValue(call[0], limits: controller.limits.body)
        } catch {
            record(installed, .undefined, .refused(code: "data_clone", message: error.message), started: started)
            throw ScriptThrow("DataCloneError", "postMessage: \(error.message)")
        }
        guard let registration = installed.registration else {
            return unsafe refuse(installed, body, .removed, started, in: call)
        }
        if let refusal = installed.refusal { return unsafe refuse(installed, body, refusal, started, in: call) }
        let message = ScriptMessage(body: body, route: installed.route)

        let handler: ReplyingHandler
        switch registration.kind {
        case .noReply(let noReply):
            noReply.userContentController(controller, didReceive: message)
            record(installed, body, .delivered, started: started)
            return nil
        case .immediate(let immediate):
            do {
                if let value = try immediate.immediateReply(to: message) {
                    return unsafe settled(installed, body, .success(value), started, in: call, context)
                }
            } catch {
                return unsafe settled(installed, body, .failure(error), started, in: call, context)
            }
            handler = .async(immediate)
        case .reply(let reply):
            handler = .async(reply)
        case .replyHandler(let replyHandler):
            handler = .replyHandler(replyHandler)
        }

        // Every read the page controls (getters on `options.signal` and `signal.aborted` may
        // call postMessage again) happens before the cap is checked, and nothing between the
        // check and the call's entry in `pending` runs page code: re-entrant calls cannot
        // slip past the cap.
        let signal = unsafe abortSignal(call)
        let aborted = unsafe signal.map { unsafe call.bool(Self.aborted, of: $0) } ?? false
        guard pending.count < controller.limits.maxCallsInFlight else {
            return unsafe refuse(installed, body, .overloaded, started, in: call)
        }
        if aborted {
            return unsafe refuse(installed, body, .aborted, started, in: call)
        }
        let id = nextCallID
        nextCallID += 1
        // The handler starts at once, on this thread. Most handlers answer without suspending
        // (a cached value, a refresh that is already fresh): then the page gets a settled
        // promise, as from an immediate handler, and the call never becomes pending (no
        // deferred promise, no deadline, no abort listener).
        let controller = self.controller
        // The task is isolated to the context, so it runs, and completes the call, on this
        // thread: it holds the installation itself rather than looking it up again.
        let installation = EngineThreadOnly(self)
        starting.append(id)
        let task: Task<Void, Never>?
        switch handler {
        case .replyHandler(let replyHandler):
            // No task: the reply comes back to this thread by itself (``reply(to:in:)``).
            replyHandler.userContentController(controller, didReceive: message, replyHandler: reply(to: id, in: context))
            task = nil
        case .async(let handler):
            handlerTasks += 1
            task = Task.immediate {
                let result: Result<ScriptValue, any Error>
                do {
                    result = .success(try await handler.userContentController(controller, didReceive: message))
                } catch {
                    result = .failure(error)
                }
                installation.value.complete(id, result, in: context)
            }
        }
        if let index = starting.lastIndex(of: id) { starting.remove(at: index) }
        if let index = answeredAtOnce.lastIndex(where: { $0.id == id }) {
            return unsafe settled(installed, body, answeredAtOnce.remove(at: index).result, started, in: call, context)
        }
        // The handler suspended: nothing it does can complete the call before this native call
        // returns (its completion runs on this thread, after it).
        let (promise, deferred) = unsafe try context.makeDeferredPromise()
        pending[id] = PendingCall(deferred: deferred, installed: installed, body: body, started: started, task: task)
        if let signal = unsafe signal {
            unsafe call.callIgnoringResult(helpers.listen, [signal, call.makeNumber(Double(id))])
        }
        addDeadline((started ?? .now) + (registration.options.timeout ?? controller.limits.defaultTimeout), for: id, in: context)
        return unsafe promise
    }

    /// A handler that replies, as the hot path starts it.
    private enum ReplyingHandler {
        case async(any ScriptMessageHandlerWithReply)
        case replyHandler(any ScriptMessageHandlerWithReplyHandler)
    }

    /// The reply object of call `id`. Sent on this thread while the handler is being called, it
    /// answers the page's call at once; sent later, or from another thread, it goes through the
    /// document's reply inbox, which completes it in a job on this thread (never inside another
    /// native call) with the other replies sent before that job ran. It holds the context
    /// weakly and finds the installation there, on the thread, as aborts and timeouts do.
    private func reply(to id: Int, in context: isolated ScriptContext) -> ScriptMessageReply {
        let thread = context.thread
        let inbox = replies
        return ScriptMessageReply { [weak context] result in
            if let context, thread.isIsolatingCurrentContext() == true {
                let answered = context.assumeIsolated { context in
                    guard let installation = context.attachment(BridgeInstallation.self), installation.starting.contains(id) else {
                        return false
                    }
                    installation.complete(id, result, in: context)
                    return true
                }
                if answered { return }
            }
            inbox.send(Reply(id: id, result: result))
        }
    }

    /// A reply sent to the document's inbox.
    struct Reply: Sendable {
        let id: Int
        let result: Result<ScriptValue, any Error>
    }

    /// A handler's result: settles its pending call, or, when the handler answered before its
    /// call could become pending, leaves the result for ``post(to:_:in:)`` to return.
    private func complete(_ id: Int, _ result: Result<ScriptValue, any Error>, in context: isolated ScriptContext) {
        if starting.contains(id) {
            answeredAtOnce.append((id, result))
            return
        }
        finish(id, result, in: context)
    }

    private func finish(_ id: Int, _ result: Result<ScriptValue, any Error>, in context: isolated ScriptContext) {
        guard let call = pending.removeValue(forKey: id) else { return }
        trimDeadlines()
        switch result {
        case .success(let value):
            record(call.installed, call.body, .replied(value), started: call.started)
            context.settle(call.deferred, with: .success(value))
        case .failure(let error):
            let failure = publicError(error, handler: call.installed.name)
            record(call.installed, call.body, .rejected(code: failure.code, message: failure.message), started: call.started)
            context.settle(call.deferred, with: .failure(failure.scriptThrow))
        }
    }

    /// Rejects a pending call (timeout, abort) and cancels its handler.
    func fail(_ id: Int, with failure: ScriptMessageError, in context: isolated ScriptContext) {
        guard let call = pending.removeValue(forKey: id) else { return }
        trimDeadlines()
        call.task?.cancel()
        record(call.installed, call.body, .rejected(code: failure.code, message: failure.message), started: call.started)
        context.settle(call.deferred, with: .failure(failure.scriptThrow))
    }

    // MARK: Timeouts

    private func addDeadline(_ deadline: ContinuousClock.Instant, for id: Int, in context: isolated ScriptContext) {
        if let last = deadlines.last, last.deadline > deadline {
            let index = deadlines.firstIndex { $0.deadline > deadline } ?? deadlines.endIndex
            deadlines.insert((deadline, id), at: index)
        } else {
            deadlines.append((deadline, id))
        }
        scheduleSweep(in: context)
    }

    private func scheduleSweep(in context: isolated ScriptContext) {
        guard !sweepScheduled, let first = deadlines.first else { return }
        sweepScheduled = true
        context.schedule(after: max(.zero, first.deadline - .now)) { context in
            context.attachment(BridgeInstallation.self)?.sweep(in: context)
        }
    }

    /// Rejects the calls whose deadline passed, then waits for the next deadline.
    private func sweep(in context: isolated ScriptContext) {
        sweepScheduled = false
        let now = ContinuousClock.now
        while let first = deadlines.first, first.deadline <= now || pending[first.id] == nil {
            deadlines.removeFirst()
            if pending[first.id] != nil { fail(first.id, with: .timeout, in: context) }
        }
        scheduleSweep(in: context)
    }

    /// Drops the deadlines of calls that already settled from the front of the queue.
    private func trimDeadlines() {
        while let first = deadlines.first, pending[first.id] == nil { deadlines.removeFirst() }
    }

    /// Rejects every pending call with `NavigationError` as the document goes away.
    private func documentWillClose(in context: isolated ScriptContext) {
        observation?.cancel()
        for id in pending.keys.sorted() { fail(id, with: .navigation, in: context) }
        unsafe helpers.all.forEach { unsafe context.unprotect($0) }
    }

    /// Calls currently awaiting a reply.
    package var pendingDeadlines: Int { deadlines.count }

    /// Calls currently awaiting a reply (see also ``pendingDeadlines``).
    package var callsInFlight: Int { pending.count }

    /// How many jobs on this thread have settled replies sent later or from another thread
    /// (each settles every reply sent before it ran).
    package var replyDeliveries: Int { replies.deliveryCount }
    /// How many calls started a task for their handler (the replying handlers' form).
    package private(set) var handlerTasks = 0

    // MARK: Helpers

    private func refreshRegistrations(_ current: Int) {
        generation = current
        for (name, installed) in handlers { installed.update(controller.registration(named: name, in: world), frame: frame) }
    }

    /// The page's promise for a handler that answered during the call: settled already, and
    /// the call recorded in the log.
    private func settled(
        _ installed: Installed, _ body: ScriptValue, _ result: Result<ScriptValue, any Error>, _ started: ContinuousClock.Instant?,
        in call: RawCall, _ context: isolated ScriptContext
    ) -> RawValue? {
        switch result {
        case .success(let value):
            record(installed, body, .replied(value), started: started)
            return unsafe call.settledPromise(resolving: true, with: context.jsValue(value))
        case .failure(let error):
            let failure = publicError(error, handler: installed.name)
            record(installed, body, .rejected(code: failure.code, message: failure.message), started: started)
            return unsafe call.settledPromise(resolving: false, with: call.makeError(failure.scriptThrow))
        }
    }

    /// Records a call in the controller's log, if it keeps one (`started` is `nil` when it does not).
    private func record(_ installed: Installed, _ body: ScriptValue, _ outcome: MessageLog.Outcome, started: ContinuousClock.Instant?) {
        controller.log?.record(installed.route, body: body, outcome: outcome, started: started ?? .now)
    }

    private func refuse(
        _ installed: Installed, _ body: ScriptValue, _ failure: ScriptMessageError, _ started: ContinuousClock.Instant?, in call: RawCall
    ) -> RawValue? {
        record(installed, body, .refused(code: failure.code, message: failure.message), started: started)
        return unsafe call.settledPromise(resolving: false, with: call.makeError(failure.scriptThrow))
    }

    private func abortSignal(_ call: RawCall) -> RawValue? {
        unsafe call.objectProperty(Self.signal, ofArgument: 1)
    }

    /// WebKit's error for a `postMessage` called on something that is not a handler.
    private static let notAHandler = ScriptThrow(
        "TypeError", "Can only call UserMessageHandler.postMessage on instances of UserMessageHandler")

    /// The names read from a call's options on every call, interned once.
    private static let signal = PropertyName("signal")
    private static let aborted = PropertyName("aborted")

    /// What the page may see of a handler's error.
    private func publicError(_ error: any Error, handler: String) -> ScriptMessageError {
        controller.publicScriptMessageError(error, handler: handler)
    }

    // MARK: Page side

    /// Runs once per world before page scripts: captures pristine built-ins, provides a minimal
    /// `AbortController` where the engine has none, and returns the builder of
    /// `window.webkit.messageHandlers`.
    static let prelude = ScriptSource(preludeSource, sourceURL: "sessionbridge://prelude/bridge.js")

    static let preludeSource = """
        (function () {
          "use strict";
          const P = Promise, freeze = Object.freeze, define = Object.defineProperty, create = Object.create, global = globalThis;
          const resolve = P.resolve.bind(P), reject = P.reject.bind(P);
          if (typeof global.AbortController === "undefined") {
            class AbortSignal {
              #aborted = false; #reason = undefined; #listeners = [];
              get aborted() { return this.#aborted; }
              get reason() { return this.#reason; }
              addEventListener(type, listener) { if (type === "abort" && typeof listener === "function") this.#listeners.push(listener); }
              removeEventListener(type, listener) { this.#listeners = this.#listeners.filter(l => l !== listener); }
              throwIfAborted() { if (this.#aborted) throw this.#reason; }
              static _abort(signal, reason) {
                if (signal.#aborted) return;
                signal.#aborted = true;
                signal.#reason = reason;
                const listeners = signal.#listeners; signal.#listeners = [];
                if (typeof signal.onabort === "function") listeners.unshift(signal.onabort);
                for (const listener of listeners) { try { listener.call(signal, { type: "abort", target: signal }); } catch (e) { queueMicrotask(() => { throw e; }); } }
              }
            }
            const abortSignal = AbortSignal._abort; delete AbortSignal._abort;
            class AbortController {
              #signal = new AbortSignal();
              get signal() { return this.#signal; }
              abort(reason) {
                const error = reason !== undefined ? reason : (() => { const e = new Error("The operation was aborted."); e.name = "AbortError"; return e; })();
                abortSignal(this.#signal, error);
              }
            }
            define(global, "AbortController", { value: AbortController, writable: true, configurable: true });
            define(global, "AbortSignal", { value: AbortSignal, writable: true, configurable: true });
          }
          let abortNative = null;
          const listen = (signal, id) => {
            try { signal.addEventListener("abort", () => abortNative(id), { once: true }); } catch (e) {}
          };
          // name -> frozen handler; no prototype, so nothing the page adds to Object.prototype
          // is listed. The page sees a frozen copy, made again after each change, whose names
          // are not enumerable, as in WebKit. Each handler holds its own postMessage.
          const table = create(null);
          let handlers = freeze({});
          const expose = (name, post) => {
            define(post, "length", { value: 1, configurable: true });
            define(post, "name", { value: "postMessage", configurable: true });
            freeze(post);
            const handler = {};
            define(handler, "postMessage", { value: post });
            table[name] = freeze(handler);
            // Introduces the handler object to its postMessage (see `introduction`).
            handler.postMessage(abortNative);
          };
          const publish = () => {
            const next = {};
            for (const name in table) define(next, name, { value: table[name] });
            handlers = freeze(next);
          };
          // As in WebKit, `window.webkit` appears once the world has a handler.
          let shown = false;
          const show = () => {
            if (shown) return;
            shown = true;
            const webkit = {};
            define(webkit, "messageHandlers", { get: function messageHandlers() { return handlers; } });
            define(global, "webkit", { value: freeze(webkit), enumerable: false });
          };
          const build = (abort, ...entries) => {
            abortNative = abort;
            for (let i = 0; i < entries.length; i += 2) expose(entries[i], entries[i + 1]);
            publish();
            if (entries.length > 0) show();
          };
          const add = (name, post) => { expose(name, post); publish(); show(); };
          const remove = (name) => { delete table[name]; publish(); };
          return { resolve, reject, listen, build, add, remove };
        })()
        """
}
