import CWebKitGTK
import Foundation
import OrderedCollections
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import WebKitGTKShim

/// Message handlers and user scripts: every handler of the `UserContentController` is
/// registered with WebKit in its content world, and every message is dispatched into the same
/// bridge machinery as the headless engine's (allow-lists, limits, timeouts, handler kinds, the
/// message log), with the origin WebKit attests: the view's committed document.
extension WebKitWebView {
    /// The prefix of an encoded error reply. WebKitGTK rejects a reply's promise with a plain
    /// string; the wrapper script below turns an encoded one back into an `Error` with `name`,
    /// `code`, `retryable` and `data`, as the headless engine's bridge rejects.
    static let errorMarker = "\u{1}sessionbridge-error:"

    /// A handler as the view's content manager has it registered.
    struct RegisteredHandler: Hashable {
        let name: String
        let world: ContentWorld
    }

    /// Registers the controller's handlers and scripts with WebKit, and keeps the handlers in
    /// step with the controller: a handler added or removed later is added to or removed from
    /// the view's documents, the one shown included, as in WebKit.
    func installContent(_ controller: UserContentController) {
        updateHandlers(controller, inShownDocument: false)
        // Queued on the WebKit thread by the change itself, so the app's next call to the view
        // comes after it (and WebKit's messages to the web process keep that order).
        let target = signalTarget
        handlerObservation = controller.observeHandlerChanges {
            Task.immediate { @WebKitActor in target.view?.updateHandlers(controller, inShownDocument: true) }
        }
    }

    /// Registers what the controller has and WebKit has not, unregisters what the controller
    /// no longer has, and sets the scripts of the next documents. With `inShownDocument`, the
    /// shown document's added handlers get their error wrapper at once.
    func updateHandlers(_ controller: UserContentController, inShownDocument: Bool) {
        guard !isClosed else { return }
        let manager: UnsafeMutablePointer<WebKitUserContentManager> = unsafe contentManager.typed()
        var worlds = controller.contentWorlds
        worlds.insert(.page)
        let sortedWorlds = worlds.sorted { $0.name < $1.name }
        var wanted: [RegisteredHandler: Bool] = [:]
        var names: [ContentWorld: [String]] = [:]
        for world in sortedWorlds {
            names[world] = controller.handlerNames(in: world)
            for name in names[world] ?? [] {
                if let replies = controller.handlerReplies(name: name, in: world) {
                    wanted[RegisteredHandler(name: name, world: world)] = replies
                }
            }
        }
        // The first call (at creation) sets the next documents' scripts whatever it registers.
        var changed = !inShownDocument
        for (handler, replies) in registeredHandlers where wanted[handler] != replies {
            if let worldName = Self.worldName(handler.world) {
                unsafe webkit_user_content_manager_unregister_script_message_handler_in_world(manager, handler.name, worldName)
            } else {
                unsafe webkit_user_content_manager_unregister_script_message_handler(manager, handler.name)
            }
            registeredHandlers[handler] = nil
            changed = true
        }
        var added: [ContentWorld: [String]] = [:]
        for world in sortedWorlds {
            for name in names[world] ?? [] {
                let handler = RegisteredHandler(name: name, world: world)
                guard let replies = wanted[handler], registeredHandlers[handler] == nil else { continue }
                unsafe register(handler, replies: replies, manager: manager)
                registeredHandlers[handler] = replies
                added[world, default: []].append(name)
                changed = true
            }
        }
        guard changed else { return }
        unsafe webkit_user_content_manager_remove_all_scripts(manager)
        for world in sortedWorlds {
            guard let list = names[world], !list.isEmpty else { continue }
            addScript(Self.wrapperSource(names: list), world: world, atStart: true, mainFrameOnly: false)
        }
        for script in controller.userScripts {
            addScript(
                script.source, world: script.contentWorld, atStart: script.injectionTime == .atDocumentStart,
                mainFrameOnly: script.isForMainFrameOnly)
        }
        guard inShownDocument, url != nil else { return }
        for world in sortedWorlds {
            guard let list = added[world] else { continue }
            unsafe webkit_web_view_evaluate_javascript(
                webView, Self.wrapperSource(names: list), -1, Self.worldName(world), nil, nil, nil, nil)
        }
    }

