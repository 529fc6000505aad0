extension WebPlatformPrelude {
    /// `Event`, `EventTarget`, `AbortController` and `AbortSignal` (DOM Standard), part of
    /// ``source``: listeners with `once`, `capture`, `passive` and `signal`, `handleEvent`
    /// objects, `stopImmediatePropagation` and `preventDefault`; `AbortSignal.abort`,
    /// `AbortSignal.timeout` (a `TimeoutError` after the given milliseconds) and `AbortSignal.any`;
    /// `CustomEvent`, `MessageEvent`, `ErrorEvent`, `PromiseRejectionEvent`, `PageTransitionEvent`,
    /// `BeforeUnloadEvent`,
    /// `MessageChannel` with its `MessagePort`s, and `reportError`.
    /// A target has no parent here: an event is at its target, or on a path the platform gives it
    /// (`hooks.bubble`). A listener's exception
    /// is reported as an uncaught error and the others still run.
    static let eventsSource = #"""
          const NONE = 0, CAPTURING_PHASE = 1, AT_TARGET = 2, BUBBLING_PHASE = 3;
          // Targets told when a listener is added (`cookieStore` watches its jar from its first).
          let dispatching, trusted, bubbling = null;
          const listenHooks = new WeakMap();
          class Event {
            #type; #bubbles; #cancelable; #composed; #timeStamp; #canceled = false; #stop = false; #stopNow = false;
            #target = null; #current = null; #phase = NONE; #passive = false; #trusted = false;
            constructor(type, init = undefined) {
              if (arguments.length < 1) throw notEnough("Event", 1);
              this.#type = String(type);
              this.#bubbles = !!(init && init.bubbles);
              this.#cancelable = !!(init && init.cancelable);
              this.#composed = !!(init && init.composed);
              this.#timeStamp = native.platform("now");
            }
            get type() { return this.#type; }
            get target() { return this.#target; }
            get srcElement() { return this.#target; }
            get currentTarget() { return this.#current; }
            get eventPhase() { return this.#phase; }
            get bubbles() { return this.#bubbles; }
            get cancelable() { return this.#cancelable; }
            get composed() { return this.#composed; }
            get defaultPrevented() { return this.#canceled; }
            get returnValue() { return !this.#canceled; }
            get isTrusted() { return this.#trusted; }
            get timeStamp() { return this.#timeStamp; }
            get cancelBubble() { return this.#stop; }
            set cancelBubble(value) { if (value) this.#stop = true; }
            composedPath() { return this.#current === null ? [] : [this.#current]; }
            preventDefault() { if (this.#cancelable && !this.#passive) this.#canceled = true; }
            stopPropagation() { this.#stop = true; }
            stopImmediatePropagation() { this.#stop = true; this.#stopNow = true; }
            static {
              // Runs `listeners` (a copy, taken as dispatch starts) on `target`.
              dispatching = (event, target, listeners, remove) => {
                if (event.#phase !== NONE) throw new DOMException("The event is already being dispatched.", "InvalidStateError");
                // On its way along a path (`hooks.bubble`), an event's target stays where it started.
                const along = bubbling !== null && bubbling.event === event ? bubbling : null;
                const origin = along !== null ? along.origin : target;
                event.#target = origin; event.#current = target; event.#phase = origin === target || along?.atTarget ? AT_TARGET : BUBBLING_PHASE; event.#stopNow = false;
                for (const listener of listeners) {
                  if (listener.removed) continue;
                  if (event.#stopNow) break;
                  if (listener.once) remove(listener);
                  event.#passive = listener.passive;
                  const previous = hooks.swapEvent(event);
                  hooks.callbacks++;
                  try {
                    const callback = listener.callback;
                    if (typeof callback === "function") callback.call(target, event);
                    else if (callback !== null && typeof callback.handleEvent === "function") callback.handleEvent(event);
                  } catch (error) {
                    if (along !== null) along.threw = true;
                    native.report(error);
                  }
                  hooks.callbacks--;
                  hooks.swapEvent(previous);
                  // What the callback queued runs now, in the platform's dispatch (``DocumentPrelude``'s `hooks.callbacks`).
                  if (hooks.callbacks === 0 && event.#trusted) native.checkpoint();
                  event.#passive = false;
                }
                if (event.#stop && along !== null) along.stopped = true;
                event.#current = null; event.#phase = NONE; event.#stop = false; event.#stopNow = false;
                return !event.#canceled;
              };
              trusted = event => { event.#trusted = true; return event; };
              // The document's own events (``DocumentPrelude``'s `finish`), as the browser makes them.
              hooks.trustedEvent = (type, bubbles) => trusted(new Event(type, { bubbles }));
              // An `Event` dispatched by the window's or the document's own listener list (the
              // document prelude's): at that target for the dispatch, told when a listener
              // stopped it; `null` for the plain records the prelude dispatches itself.
              hooks.at = (event, target) => {
                if (!(event instanceof Event)) return null;
                if (event.#phase !== NONE) throw new DOMException("The event is already being dispatched.", "InvalidStateError");
                const along = bubbling !== null && bubbling.event === event ? bubbling : null;
                const origin = along !== null ? along.origin : target;
                event.#target = origin; event.#current = target; event.#phase = origin === target || along?.atTarget ? AT_TARGET : BUBBLING_PHASE; event.#stopNow = false;
                return {
                  stopped: () => event.#stopNow,
                  done: () => {
                    if (event.#stop && bubbling !== null && bubbling.event === event) bubbling.stopped = true;
                    event.#current = null; event.#phase = NONE; event.#stop = false; event.#stopNow = false;
                  },
                };
              };
              // Dispatches `event` at `path[0]`, then at each of the others as it bubbles (an
              // element's event: its document, then the window; an IndexedDB request's: its
              // transaction, then its connection), until a listener stops it. Tells whether a
              // listener threw (IndexedDB aborts the transaction then).
              //
              // `origin`, when given, is the event's target while it is dispatched at `path`
              // alone, each there at its target (the window's `load` and `pageshow`, whose
              // target is the document).
              hooks.bubble = (event, path, origin = undefined) => {
                const outer = bubbling, along = { event, origin: origin === undefined ? path[0] : origin, atTarget: origin !== undefined, stopped: false, threw: false };
                bubbling = along;
                try {
                  for (const object of path) {
                    object.dispatchEvent(event);
                    if (along.stopped) break;
                  }
                } finally { bubbling = outer; }
                return along;
              };
            }
          }
          for (const [name, value] of [["NONE", NONE], ["CAPTURING_PHASE", CAPTURING_PHASE], ["AT_TARGET", AT_TARGET], ["BUBBLING_PHASE", BUBBLING_PHASE]]) {
            define(Event, name, { value, enumerable: true });
            define(Event.prototype, name, { value, enumerable: true });
          }
          define(Event.prototype, Symbol.toStringTag, { value: "Event", configurable: true });

          const flatten = options => typeof options === "boolean" ? options : !!(options && options.capture);
          class EventTarget {
            #listeners = new Map();
            addEventListener(type, callback, options = undefined) {
              if (arguments.length < 2) throw notEnough("EventTarget.addEventListener", 2);
              if (callback === null || callback === undefined) return;
              const capture = flatten(options);
              const once = !!(options && typeof options === "object" && options.once);
              const passive = !!(options && typeof options === "object" && options.passive);
              const signal = options && typeof options === "object" ? options.signal : undefined;
              if (signal !== undefined && signal !== null && signal.aborted) return;
              const key = String(type);
              if (!this.#listeners.has(key)) this.#listeners.set(key, []);
              const list = this.#listeners.get(key);
              if (list.some(listener => listener.callback === callback && listener.capture === capture)) return;
              const listener = { callback, capture, once, passive, removed: false };
              list.push(listener);
              const heard = listenHooks.get(this);
              if (heard !== undefined) heard(key);
              if (signal !== undefined && signal !== null) signal.addEventListener("abort", () => this.#remove(key, listener));
            }
            removeEventListener(type, callback, options = undefined) {
              if (arguments.length < 2) throw notEnough("EventTarget.removeEventListener", 2);
              const key = String(type), capture = flatten(options), list = this.#listeners.get(key);
              const found = list && list.find(listener => listener.callback === callback && listener.capture === capture);
              if (found) this.#remove(key, found);
            }
            #remove(key, listener) {
              listener.removed = true;
              const list = this.#listeners.get(key);
              if (list) this.#listeners.set(key, list.filter(other => other !== listener));
            }
            dispatchEvent(event) {
              if (!(event instanceof Event)) throw new TypeError("EventTarget.dispatchEvent: the argument is not an Event");
              const key = event.type, listeners = (this.#listeners.get(key) || []).slice();
              return dispatching(event, this, listeners, listener => this.#remove(key, listener));
            }
            // The window and its document are event targets too (their listener lists are the
            // document prelude's own, made before this class).
            static [Symbol.hasInstance](value) {
              if (this === EventTarget && (value === g || (value !== null && value === hooks.document))) return true;
              return Function.prototype[Symbol.hasInstance].call(this, value);
            }
          }
          define(EventTarget.prototype, Symbol.toStringTag, { value: "EventTarget", configurable: true });

          let makeSignal, signalAbort;
          class AbortSignal extends EventTarget {
            #aborted = false; #reason = undefined; #handler = null; #dependents = [];
            constructor() {
              if (!makeSignal.allowed) throw new TypeError("Illegal constructor");
              super();
            }
            get aborted() { return this.#aborted; }
            get reason() { return this.#reason; }
            get onabort() { return this.#handler; }
            set onabort(value) {
              if (this.#handler !== null) this.removeEventListener("abort", this.#handler);
              this.#handler = typeof value === "function" ? value : null;
              if (this.#handler !== null) this.addEventListener("abort", this.#handler);
            }
            throwIfAborted() { if (this.#aborted) throw this.#reason; }
            static abort(reason = undefined) {
              const signal = makeSignal();
              signalAbort(signal, reason);
              return signal;
            }
            static timeout(milliseconds) {
              if (arguments.length < 1) throw notEnough("AbortSignal.timeout", 1);
              const delay = Number(milliseconds);
              if (!Number.isFinite(delay) || delay < 0) throw new TypeError("AbortSignal.timeout: the delay is not a non-negative finite number");
              const signal = makeSignal();
              setTimeout(() => signalAbort(signal, new DOMException("The operation timed out.", "TimeoutError")), delay);
              return signal;
            }
            static any(signals) {
              if (arguments.length < 1) throw notEnough("AbortSignal.any", 1);
              const signal = makeSignal(), sources = [...signals];
              for (const source of sources) {
                if (!(source instanceof AbortSignal)) throw new TypeError("AbortSignal.any: every member must be an AbortSignal");
                if (source.aborted) { signalAbort(signal, source.reason); return signal; }
              }
              for (const source of sources) source.#dependents.push(signal);
              return signal;
            }
            static {
              makeSignal = () => {
                makeSignal.allowed = true;
                try { return new AbortSignal(); } finally { makeSignal.allowed = false; }
              };
              makeSignal.allowed = false;
              signalAbort = (signal, reason) => {
                if (signal.#aborted) return;
                signal.#aborted = true;
                signal.#reason = reason === undefined ? new DOMException("The operation was aborted.", "AbortError") : reason;
                const dependents = signal.#dependents;
                signal.#dependents = [];
                signal.dispatchEvent(new Event("abort"));
                for (const dependent of dependents) signalAbort(dependent, signal.#reason);
              };
            }
          }
          define(AbortSignal.prototype, Symbol.toStringTag, { value: "AbortSignal", configurable: true });

          class AbortController {
            #signal = makeSignal();
            get signal() { return this.#signal; }
            abort(reason = undefined) { signalAbort(this.#signal, reason); }
          }
          define(AbortController.prototype, Symbol.toStringTag, { value: "AbortController", configurable: true });

          class CustomEvent extends Event {
            #detail;
            constructor(type, init = undefined) {
              if (arguments.length < 1) throw notEnough("CustomEvent", 1);
              super(type, init);
              this.#detail = init && init.detail !== undefined ? init.detail : null;
            }
            get detail() { return this.#detail; }
          }
          define(CustomEvent.prototype, Symbol.toStringTag, { value: "CustomEvent", configurable: true });
          // HTML's events of messages, errors and rejections, with their members as WebKit has them.
          class MessageEvent extends Event {
            #data; #origin; #lastEventId; #source; #ports;
            constructor(type, init = undefined) {
              if (arguments.length < 1) throw notEnough("MessageEvent", 1);
              super(type, init);
              this.#data = init && init.data !== undefined ? init.data : null;
              this.#origin = init && init.origin !== undefined ? String(init.origin) : "";
              this.#lastEventId = init && init.lastEventId !== undefined ? String(init.lastEventId) : "";
              this.#source = init && init.source !== undefined ? init.source : null;
              this.#ports = Object.freeze(init && init.ports !== undefined && init.ports !== null ? [...init.ports] : []);
            }
            get data() { return this.#data; }
            get origin() { return this.#origin; }
            get lastEventId() { return this.#lastEventId; }
            get source() { return this.#source; }
            get ports() { return this.#ports; }
          }
          define(MessageEvent.prototype, Symbol.toStringTag, { value: "MessageEvent", configurable: true });
          // A `message` event of this window's (its `postMessage`), as the browser makes it.
          hooks.pageTransition = (type, persisted) => trusted(new PageTransitionEvent(type, { persisted, bubbles: true, cancelable: true }));
          hooks.message = (data, origin, source, type = "message", ports = []) => trusted(new MessageEvent(type, { data, origin, source, ports }));

          // CSP's event of a refused use (``ContentSecurityPolicy``), with its members as WebKit has them.
          class SecurityPolicyViolationEvent extends Event {
            #members;
            constructor(type, init = undefined) {
              if (arguments.length < 1) throw notEnough("SecurityPolicyViolationEvent", 1);
              super(type, init);
              const text = name => init && init[name] !== undefined ? String(init[name]) : "";
              const number = name => init && init[name] !== undefined ? Number(init[name]) >>> 0 : 0;
              this.#members = {
                documentURI: text("documentURI"), referrer: text("referrer"), blockedURI: text("blockedURI"),
                violatedDirective: text("violatedDirective"), effectiveDirective: text("effectiveDirective"),
                originalPolicy: text("originalPolicy"), sourceFile: text("sourceFile"), sample: text("sample"),
                disposition: init && init.disposition === "report" ? "report" : "enforce", statusCode: number("statusCode"),
                lineNumber: number("lineNumber"), columnNumber: number("columnNumber"),
              };
            }
            get documentURI() { return this.#members.documentURI; }
            get referrer() { return this.#members.referrer; }
            get blockedURI() { return this.#members.blockedURI; }
            get violatedDirective() { return this.#members.violatedDirective; }
            get effectiveDirective() { return this.#members.effectiveDirective; }
            get originalPolicy() { return this.#members.originalPolicy; }
            get sourceFile() { return this.#members.sourceFile; }
            get sample() { return this.#members.sample; }
            get disposition() { return this.#members.disposition; }
            get statusCode() { return this.#members.statusCode; }
            get lineNumber() { return this.#members.lineNumber; }
            get columnNumber() { return this.#members.columnNumber; }
          }
          define(SecurityPolicyViolationEvent.prototype, Symbol.toStringTag, { value: "SecurityPolicyViolationEvent", configurable: true });
          hooks.violation = init => trusted(new SecurityPolicyViolationEvent("securitypolicyviolation", { ...init, bubbles: true, composed: true }));

          class PageTransitionEvent extends Event {
            #persisted;
            constructor(type, init = undefined) {
              if (arguments.length < 1) throw notEnough("PageTransitionEvent", 1);
              super(type, init);
              this.#persisted = !!(init && init.persisted);
            }
            get persisted() { return this.#persisted; }
          }
          define(PageTransitionEvent.prototype, Symbol.toStringTag, { value: "PageTransitionEvent", configurable: true });

          // `beforeunload`'s event, which only the browser makes (``DocumentPrelude``'s `leave`):
          // its `returnValue` is the text a listener set (a handler's return value), `""` else.
          let makingBeforeUnload = false;
          class BeforeUnloadEvent extends Event {
            #returnValue = "";
            constructor() {
              if (!makingBeforeUnload) throw new TypeError("Illegal constructor");
              super("beforeunload", { cancelable: true });
            }
            get returnValue() { return this.#returnValue; }
            set returnValue(value) { this.#returnValue = String(value); }
          }
          define(BeforeUnloadEvent.prototype, Symbol.toStringTag, { value: "BeforeUnloadEvent", configurable: true });
          hooks.beforeUnload = () => {
            makingBeforeUnload = true;
            try { return trusted(new BeforeUnloadEvent()); } finally { makingBeforeUnload = false; }
          };

          class ErrorEvent extends Event {
            #message; #filename; #lineno; #colno; #error;
            constructor(type, init = undefined) {
              if (arguments.length < 1) throw notEnough("ErrorEvent", 1);
              super(type, init);
              this.#message = init && init.message !== undefined ? String(init.message) : "";
              this.#filename = init && init.filename !== undefined ? String(init.filename) : "";
              this.#lineno = init && init.lineno !== undefined ? Number(init.lineno) >>> 0 : 0;
              this.#colno = init && init.colno !== undefined ? Number(init.colno) >>> 0 : 0;
              this.#error = init ? init.error : undefined;
            }
            get message() { return this.#message; }
            get filename() { return this.#filename; }
            get lineno() { return this.#lineno; }
            get colno() { return this.#colno; }
            get error() { return this.#error; }
          }
          define(ErrorEvent.prototype, Symbol.toStringTag, { value: "ErrorEvent", configurable: true });

          class PromiseRejectionEvent extends Event {
            #promise; #reason;
            constructor(type, init) {
              if (arguments.length < 2) throw notEnough("PromiseRejectionEvent", 2);
              if (init === null || typeof init !== "object" || init.promise === null || typeof init.promise !== "object") {
                throw new TypeError("Member PromiseRejectionEventInit.promise is required and must be an instance of Promise");
              }
              super(type, init);
              this.#promise = init.promise;
              this.#reason = init.reason;
            }
            get promise() { return this.#promise; }
            get reason() { return this.#reason; }
          }
          define(PromiseRejectionEvent.prototype, Symbol.toStringTag, { value: "PromiseRejectionEvent", configurable: true });
          // What no script caught (``DocumentPrelude``'s `uncaught`), as WebKit makes it (its
          // `unhandledrejection` event is not trusted).
          hooks.errorEvent = init => trusted(new ErrorEvent("error", { ...init, cancelable: true }));
          hooks.rejectionEvent = (reason, promise) => new PromiseRejectionEvent("unhandledrejection", { promise, reason, cancelable: true });

          // An event handler attribute of a target of these: the listener it set is replaced.
          const replaceHandler = (target, handlers, type, value) => {
            if (handlers[type] !== null) target.removeEventListener(type, handlers[type]);
            handlers[type] = typeof value === "function" ? value : null;
            if (handlers[type] !== null) target.addEventListener(type, handlers[type]);
          };

          // A channel's two entangled ports (HTML): a message is cloned when posted and
          // delivered in a task of its own once the other port has started (`start()`, or
          // setting `onmessage`); a closed port sends and receives nothing. A transfer list
          // moves its buffers and ports. A port transferred to another context (a worker, or
          // from one) is entangled with its partner natively (``MessagePortPipes``): the two
          // sides exchange the text of their messages' wire form.
          let makePort, receivePort;
          // The ports of this context whose partner is in another, by "pipe,side".
          const remotePorts = new Map();
          class MessagePort extends EventTarget {
            #other = null; #remote = null; #detached = false; #started = false; #closed = false; #queue = []; #handlers = { message: null, messageerror: null };
            constructor() {
              if (!makePort.allowed) throw new TypeError("Illegal constructor");
              super();
            }
            postMessage(message, transfer = undefined) {
              if (arguments.length < 1) throw notEnough("MessagePort.postMessage", 1);
              if (this.#remote !== null) {
                const [wire, ends] = hooks.sendable(message, transfer);
                if (!this.#closed) native.portPost(this.#remote[0], this.#remote[1], wire, ends);
                return;
              }
              const { data, ports } = cloneWithTransfer(message, hooks.transferred(transfer), true), other = this.#other;
              if (this.#closed || other === null) return;
              other.#queue.push({ data, ports, failed: false });
              if (other.#started) other.#deliverLater();
            }
            start() {
              if (this.#started || this.#closed) return;
              this.#started = true;
              for (let index = 0; index < this.#queue.length; index++) this.#deliverLater();
            }
            close() {
              this.#closed = true;
              this.#queue = [];
              const other = this.#other;
              this.#other = null;
              if (other !== null) other.#other = null;
              if (this.#remote !== null) {
                remotePorts.delete(this.#remote.join());
                native.portClose(this.#remote[0], this.#remote[1]);
              }
            }
            #deliverLater() {
              // A task of the platform's own (its listeners each end with a microtask checkpoint).
              hooks.schedule(() => {
                if (this.#closed || this.#queue.length === 0) return;
                const { data, ports, failed } = this.#queue.shift();
                this.dispatchEvent(trusted(new MessageEvent(failed ? "messageerror" : "message", { data, ports })));
              }, 0);
            }
            get onmessage() { return this.#handlers.message; }
            set onmessage(value) { replaceHandler(this, this.#handlers, "message", value); this.start(); }
            get onmessageerror() { return this.#handlers.messageerror; }
            set onmessageerror(value) { replaceHandler(this, this.#handlers, "messageerror", value); }
            static {
              makePort = () => {
                makePort.allowed = true;
                try { return new MessagePort(); } finally { makePort.allowed = false; }
              };
              makePort.allowed = false;
              makePort.entangle = (one, two) => { one.#other = two; two.#other = one; };
              makePort.detached = port => port.#detached;
              // `port` transferred within this context: `into` (a new port) takes its partner,
              // near or in another context, and the messages waiting for it; `port` is detached.
              makePort.move = (port, into) => {
                into.#other = port.#other;
                if (into.#other !== null) into.#other.#other = into;
                into.#remote = port.#remote;
                if (into.#remote !== null) remotePorts.set(into.#remote.join(), into);
                into.#queue = port.#queue;
                into.#closed = port.#closed;
                port.#detached = true; port.#closed = true; port.#other = null; port.#remote = null; port.#queue = [];
                return into;
              };
              const bind = port => {
                remotePorts.set(port.#remote.join(), port);
                native.portBind(receivePort, port.#remote[0], port.#remote[1]);
              };
              // A port leaving this context: its end (`[pipe, side]`). A port whose partner is
              // here gets a pipe, its partner the other end; what was sent to it and not yet
              // delivered goes along.
              makePort.export = port => {
                let end;
                if (port.#remote !== null) {
                  end = port.#remote;
                  remotePorts.delete(end.join());
                  native.portUnbind(end[0], end[1]);
                } else {
                  end = [native.portPipe(), 1];
                  const other = port.#other;
                  if (other !== null) {
                    other.#other = null;
                    other.#remote = [end[0], 0];
                    bind(other);
                    for (const item of port.#queue) {
                      try { native.portPost(end[0], 0, wireText(item.data), []); } catch {}
                    }
                  }
                }
                port.#detached = true; port.#closed = true; port.#other = null; port.#remote = null; port.#queue = [];
                return end;
              };
              // A port that came to this context with a message, holding `end`.
              makePort.adopt = (pipe, side) => {
                const port = makePort();
                port.#remote = [pipe, side];
                bind(port);
                return port;
              };
              receivePort = (pipe, side, wire, ends) => {
                const port = remotePorts.get(pipe + "," + side);
                if (port === undefined || port.#closed) return;
                port.#queue.push(hooks.received(wire, ends));
                if (port.#started) port.#deliverLater();
              };
            }
          }
          // A message leaving for another context: the text of its structured clone's wire
          // form (its transfer list's buffers moved, its ports leaving), and the ends of its
          // ports, pipe and side after one another.
          hooks.sendable = (message, transfer) => {
            const { data, ports } = cloneWithTransfer(message, hooks.transferred(transfer), false);
            const wire = wireText(data, ports);
            return [wire, ports.flatMap(port => makePort.export(port))];
          };
          // A message for this context: its structured clone and the ports its transfer list
          // moves (a window's `postMessage` to itself).
          hooks.cloned = (message, transfer) => {
            const { data, ports } = cloneWithTransfer(message, hooks.transferred(transfer), true);
            return [data, ports];
          };
          // A port of this context holding a pipe's end (a shared worker's, and its `connect`'s).
          hooks.adoptPort = (pipe, side) => makePort.adopt(pipe, side);
          // A message that came from another context: its data (a `messageerror` when it cannot
          // be made here) and its ports.
          hooks.received = (wire, ends) => {
            const ports = [];
            for (let index = 0; index + 1 < ends.length; index += 2) ports.push(makePort.adopt(ends[index], ends[index + 1]));
            try { return { data: fromWireText(wire, ports), ports, failed: false }; } catch { return { data: null, ports, failed: true }; }
          };
          define(MessagePort.prototype, Symbol.toStringTag, { value: "MessagePort", configurable: true });
          class MessageChannel {
            #port1 = makePort(); #port2 = makePort();
            constructor() { makePort.entangle(this.#port1, this.#port2); }
            get port1() { return this.#port1; }
            get port2() { return this.#port2; }
          }
          define(MessageChannel.prototype, Symbol.toStringTag, { value: "MessageChannel", configurable: true });

          // HTML's broadcast channels: a message goes, cloned, to every other open channel of its
          // name in this document (each in a task of its own) and, through native code, in the
          // other documents of this origin sharing the page's data store.
          const broadcastChannels = new Map();
          let broadcastDeliver, broadcastListening = false;
          // Another document's message comes in its wire form: a message that cannot be made
          // again here (a key no longer kept) is a `messageerror` at each channel.
          const receiveBroadcast = (name, text, origin) => {
            let data, failed = false;
            try { data = fromWireText(String(text)); } catch { failed = true; }
            for (const channel of broadcastChannels.get(String(name)) || []) broadcastDeliver(channel, failed ? null : structuredClone(data), origin, false, failed);
          };
          class BroadcastChannel extends EventTarget {
            #name; #closed = false; #handlers = { message: null, messageerror: null };
            constructor(name) {
              if (arguments.length < 1) throw notEnough("BroadcastChannel", 1);
              super();
              this.#name = String(name);
              if (!broadcastChannels.has(this.#name)) broadcastChannels.set(this.#name, new Set());
              broadcastChannels.get(this.#name).add(this);
              if (!broadcastListening) {
                broadcastListening = true;
                native.broadcastListen(receiveBroadcast);
              }
            }
            get name() { return this.#name; }
            postMessage(message) {
              if (arguments.length < 1) throw notEnough("BroadcastChannel.postMessage", 1);
              if (this.#closed) throw new DOMException("The BroadcastChannel is closed.", "InvalidStateError");
              const data = structuredClone(message), origin = hooks.origin();
              native.broadcastPost(this.#name, wireText(data));
              for (const channel of broadcastChannels.get(this.#name)) {
                if (channel !== this) broadcastDeliver(channel, structuredClone(data), origin, true);
              }
            }
            close() {
              this.#closed = true;
              const channels = broadcastChannels.get(this.#name);
              if (channels) channels.delete(this);
            }
            get onmessage() { return this.#handlers.message; }
            set onmessage(value) { replaceHandler(this, this.#handlers, "message", value); }
            get onmessageerror() { return this.#handlers.messageerror; }
            set onmessageerror(value) { replaceHandler(this, this.#handlers, "messageerror", value); }
            static {
              broadcastDeliver = (channel, data, origin, later, failed = false) => {
                const deliver = () => {
                  if (!channel.#closed) channel.dispatchEvent(trusted(new MessageEvent(failed ? "messageerror" : "message", { data, origin })));
                };
                if (later) setTimeout(deliver, 0); else deliver();
              };
            }
          }
          define(BroadcastChannel.prototype, Symbol.toStringTag, { value: "BroadcastChannel", configurable: true });

          // HTML's reportError: the error is reported as an uncaught one, and the script goes on.
          function reportError(error) {
            if (arguments.length < 1) throw notEnough("reportError", 1);
            native.report(error);
          }
        """#
}
