public import Logging
import Synchronization

/// The app's side of the bridge: message handlers and user scripts shared by the pages it
/// configures. (WebKit's `WKUserContentController`.)
///
/// ```swift
/// let controller = UserContentController()
/// controller.addScriptMessageHandler(
///     ClosureMessageHandler { message in ["echo": message.body] },
///     name: "echo",
///     options: HandlerOptions(allowedOrigins: [SecurityOrigin("https://app.example")!]))
/// ```
public final class UserContentController: Sendable {
    /// What kind of handler is registered.
    enum HandlerKind: Sendable {
        case noReply(any ScriptMessageHandler)
        case reply(any ScriptMessageHandlerWithReply)
        case immediate(any ImmediateScriptMessageHandler)
        case replyHandler(any ScriptMessageHandlerWithReplyHandler)
    }

    /// A registered handler. A class, so a document's call reads it through one reference
    /// instead of copying its name, world, handler and options on every call.
    final class Registration: Sendable {
        let name: String
        let world: ContentWorld
        let kind: HandlerKind
        let options: HandlerOptions

        init(name: String, world: ContentWorld, kind: HandlerKind, options: HandlerOptions) {
            self.name = name
            self.world = world
            self.kind = kind
            self.options = options
        }
    }

    struct Key: Hashable {
        let name: String
        let world: ContentWorld
    }

    private struct State {
        var handlers: [Key: Registration] = [:]
        var order: [Key] = []
        var userScripts: [UserScript] = []
    }

    private let state = Mutex(State())
    /// Bumped on every handler change, so installed documents notice removals cheaply.
    let generation = Atomic<Int>(0)
    /// Called after every handler change: the documents and views that show the handlers.
    private let handlerObservers = Mutex<(next: Int, observers: [Int: @Sendable () -> Void])>((0, [:]))
    /// For tests: a full garbage collection after each handler a document installs, so a
    /// value made for the installation but not yet kept alive would be collected.
    package var collectsGarbageWhileInstalling: Bool {
        get { garbageCollectionWhileInstalling.load(ordering: .relaxed) }
        set { garbageCollectionWhileInstalling.store(newValue, ordering: .relaxed) }
    }
    private let garbageCollectionWhileInstalling = Atomic<Bool>(false)

    /// Limits on what pages may send.
    public let limits: BridgeLimits
    /// The record of calls; `nil` records nothing.
    public let log: MessageLog?
    /// Where handler failures are logged in detail (the page sees only a generic message).
    public let logger: Logger

    public init(
        limits: BridgeLimits = BridgeLimits(), log: MessageLog? = MessageLog(), logger: Logger = Logger(label: "sessionbridge.bridge")
    ) {
        self.limits = limits
        self.log = log
        self.logger = logger
    }

    // MARK: Handlers

    /// Registers a handler without reply as `window.webkit.messageHandlers.<name>` in `contentWorld`.
    /// No origin may call it unless `options` allows it (see ``HandlerOptions``).
    public func add(
        _ handler: any ScriptMessageHandler, contentWorld: ContentWorld = .page, name: String, options: HandlerOptions = HandlerOptions()
    ) {
        register(Registration(name: name, world: contentWorld, kind: .noReply(handler), options: options))
    }

    /// Registers a handler with reply as `window.webkit.messageHandlers.<name>` in `contentWorld`,
    /// in the next documents and at once in the documents shown now, as in WebKit.
    /// No origin may call it unless `options` allows it (see ``HandlerOptions``).
    public func addScriptMessageHandler(
        _ handler: any ScriptMessageHandlerWithReply, contentWorld: ContentWorld = .page, name: String,
        options: HandlerOptions = HandlerOptions()
    ) {
        let kind: HandlerKind = (handler as? any ImmediateScriptMessageHandler).map { .immediate($0) } ?? .reply(handler)
        register(Registration(name: name, world: contentWorld, kind: kind, options: options))
    }