    /// Registers one handler with WebKit and, the first time, connects its signal.
    private func register(_ handler: RegisteredHandler, replies: Bool, manager: UnsafeMutablePointer<WebKitUserContentManager>) {
        let name = handler.name
        let worldName = Self.worldName(handler.world)
        if !replies {
            if let worldName {
                unsafe webkit_user_content_manager_register_script_message_handler_in_world(manager, name, worldName)
            } else {
                unsafe webkit_user_content_manager_register_script_message_handler(manager, name)
            }
        } else {
            unsafe webkit_user_content_manager_register_script_message_handler_with_reply(manager, name, worldName)
        }
        guard connectedRoutes.insert(ConnectedRoute(handler: handler, replies: replies)).inserted else { return }
        let route = unsafe Unmanaged.passRetained(MessageRoute(target: signalsTarget, name: name, world: handler.world)).toOpaque()
        let release: GClosureNotify = { data, _ in
            if let data = unsafe data { unsafe Unmanaged<MessageRoute>.fromOpaque(data).release() }
        }
        if !replies {
            unsafe sb_connect_script_message(
                manager, name,
                { _, result, data in
                    guard let data = unsafe data, let result = unsafe result,
                        let value = unsafe webkit_javascript_result_get_js_value(result)
                    else { return }
                    let route = unsafe Unmanaged<MessageRoute>.fromOpaque(data).takeUnretainedValue()
                    let body = unsafe GPointer(value)
                    WebKitActor.assumeIsolated { route.target.view?.receive(route, body: body, reply: nil) }
                }, unsafe route, unsafe release)
        } else {
            unsafe sb_connect_script_message_with_reply(
                manager, name,
                { _, value, reply, data in
                    guard let data = unsafe data, let value = unsafe value, let reply = unsafe reply else { return 0 }
                    let route = unsafe Unmanaged<MessageRoute>.fromOpaque(data).takeUnretainedValue()
                    let body = unsafe GPointer(value)
                    let held = unsafe GPointer(reply)
                    return WebKitActor.assumeIsolated {
                        guard let view = route.target.view else { return 0 }
                        view.receive(route, body: body, reply: held)
                        return 1
                    }
                }, unsafe route, unsafe release)
        }
    }

    /// A signal connection: one per handler and kind, kept for the view's life (a handler
    /// removed and added again reuses it).
    struct ConnectedRoute: Hashable {
        let handler: RegisteredHandler
        let replies: Bool
    }

    private var signalsTarget: SignalTarget { signalTarget }

    private func addScript(_ source: String, world: ContentWorld, atStart: Bool, mainFrameOnly: Bool) {
        let frames = mainFrameOnly ? WEBKIT_USER_CONTENT_INJECT_TOP_FRAME : WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES
        let time = atStart ? WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START : WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_END
        let script =
            if let worldName = Self.worldName(world) {
                unsafe webkit_user_script_new_for_world(source, frames, time, worldName, nil, nil)
            } else {
                unsafe webkit_user_script_new(source, frames, time, nil, nil)
            }
        guard let script = unsafe script else { return }
        unsafe webkit_user_content_manager_add_script(contentManager.typed(), script)
        unsafe webkit_user_script_unref(script)
    }

