extension WebPlatformPrelude {
    /// `Event`, `EventTarget`, `AbortController` and `AbortSignal` (DOM Standard), part of
    /// ``source``: listeners with `once`, `capture`, `passive` and `signal`, `handleEvent`
    /// objects, `stopImmediatePropagation` and `preventDefault`; `AbortSignal.abort`,
    /// `AbortSignal.timeout` (a `TimeoutError` after the given milliseconds) and `AbortSignal.any`;
    /// `CustomEvent`, and `reportError`.
    /// A target has no parent here, so an event is only ever at its target. A listener's exception
    /// is reported as an uncaught error and the others still run.
    static let eventsSource = #"""
          const NONE = 0, CAPTURING_PHASE = 1, AT_TARGET = 2, BUBBLING_PHASE = 3;
          let dispatching;
          class Event {
            #type; #bubbles; #cancelable; #composed; #timeStamp; #canceled = false; #stop = false; #stopNow = false;
            #target = null; #current = null; #phase = NONE; #passive = false;
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
            get isTrusted() { return false; }
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
                event.#target = target; event.#current = target; event.#phase = AT_TARGET; event.#stopNow = false;
                for (const listener of listeners) {
                  if (listener.removed) continue;
                  if (event.#stopNow) break;
                  if (listener.once) remove(listener);
                  event.#passive = listener.passive;
                  try {
                    const callback = listener.callback;
                    if (typeof callback === "function") callback.call(target, event);
                    else if (callback !== null && typeof callback.handleEvent === "function") callback.handleEvent(event);
                  } catch (error) { native.report(error); }
                  event.#passive = false;
                }
                event.#current = null; event.#phase = NONE; event.#stop = false; event.#stopNow = false;
                return !event.#canceled;
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
                signal.#reason = reason === undefined ? new DOMException("signal is aborted without reason", "AbortError") : reason;
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
          // HTML's reportError: the error is reported as an uncaught one, and the script goes on.
          function reportError(error) {
            if (arguments.length < 1) throw notEnough("reportError", 1);
            native.report(error);
          }
        """#
}