    /// Registers a handler that answers through a ``ScriptMessageReply``, now or later, from any
    /// thread, as `window.webkit.messageHandlers.<name>` in `contentWorld` (WebKit's
    /// `add(_:contentWorld:name:)` with a handler taking a `replyHandler`). No origin may call it
    /// unless `options` allows it (see ``HandlerOptions``).
    public func addScriptMessageHandler(
        _ handler: any ScriptMessageHandlerWithReplyHandler, contentWorld: ContentWorld = .page, name: String,
        options: HandlerOptions = HandlerOptions()
    ) {
        register(Registration(name: name, world: contentWorld, kind: .replyHandler(handler), options: options))
    }

    /// Removes the handler `name` of `contentWorld`: it leaves `window.webkit.messageHandlers`
    /// in the documents that show it. Calls already made to it still finish; later calls
    /// through a reference the page kept reject with code `handler_removed`.
    public func removeScriptMessageHandler(forName name: String, contentWorld: ContentWorld = .page) {
        state.withLock { state in
            let key = Key(name: name, world: contentWorld)
            state.handlers[key] = nil
            state.order.removeAll { $0 == key }
        }
        handlersChanged()
    }

    /// Removes every handler of every world.
    public func removeAllScriptMessageHandlers() {
        state.withLock { state in
            state.handlers.removeAll()
            state.order.removeAll()
        }
        handlersChanged()
    }

    /// The names registered in `world`, in registration order.
    public func handlerNames(in world: ContentWorld) -> [String] {
        state.withLock { state in state.order.filter { $0.world == world }.map(\.name) }
    }

    /// Every world that has a handler or a user script; a page makes a global object for each.
    public var contentWorlds: Set<ContentWorld> {
        state.withLock { state in Set(state.order.map(\.world) + state.userScripts.map(\.contentWorld)) }
    }

    private func register(_ registration: Registration) {
        state.withLock { state in
            let key = Key(name: registration.name, world: registration.world)
            if state.handlers.updateValue(registration, forKey: key) == nil { state.order.append(key) }
        }
        handlersChanged()
    }

    private func handlersChanged() {
        generation.add(1, ordering: .releasing)
        for observer in handlerObservers.withLock({ Array($0.observers.values) }) { observer() }
    }

    /// Calls `observer` after every handler change, on the thread that made it, until the
    /// returned observation is cancelled: a document or a view that shows the handlers updates
    /// its `window.webkit.messageHandlers` (WebKit's handlers are live in existing documents).
    package func observeHandlerChanges(_ observer: @escaping @Sendable () -> Void) -> HandlerObservation {
        let id = handlerObservers.withLock { state in
            state.next += 1
            state.observers[state.next] = observer
            return state.next
        }
        return HandlerObservation { [weak self] in
            _ = self?.handlerObservers.withLock { $0.observers.removeValue(forKey: id) }
        }
    }

    func registrations(in world: ContentWorld) -> [Registration] {
        state.withLock { state in state.order.filter { $0.world == world }.compactMap { state.handlers[$0] } }
    }

    func registration(named name: String, in world: ContentWorld) -> Registration? {
        state.withLock { $0.handlers[Key(name: name, world: world)] }
    }

    // MARK: User scripts

    /// Adds a script injected into every new document.
    public func addUserScript(_ script: UserScript) {
        state.withLock { $0.userScripts.append(script) }
    }

    /// Removes every user script.
    public func removeAllUserScripts() {
        state.withLock { $0.userScripts.removeAll() }
    }

    /// The user scripts, in the order they run.
    public var userScripts: [UserScript] {
        state.withLock { $0.userScripts }
    }
}

/// A ``UserContentController/observeHandlerChanges(_:)`` registration; ``cancel()`` ends it.
package final class HandlerObservation: Sendable {
    private let onCancel: @Sendable () -> Void

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// Stops the calls. Calling it again does nothing.
    package func cancel() {
        onCancel()
    }
}