    /// Makes every handler's `postMessage` reject with a real `Error` (name, message, `code`,
    /// `retryable`, `data`) where WebKitGTK would reject with an encoded string.
    ///
    /// It wraps `postMessage` on the handlers' prototype, which lives as long as the world's
    /// global object, and not on each handler: WebKit may collect a handler's JavaScript
    /// wrapper and make a new one, without the property, the next time the page reads it.
    /// The wrapper cannot be replaced by the page; a second run changes nothing. `names` are
    /// the world's handlers, one of which leads to the prototype. It also clones the body
    /// first, so that one WebKit cannot send throws a `DataCloneError` at once instead of
    /// leaving the page's promise unsettled.
    static func wrapperSource(names: [String]) -> String {
        let list = ScriptValue.array(names.map { .string($0) }).jsonText
        let marker = ScriptValue.string(errorMarker).jsonText
        let bytesMarker = ScriptValue.string(MessageBody.bytesMarker).jsonText
        let entriesMarker = ScriptValue.string(ReplyValue.entriesMarker).jsonText
        return """
            (() => {
              "use strict";
              const handlers = globalThis.webkit && globalThis.webkit.messageHandlers;
              if (!handlers) return;
              const marker = \(marker), parse = JSON.parse, define = Object.defineProperty, prototypeOf = Object.getPrototypeOf;
              const P = Promise, then = P.prototype.then, clone = globalThis.structuredClone;
              const DateType = Date, finite = Number.isFinite, keys = Object.keys, isArray = Array.isArray, apply = Reflect.apply;
              const isView = ArrayBuffer.isView, Buffer = ArrayBuffer;
              const SetType = Set, setAdd = Set.prototype.add, setHas = Set.prototype.has, setDelete = Set.prototype.delete;
              const refuse = (message) => {
                const error = new Error("postMessage: " + message);
                error.name = "DataCloneError";
                throw error;
              };
              // Bytes cross as objects holding their base64 text (see MessageBody), both ways.
              const bytesMarker = \(bytesMarker), hasOwn = Object.hasOwn, Bytes = Uint8Array;
              const toBase64 = Bytes.prototype.toBase64, fromBase64 = Bytes.fromBase64;
              const encode = (view) =>
                ({ [bytesMarker]: apply(toBase64, new Bytes(view.buffer || view, view.byteOffset || 0, view.byteLength), []) });
              // What the headless engine refuses and WebKit would change on the way (a BigInt
              // inside the body arrives as undefined): checked on the clone, a plain copy, in
              // which bytes are replaced by their objects. Returns the value to send.
              const check = (value, above, depth) => {
                switch (typeof value) {
                case "bigint": refuse("a BigInt cannot be cloned");
                case "number":
                  if (!finite(value)) refuse((value !== value ? "nan" : value > 0 ? "inf" : "-inf") + " cannot be sent; only finite numbers can");
                  return value;
                case "object":
                  if (value === null || depth > 1000) return value;
                  if (value instanceof DateType) refuse("a Date cannot be sent; send date.getTime() or date.toISOString()");
                  if (isView(value) || value instanceof Buffer) return encode(value);
                  if (apply(setHas, above, [value])) refuse("value contains a cycle");
                  apply(setAdd, above, [value]);
                  if (isArray(value)) {
                    for (let i = 0; i < value.length; i++) {
                      const sent = check(value[i], above, depth + 1);
                      if (sent !== value[i]) value[i] = sent;
                    }
                  } else {
                    for (const key of keys(value)) {
                      const sent = check(value[key], above, depth + 1);
                      if (sent !== value[key]) value[key] = sent;
                    }
                  }
                  apply(setDelete, above, [value]);
                  return value;
                default: return value;
                }
              };
              const decode = (error) => {
                const text = error && error.message;
                if (typeof text !== "string" || !text.startsWith(marker)) throw error;
                const info = parse(text.slice(marker.length));
                const decoded = new Error(info.message);
                define(decoded, "name", { value: info.name, writable: true, configurable: true });
                decoded.code = info.code;
                decoded.retryable = info.retryable;
                if ("data" in info) decoded.data = info.data;
                throw decoded;
              };
              // A reply holding bytes, or an object with a member WebKit would drop (a method's
              // name of a frozen Object.prototype, an own __proto__), comes in an envelope (see
              // ReplyValue): each byte string becomes a Uint8Array, and each object sent as its
              // entries an object that owns them all, as on the headless engine.
              const entriesMarker = \(entriesMarker), fromEntries = Object.fromEntries;
              const revive = (value) => {
                if (typeof value !== "object" || value === null) return value;
                if (hasOwn(value, entriesMarker) && isArray(value[entriesMarker])) {
                  const entries = value[entriesMarker];
                  for (let i = 0; i < entries.length; i++) entries[i][1] = revive(entries[i][1]);
                  return fromEntries(entries);
                }
                if (hasOwn(value, bytesMarker) && typeof value[bytesMarker] === "string") {
                  try {
                    return apply(fromBase64, Bytes, [value[bytesMarker]]);
                  } catch (e) {
                    return value;  // not text the native side made: a page's own object, echoed
                  }
                }
                if (isArray(value)) {
                  for (let i = 0; i < value.length; i++) value[i] = revive(value[i]);
                } else {
                  for (const key of keys(value)) value[key] = revive(value[key]);
                }
                return value;
              };
              const open = (value) => typeof value === "object" && value !== null && value[bytesMarker] === true ? revive(value.value) : value;
              const wrap = (result) => result instanceof P ? then.call(result, open, decode) : result;
              for (const name of \(list)) {
                const handler = handlers[name];
                if (!handler) continue;
                const prototype = prototypeOf(handler);
                const raw = prototype.postMessage;
                // A method: like WebKit's own postMessage, it has no `prototype` and cannot be
                // called with `new`; its name and length are WebKit's.
                const wrapper = {
                  postMessage(body) {
                    // WebKitGTK leaves a body it cannot clone (a function, a symbol, a node)
                    // unanswered; it throws a DataCloneError here, as on the headless engine.
                    // The body's getters run once, here; WebKit sends the copy.
                    if (arguments.length === 0 || !clone) return wrap(apply(raw, this, arguments));
                    // A primitive needs no clone, only its own check (a BigInt, a number that
                    // is not finite): most calls send one. Functions and symbols go to the
                    // clone, which refuses them.
                    const type = typeof body;
                    if (type === "object" ? body !== null : type === "function" || type === "symbol") {
                      return wrap(apply(raw, this, [check(clone(body), new SetType(), 0)]));
                    }
                    if (type === "bigint" || type === "number" && !finite(body)) check(body, null, 0);
                    return wrap(apply(raw, this, [body]));
                  }
                }.postMessage;
                try {
                  define(prototype, "postMessage", { value: wrapper, enumerable: true });
                } catch (e) {
                  return;  // wrapped already
                }
                \(NativeFunctionText.source)
                showAsNative(wrapper, apply(functionText, raw, []));
                return;
              }
            })();
            """
    }

    // MARK: Receiving

    func receive(_ route: MessageRoute, body value: GPointer, reply: GPointer?) {
        let started = ContinuousClock.now
        let controller = configuration.userContentController
        let jsValue = unsafe value.typed(JSCValue.self)
        let body: ScriptValue
        var refusal: ScriptMessageError? = nil
        do {
            body = try unsafe MessageBody.scriptValue(of: jsValue, limits: controller.limits.body)
        } catch {
            body = .undefined
            refusal = ScriptMessageError(code: "data_clone", message: "postMessage: \(error.message)", name: "DataCloneError")
        }
        let message = ScriptMessage(body: body, route: messageRoute(for: route))
        if refusal == nil, reply != nil, callsInFlight >= controller.limits.maxCallsInFlight { refusal = .overloaded }
        if let refusal {
            _ = controller.refuse(message, refusal, started: started)
            if let reply { Self.send(.rejected(refusal), reply: reply, context: nil) }
            return
        }
        guard let reply else {
            Task { @WebKitActor in _ = await controller.dispatch(message, started: started) }
            return
        }
        if let outcome = controller.dispatchImmediately(message, started: started) {
            // Answered inside the signal: no task, no hop (the fast path of immediate handlers).
            let context = unsafe jsc_value_get_context(jsValue).map(GPointer.init)
            Self.send(outcome, reply: reply, context: context)
            return
        }
        unsafe webkit_script_message_reply_ref(reply.opaque)
        let context = unsafe GPointer(jsc_value_get_context(jsValue)!)
        unsafe g_object_ref(context.raw)
        let id = nextReplyID
        nextReplyID += 1
        pendingReplies[id] = PendingReply(reply: reply, context: context)
        // Started here, inside the signal, on this thread: the handler runs at once and, when it
        // answers without suspending, its reply is sent before the signal returns.
        let task = Task.immediate { @WebKitActor in
            let outcome = await controller.dispatch(message, started: started)
            self.finishReply(id, outcome)
        }
        pendingReplies[id]?.task = task
    }

    /// Sends call `id`'s reply, unless its document went away first (``rejectRepliesOfTheLeftDocument()``).
    private func finishReply(_ id: Int, _ outcome: UserContentController.DispatchOutcome) {
        guard let pending = pendingReplies.removeValue(forKey: id) else { return }
        Self.send(outcome, reply: pending.reply, context: pending.context)
        pending.release()
    }

    /// Rejects the calls the left document still awaits with ``ScriptMessageError/navigation``
    /// and cancels their handlers, as the headless engine does when its document goes: a
    /// reply that came later had reached the left document's script, which WebKit may keep
    /// running for a while, its output mixed into the next document's.
    func rejectRepliesOfTheLeftDocument() {
        guard !pendingReplies.isEmpty else { return }
        let left = pendingReplies
        pendingReplies.removeAll()
        for (_, pending) in left.sorted(by: { $0.key < $1.key }) {
            pending.task?.cancel()
            Self.send(.rejected(.navigation), reply: pending.reply, context: nil)
            pending.release()
        }
    }

    /// The route every message of the committed document to `route`'s handler shares.
    private func messageRoute(for route: MessageRoute) -> ScriptMessage.Route {
        if let made = committedRoutes[ObjectIdentifier(route)] { return made }
        let frame = FrameInfo(url: url ?? URL(string: "about:blank")!, isMainFrame: true)
        let made = ScriptMessage.Route(name: route.name, frameInfo: frame, world: route.world)
        committedRoutes[ObjectIdentifier(route)] = made
        return made
    }

    /// Answers the page's promise.
    private static func send(_ outcome: UserContentController.DispatchOutcome, reply: GPointer, context: GPointer?) {
        switch outcome {
        case .replied(let value):
            // A reply that cannot be made still settles the page's promise.
            guard let context, let jsValue = unsafe ReplyValue.reply(value, in: context.typed()) else {
                return send(.rejected(.internalError), reply: reply, context: nil)
            }
            unsafe webkit_script_message_reply_return_value(reply.opaque, jsValue)
            unsafe g_object_unref(jsValue)
        case .delivered:
            guard let context, let jsValue = unsafe jsc_value_new_undefined(context.typed()) else { return }
            unsafe webkit_script_message_reply_return_value(reply.opaque, jsValue)
            unsafe g_object_unref(jsValue)
        case .rejected(let error):
            var info: [(String, ScriptValue)] = [
                ("name", .string(error.name)), ("message", .string(error.message)),
                ("code", .string(error.code)), ("retryable", .bool(error.retryable)),
            ]
            if let data = error.data { info.append(("data", data)) }
            let encoded = ScriptValue.object(.init(info, uniquingKeysWith: { _, last in last })).jsonText
            unsafe webkit_script_message_reply_return_error_message(reply.opaque, errorMarker + encoded)
        }
    }
}

/// A page's call awaiting its handler's reply: WebKit's reply and the page's JavaScript context,
/// each held with a reference of its own until the reply is sent.
struct PendingReply {
    let reply: GPointer
    let context: GPointer
    var task: Task<Void, Never>?

    func release() {
        unsafe webkit_script_message_reply_unref(reply.opaque)
        unsafe g_object_unref(context.raw)
    }
}

/// Which handler a message signal belongs to.
final class MessageRoute {
    let target: SignalTarget
    let name: String
    let world: ContentWorld

    init(target: SignalTarget, name: String, world: ContentWorld) {
        self.target = target
        self.name = name
        self.world = world
    }
}
