import SessionBridgeScriptEngine

/// The page APIs scripts expect, in JavaScript over a few native functions: `window` (with
/// `postMessage` to itself), `document` (with `cookie`, not shown), `location`, `navigator`
/// (with `sendBeacon`), `fetch` with `Headers`, `Request` and `Response`,
/// `alert`/`confirm`/`prompt`, `window.open`, the load events, and those of a document being
/// left; and, made when a script first reads one, the global scope's members of
/// ``WebPlatformPrelude``.
///
/// It runs first in every world of every document; the native functions stay in its closure
/// and are never reachable from page scripts. Given a worker's name, it makes a dedicated or
/// a shared worker's global scope instead (``PageWorker``): `self`, `location` as a
/// `WorkerLocation`, a `WorkerNavigator`, `close` and `importScripts` (and a dedicated
/// worker's `postMessage`, a shared worker's `connect` events), `fetch` and the members HTML
/// exposes to workers, and no window, document or panels.
enum DocumentPrelude {
    /// ``source``, kept parsed by each engine thread that evaluates it.
    static let script = ScriptSource(source, sourceURL: "sessionbridge://prelude/document.js")

    static let source = #"""
        (function (native, loc, userAgent, platform, cores, workerName, sharedWorker, language) {
          "use strict";
          // A worker's global scope (`workerName` its name; a shared worker's with
          // `sharedWorker`) has no window, document or panels, its own `close` and
          // `importScripts` (and a dedicated worker's `postMessage`), and the members HTML
          // exposes to workers (``PageWorker``).
          const worker = workerName !== null, shared = worker && sharedWorker === true;
          const g = globalThis, define = Object.defineProperty, freeze = Object.freeze;
          const then = Promise.prototype.then, PromiseCtor = Promise, ProxyCtor = Proxy, reflectApply = Reflect.apply, reflectConstruct = Reflect.construct,
            functionPrototype = Function.prototype;
          // The location record is filled when first read, once its document is committed
          // (most documents' scripts never read it, and filling it at commit took 30-40 us of
          // every navigation), and again when `history` or a fragment changed the URL.
          let located = -1;
          const at = key => {
            const version = native.locate(loc, located);
            if (typeof version === "number") located = version;
            return loc[key];
          };
          if (worker) define(g, "self", { value: g, writable: true, enumerable: true, configurable: true });
          else for (const name of ["window", "self", "top", "parent", "frames"]) define(g, name, { value: g, enumerable: true });

          // Listeners of the events a document gets as it is left (``DocumentEnvironment/leave``),
          // which native code then asks it to fire; a document without any is left at no cost.
          const leaveTypes = new Set(["beforeunload", "pagehide", "unload", "visibilitychange"]), listenerLists = new Map(), capturers = new Map();
          // From `pagehide` on, the document starts no navigation and opens no window (nor
          // while `beforeunload` is dispatched: native code refuses them then).
          let leaving = false;
          const hasListeners = (object, type) => (listenerLists.get(object).get(type) || []).length > 0 || typeof object["on" + type] === "function";
          // A target's listeners as the DOM Standard keeps them: one per callback and capture
          // flag, with `once` and `signal`; an `Event` made by the page is dispatched at the
          // target (`hooks.at`), a plain record made here carries its own target.
          //
          // An event handler set before any listener (`handlerFirst(type)`: a handler attribute
          // the element was parsed with) runs first, as handlers run in the order they were set.
          function eventTarget(object, handlerFirst = () => false) {
            const listeners = new Map();
            // The types whose list holds the window's handler in its place (see addEventListener).
            const handlerPlaced = new Set();
            listenerLists.set(object, listeners);
            // Calls the listeners of `event.type` (only those added for capture with
            // `captureOnly`), `at` the dispatch's hold of a page-made `Event`.
            const invoke = (event, captureOnly, at) => {
              for (const entry of (listeners.get(event.type) || []).slice()) {
                if (entry.removed || (captureOnly && !entry.capture)) continue;
                // The window's handler where it was set among the listeners (`handlerPlaced`).
                if (entry.handler) { callHandler(event, at); if (at !== null && at.stopped()) break; continue; }
                if (entry.once) remove(event.type, entry);
                const listener = entry.listener, previous = swapEvent(event);
                hooks.callbacks++;
                try {
                  if (typeof listener === "function") listener.call(object, event);
                  else if (typeof listener.handleEvent === "function") listener.handleEvent(event);
                } catch (error) { native.report(error); }
                hooks.callbacks--;
                swapEvent(previous);
                if (hooks.callbacks === 0 && event.isTrusted === true) native.checkpoint();
                if (at !== null && at.stopped()) break;
              }
            };
            const callHandler = (event, at) => {
              const handler = object["on" + event.type];
              if (typeof handler !== "function" || (at !== null && at.stopped())) return;
              const previous = swapEvent(event);
              hooks.callbacks++;
              try {
                // The window's `onerror` gets (message, source, line, column, error), and cancels with `true`.
                if (object === g && event.type === "error" && "error" in event) {
                  if (handler.call(object, event.message, event.filename, event.lineno, event.colno, event.error) === true) event.preventDefault();
                } else if (object === g && event.type === "beforeunload") {
                  // A value returned asks to stay, as HTML has it (the text, if none was set).
                  const returned = handler.call(object, event);
                  if (returned !== undefined && returned !== null) {
                    event.preventDefault();
                    if (event.returnValue === "") event.returnValue = returned;
                  }
                } else handler.call(object, event);
              } catch (error) { native.report(error); }
              hooks.callbacks--;
              swapEvent(previous);
              if (hooks.callbacks === 0 && event.isTrusted === true) native.checkpoint();
            };
            capturers.set(object, event => invoke(event, true, null));
            const remove = (type, entry) => {
              entry.removed = true;
              const list = listeners.get(type);
              if (list) listeners.set(type, list.filter(other => other !== entry));
            };
            define(object, "addEventListener", { value: function addEventListener(type, listener, options = undefined) {
              if (typeof listener !== "function" && !(listener && typeof listener === "object")) return;
              const key = String(type), capture = typeof options === "boolean" ? options : !!(options && options.capture);
              const once = !!(options && typeof options === "object" && options.once);
              const signal = options && typeof options === "object" ? options.signal : undefined;
              if (signal !== undefined && signal !== null && signal.aborted) return;
              if (!listeners.has(key)) listeners.set(key, []);
              const list = listeners.get(key);
              if (list.some(entry => entry.listener === listener && entry.capture === capture)) return;
              // A window handler set before this listener runs before it, as handlers run where
              // they were set among the listeners (`onerror` between two `error` listeners): its
              // place is kept from the first listener added after it.
              if (object === g && !handlerPlaced.has(key) && typeof object["on" + key] === "function") {
                handlerPlaced.add(key);
                list.push({ handler: true, listener: null, capture: false, once: false, removed: false });
              }
              const entry = { listener, capture, once, removed: false };
              list.push(entry);
              if (leaveTypes.has(key)) native.listensForLeave();
              if (capture && (key === "load" || key === "error") && (object === g || object === hooks.document)) native.listensForScriptEvents();
              if (signal !== undefined && signal !== null && typeof signal.addEventListener === "function") {
                signal.addEventListener("abort", () => remove(key, entry));
              }
            }, writable: true, configurable: true });
            define(object, "removeEventListener", { value: function removeEventListener(type, listener, options = undefined) {
              const key = String(type), capture = typeof options === "boolean" ? options : !!(options && options.capture);
              const list = listeners.get(key), found = list && list.find(entry => !entry.handler && entry.listener === listener && entry.capture === capture);
              if (found) remove(key, found);
            }, writable: true, configurable: true });
            define(object, "dispatchEvent", { value: function dispatchEvent(event) {
              const dispatched = hooks.at !== null ? hooks.at(event, object) : null;
              const placed = handlerPlaced.has(event.type);
              const first = !placed && handlerFirst(event.type);
              if (first) callHandler(event, dispatched);
              invoke(event, false, dispatched);
              if (!first && !placed) callHandler(event, dispatched);
              if (dispatched !== null) dispatched.done();
              return !event.defaultPrevented;
            }, writable: true, configurable: true });
            return object;
          }
          // `window.event`: the event being dispatched while a listener runs (read by old
          // inline handlers), `undefined` otherwise; a page may replace it.
          let currentEvent;
          const swapEvent = event => { const previous = currentEvent; currentEvent = event; return previous; };
          if (!worker) define(g, "event", { get: () => currentEvent, set: value => define(g, "event", { value, writable: true, enumerable: true, configurable: true }),
            enumerable: true, configurable: true });
          eventTarget(g);
          const dispatchAtWindow = g.dispatchEvent;
          // An exception no script caught, or a promise rejected with no handler, as the window's
          // `error` (an `ErrorEvent`) or `unhandledrejection` event (a `PromiseRejectionEvent`),
          // trusted and cancelable as WebKit fires them (the engine then reports it, cancelled
          // or not).
          const uncaught = (value, rejection, promise) => {
            let event;
            if (rejection) {
              platformMade();
              event = hooks.rejectionEvent(value, promise);
            } else {
              // WebKit's message: an error's name and message, another value as its text.
              let message = "";
              try { message = value instanceof Error ? value.name + ": " + value.message : String(value); } catch {}
              let filename = value && typeof value === "object" && typeof value.sourceURL === "string" ? value.sourceURL : "";
              let lineno = value && typeof value === "object" && typeof value.line === "number" ? value.line : 0;
              let colno = value && typeof value === "object" && typeof value.column === "number" ? value.column : 0;
              let error = value;
              // Thrown by another origin's script fetched without CORS: muted, as WebKit mutes it.
              if (filename !== "" && native.muted(filename)) {
                message = "Script error."; filename = ""; lineno = 0; colno = 0; error = null;
              }
              platformMade();
              event = hooks.errorEvent({ message, filename, lineno, colno, error });
            }
            dispatchAtWindow.call(g, event);
            const canceled = event.defaultPrevented;
            // A worker's error no listener of its own cancelled goes on to its `Worker` object.
            if (worker && !shared && !rejection && !canceled) native.workerError(event.message, event.filename, event.lineno, event.colno);
            return canceled;
          };

          // A navigation to a fragment of this document changes its URL and fires `popstate`
          // at once and `hashchange` in a later task, as WebKit does (and tells `history`, once
          // made, through `hooks`); others replace the document.
          const hooks = { fragment: null, popstate: null, dataURL: null, body: null, makeBlob: null, at: null, message: null, document: null, origin: () => at("origin"), href: () => at("href"), base: () => native.platform("base"),
            makeStream: null, isStream: null, streamUsable: null, readStream: null, blobURL: null, swapEvent, storageEvent: null, navigator: null, location: null, writable: null,
            times: { interactive: 0, contentLoaded: 0, complete: 0, loaded: 0 },
            // How many event callbacks (listeners, handlers) are running: as the last returns
            // in an entry of the platform's own (a document's stage, an event it fires, a task
            // of `schedule`), the microtasks it queued run (`native.checkpoint`), as HTML runs
            // them after each callback that leaves no script on the stack. (A callback the
            // time limit ended leaves it counted: its document's callbacks then share their
            // entry's checkpoint, as before.)
            callbacks: 0 }, schedule = g.setTimeout;
          // A task of the platform's own, whatever the page did to `setTimeout`.
          hooks.schedule = (callback, delay) => schedule.call(g, () => { native.platformTask(); callback(); }, delay);
          const navigateTo = (kind, url) => {
            // A document being left starts no navigation, as in browsers.
            if (leaving) return;
            // Before the `load` event's listeners have all run, a script's navigation takes the
            // current entry's place (no user gesture can start one here), as in WebKit and HTML.
            if (kind === "assign" && hooks.times.loaded === 0) kind = "replace";
            const old = native.navigate(kind, url);
            if (typeof old !== "string") return;
            const now = at("href");
            if (now === old) return;
            if (hooks.fragment !== null) hooks.fragment(kind);
            g.dispatchEvent(hooks.popstate !== null ? hooks.popstate(null) : { type: "popstate", state: null, target: g });
            hooks.schedule(() => g.dispatchEvent({ type: "hashchange", oldURL: old, newURL: now, target: g }), 0);
          };
          const location = {};
          for (const key of ["origin", "protocol", "host", "hostname", "port", "pathname", "search"]) {
            define(location, key, { get: () => at(key), enumerable: true });
          }
          // A worker's location (`WorkerLocation`) only tells its script's URL.
          if (worker) {
            for (const key of ["hash", "href"]) define(location, key, { get: () => at(key), enumerable: true });
            define(location, Symbol.toStringTag, { value: "WorkerLocation", configurable: true });
          } else {
            define(location, "hash", { get: () => at("hash"), set: v => navigateTo("assign", "#" + String(v).replace(/^#/, "")), enumerable: true });
            define(location, "href", { get: () => at("href"), set: v => navigateTo("assign", String(v)), enumerable: true });
            define(location, "assign", { value: url => navigateTo("assign", String(url)) });
            define(location, "replace", { value: url => navigateTo("replace", String(url)) });
            define(location, "reload", { value: () => { if (!leaving) native.navigate("reload", at("href")); } });
            // A top-level document's: no ancestors (a `DOMStringList`, the one IndexedDB's names
            // are, made on the first read), as libraries read it to tell whether they are framed.
            let ancestorOrigins;
            define(location, "ancestorOrigins", { get: () => ancestorOrigins ??= platformMade().indexedDBMembers().makeStringList([]), enumerable: true });
          }
          define(location, "toString", { value: () => at("href") });
          freeze(location);
          if (worker) define(g, "location", { get: () => location, enumerable: true, configurable: true });
          else define(g, "location", { get: () => location, set: v => navigateTo("assign", String(v)), enumerable: true });
          // The document's origin (HTML's `self.origin`); a page may replace it.
          define(g, "origin", { get: () => at("origin"), set(v) { define(g, "origin", { value: v, writable: true, enumerable: true, configurable: true }); }, enumerable: true, configurable: true });

          let readyState = "loading", evalRefused = false;
          const document = eventTarget({});
          define(document, "cookie", { get: () => native.cookieGet(), set: v => native.cookieSet(String(v)), enumerable: true });
          // Read when asked, as WebKit's accessors are: the prelude runs before the document's
          // URL is known, and `loc` is filled when first read after it is.
          define(document, "URL", { get: () => at("href"), enumerable: true });
          define(document, "documentURI", { get: () => at("href"), enumerable: true });
          define(document, "domain", { get: () => at("hostname"), enumerable: true });
          define(document, "referrer", { get: () => native.platform("referrer"), enumerable: true });
          define(document, "baseURI", { get: () => native.platform("base"), enumerable: true });
          define(document, "readyState", { get: () => readyState, enumerable: true });
          define(document, "location", { get: () => location, set: v => navigateTo("assign", String(v)) });
          let title;
          define(document, "title", { get: () => title === undefined ? at("title") : title, set: v => { title = String(v); }, enumerable: true });
          // What a WebKit view that is not shown answers: hidden, without focus, an HTML document
          // (its elements are not there: no DOM) in the encoding its bytes were read in.
          for (const [key, value] of [["visibilityState", "hidden"], ["hidden", true], ["contentType", "text/html"], ["designMode", "off"],
            ["defaultView", g], ["nodeName", "#document"], ["nodeType", 9]]) {
            define(document, key, { value, enumerable: true });
          }
          for (const key of ["characterSet", "charset", "inputEncoding"]) define(document, key, { get: () => native.platform("charset"), enumerable: true });
          // A `<script>` element, as much of one as a page reads without a DOM (its `src`, its
          // attributes, its `dataset`, its `load` and `error` events and their handler
          // attributes, compiled when first read, as in browsers): one object per element.
          const scriptElements = new Map();
          const scriptElement = (index, src, attributes, line) => {
            if (scriptElements.has(index)) return scriptElements.get(index);
            native.listensForScriptEvents();
            const dataset = {};
            for (const name of Object.keys(attributes)) {
              if (name.startsWith("data-")) dataset[name.slice(5).replace(/-([a-z])/g, (_, letter) => letter.toUpperCase())] = attributes[name];
            }
            const element = {
              tagName: "SCRIPT", nodeName: "SCRIPT", nodeType: 1, src, type: attributes.type || "", async: "async" in attributes, defer: "defer" in attributes,
              crossOrigin: attributes.crossorigin === undefined ? null : attributes.crossorigin, nonce: attributes.nonce || "", id: attributes.id || "", dataset: freeze(dataset), ownerDocument: document,
              title: attributes.title || "", lang: attributes.lang || "", dir: attributes.dir || "", className: attributes.class || "", hidden: "hidden" in attributes,
              getAttribute(name) {
                const key = String(name).toLowerCase(), value = attributes[key];
                // A nonce is hidden when the document's policy came from its fields (HTML), its `nonce` member kept.
                return value === undefined ? null : key === "nonce" && native.platform("nonceHidden") ? "" : value;
              },
              hasAttribute(name) { return String(name).toLowerCase() in attributes; },
            };
            define(element, Symbol.toStringTag, { value: "HTMLScriptElement", configurable: true });
            for (const type of ["load", "error"]) {
              let handler, compiled = false;
              define(element, "on" + type, { get: () => {
                const source = attributes["on" + type];
                if (!compiled && source !== undefined) {
                  compiled = true;
                  // Made natively as HTML makes an event handler (its names resolve on the element,
                  // then the document, then the global scope), unless the document's Content
                  // Security Policy refuses it (`null`); what does not parse is a `SyntaxError`.
                  const made = native.handler(index, src, attributes, line, type, source);
                  if (typeof made === "function") handler = made(element, document);
                  else if (made === null) handler = null;
                  else {
                    // Reported where the attribute is, as browsers report it.
                    try { define(made, "sourceURL", { value: at("href"), configurable: true }); define(made, "line", { value: line, configurable: true }); } catch {}
                    native.report(made);
                    handler = null;
                  }
                }
                return handler === undefined ? null : handler;
              }, set: value => { compiled = true; handler = typeof value === "function" ? value : null; }, enumerable: true });
            }
            eventTarget(element, type => attributes["on" + type] !== undefined);
            scriptElements.set(index, freeze(element));
            return element;
          };
          // The `<script>` element running now; `null` outside one, as in a callback.
          define(document, "currentScript", { get: () => {
            const running = native.currentScript();
            return running === null ? null : scriptElement(running[0], running[1], running[2], running[3]);
          }, enumerable: true });
          define(document, "hasFocus", { value: function hasFocus() { return false; }, writable: true, configurable: true });
          // The Storage Access API: a top-level document has its storage (as WebKit answers one).
          define(document, "hasStorageAccess", { value: function hasStorageAccess() { return Promise.resolve(true); }, writable: true, configurable: true });
          define(document, "requestStorageAccess", { value: function requestStorageAccess() { return Promise.resolve(); }, writable: true, configurable: true });
          define(document, "onreadystatechange", { value: null, writable: true, enumerable: true, configurable: true });
          define(document, Symbol.toStringTag, { value: "HTMLDocument", configurable: true });
          if (!worker) define(g, "document", { value: document, enumerable: true });
          hooks.document = document;
          // The window's name and geometry, as a WebKit view that is not shown has them (a 0 × 0
          // viewport, ``WebPlatformPrelude/mediaSource``): plain values a page may replace, so that
          // reading one makes nothing.
          for (const [key, value] of worker ? [["name", workerName], ["crossOriginIsolated", false]] : [["name", ""], ["innerWidth", 0], ["innerHeight", 0], ["outerWidth", 0], ["outerHeight", 0],
            ["devicePixelRatio", 1], ["screenX", 0], ["screenY", 0], ["screenLeft", 0], ["screenTop", 0], ["scrollX", 0], ["scrollY", 0],
            ["pageXOffset", 0], ["pageYOffset", 0], ["closed", false], ["length", 0], ["frameElement", null], ["status", ""], ["crossOriginIsolated", false]]) {
            define(g, key, { value, writable: true, enumerable: true, configurable: true });
          }
          // The window's event handler attributes, `null` until a script sets one (pages test
          // `"onpagehide" in window`); the dispatch above calls the one an event's type names.
          for (const type of shared ? ["error", "unhandledrejection", "rejectionhandled", "connect", "online", "offline"]
            : worker ? ["error", "unhandledrejection", "rejectionhandled", "message", "messageerror", "online", "offline"]
            : ["load", "error", "unhandledrejection", "rejectionhandled", "message", "messageerror", "hashchange", "popstate",
            "storage", "pageshow", "pagehide", "beforeunload", "unload", "focus", "blur", "resize", "scroll", "online", "offline", "languagechange"]) {
            define(g, "on" + type, { value: null, writable: true, enumerable: true, configurable: true });
          }
          // The handlers of the events of leaving tell native code they are there when set.
          const leaveHandler = (object, type) => {
            let handler = null;
            define(object, "on" + type, { get: () => handler, set: value => {
              handler = typeof value === "function" || (value !== null && typeof value === "object") ? value : null;
              if (handler !== null) native.listensForLeave();
            }, enumerable: true, configurable: true });
          };
          if (!worker) { leaveHandler(g, "beforeunload"); leaveHandler(g, "pagehide"); leaveHandler(g, "unload"); leaveHandler(document, "visibilitychange"); }
          // `window.opener`: the window that opened this one with `window.open` (a proxy that posts
          // to it), or `null`; a page may replace it (`opener = null`).
          let openerProxy;
          // Another window's `postMessage(message, targetOrigin, transfer)` as the native side
          // takes it: the message's structured clone in its wire form (a `DataCloneError` for
          // what may not be cloned), the target origin ("/" being this document's), the message
          // as JSON when the window is another engine's (`foreign`), and the pipe ends of the
          // ports it transfers.
          const postedToWindow = (message, targetOrigin, transfer, foreign) => {
            const options = targetOrigin !== null && typeof targetOrigin === "object" ? targetOrigin : { targetOrigin, transfer };
            const origin = options.targetOrigin === undefined ? "/" : String(options.targetOrigin);
            platformMade();
            const [wire, ends] = hooks.sendable(message, options);
            let json;
            if (foreign) try { json = JSON.stringify(message === undefined ? null : message); } catch {}
            return [wire, origin === "/" ? at("origin") : origin, json === undefined ? "null" : json, ends];
          };
          const openerOf = () => {
            if (native.opener() === null) return null;
            if (openerProxy === undefined) {
              const proxy = {};
              define(proxy, "closed", { get: () => native.opener() !== true, enumerable: true });
              define(proxy, "postMessage", { value(message, targetOrigin, transfer = undefined) { native.openerPost(...postedToWindow(message, targetOrigin, transfer, false)); } });
              define(proxy, "focus", { value() {} });
              openerProxy = freeze(proxy);
            }
            return openerProxy;
          };
          if (!worker) define(g, "opener", { get: openerOf, set(value) { define(g, "opener", { value, writable: true, enumerable: true, configurable: true }); },
            enumerable: true, configurable: true });
          // A window that is not shown has nothing to focus, stop or print; a page closes only a
          // window a page opened (as a script may close only what a script opened).
          const windowMethods = { focus() {}, blur() {}, stop() {}, print() {}, close() { if (native.opener() !== null) native.closeSelf(); } };
          if (!worker) for (const name of ["focus", "blur", "stop", "print", "close"]) define(g, name, { value: windowMethods[name], writable: true, enumerable: true, configurable: true });
          // A worker's and a `Worker`'s `postMessage`'s second argument: a transfer list, or
          // options with one (WebIDL's overloads). Its `ArrayBuffer`s are moved, the sender's
          // detached.
          hooks.transferred = transfer => {
            if (transfer === undefined || transfer === null) return [];
            if (typeof transfer === "object" && typeof transfer[Symbol.iterator] !== "function") return transfer.transfer === undefined ? [] : [...transfer.transfer];
            return [...transfer];
          };
          // A worker's `postMessage` goes to its `Worker` object, as the text of the message's
          // structured clone; `close` ends it once the task running has returned; `importScripts`
          // loads and runs scripts, one after another, before it returns.
          if (worker) {
            if (!shared) define(g, "postMessage", { value: function postMessage(message, transfer = undefined) {
              if (arguments.length < 1) throw new TypeError("Not enough arguments");
              platformMade();
              native.workerPost(...hooks.sendable(message, transfer));
            }, writable: true, enumerable: true, configurable: true });
            define(g, "close", { value: function close() { native.workerClose(); }, writable: true, enumerable: true, configurable: true });
            define(g, "importScripts", { value: function importScripts(...urls) {
              const own = platformMade(), base = native.platform("base");
              const resolved = urls.map(url => {
                try { return new own.URL(String(url), base).href; } catch { throw new own.DOMException("The string did not match the expected pattern.", "SyntaxError"); }
              });
              for (const url of resolved) native.importScript(url);
            }, writable: true, enumerable: true, configurable: true });
            // `self instanceof WorkerGlobalScope`, as libraries tell a worker from a window.
            const scopeInterface = (name, base) => {
              const made = class extends base { constructor() { super(); throw new TypeError("Illegal constructor"); } static [Symbol.hasInstance](value) { return value === g; } };
              define(made, "name", { value: name });
              define(made.prototype, Symbol.toStringTag, { value: name, configurable: true });
              define(g, name, { value: made, writable: true, configurable: true });
              return made;
            };
            scopeInterface(shared ? "SharedWorkerGlobalScope" : "DedicatedWorkerGlobalScope", scopeInterface("WorkerGlobalScope", Object));
          }
          // `postMessage` to this window: the data cloned now (the ports of its transfer list
          // moved with it), a `message` event from this document's origin in a later task,
          // unless `targetOrigin` names another origin.
          if (!worker) define(g, "postMessage", { value: function postMessage(message, options = undefined, transfer = undefined) {
            if (arguments.length < 1) throw new TypeError("Not enough arguments");
            const own = platformMade(), origin = at("origin");
            const target = options !== null && typeof options === "object" ? options.targetOrigin : options;
            const targetOrigin = target === undefined ? "/" : String(target);
            let delivered = targetOrigin === "*" || targetOrigin === "/";
            if (!delivered) {
              let parsed;
              try { parsed = new own.URL(targetOrigin); } catch { throw new own.DOMException("The string did not match the expected pattern.", "SyntaxError"); }
              delivered = parsed.origin === origin;
            }
            const [data, ports] = hooks.cloned(message, options !== null && typeof options === "object" ? options : transfer);
            if (delivered) hooks.schedule(() => g.dispatchEvent(hooks.message(data, origin, g, "message", ports)), 0);
          }, writable: true, enumerable: true, configurable: true });

          // The navigator of WebKit on this machine (its `hardwareConcurrency` 4 or 8, as
          // WebKit rounds it), with this page's user agent.
          const navigator = {
            userAgent, appVersion: userAgent.replace(/^Mozilla\//, ""), appCodeName: "Mozilla", appName: "Netscape", product: "Gecko",
            productSub: "20030107", vendor: "Apple Computer, Inc.", vendorSub: "", platform, hardwareConcurrency: cores, maxTouchPoints: 0,
            language, languages: freeze([language]), cookieEnabled: true, onLine: true, webdriver: false, pdfViewerEnabled: true,
            javaEnabled() { return false; },
            // The data store's Web Locks of this origin (``WebPlatformPrelude/locksSource``).
            get locks() { return platformMade().locks; },
            // What it tells of the user and the device (``WebPlatformPrelude/navigatorMembersSource``).
            get permissions() { return platformMade().late().navigatorMembers.permissions; },
            get userActivation() { return platformMade().late().navigatorMembers.userActivation; },
            get clipboard() { return platformMade().late().navigatorMembers.clipboard; },
            get mediaDevices() { return platformMade().late().navigatorMembers.mediaDevices; },
            getGamepads() { return []; },
            // A beacon: a POST of `data` with the document's cookies, not waited for; `false`
            // for a body over the 64 KB a beacon may carry.
            sendBeacon(url, data = null) {
              if (arguments.length < 1) throw new TypeError("Not enough arguments");
              const own = platformMade();
              let parsed;
              try { parsed = new own.URL(String(url), native.platform("base")); } catch { throw new TypeError("This URL is invalid"); }
              if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new TypeError("Beacons are only supported over HTTP(S).");
              const size = data === null || data === undefined ? 0 : typeof data === "string" ? new own.TextEncoder().encode(data).length
                : data instanceof own.Blob ? data.size : typeof data.byteLength === "number" ? data.byteLength : String(data).length;
              if (size > 65536 || native.beaconRefused(parsed.href)) return false;
              // The Beacon standard's mode: `no-cors`, unless the body's type is one a form could not send.
              const given = data === null || data === undefined ? null : typeof data === "string" ? "text/plain"
                : data instanceof own.Blob ? data.type || null : typeof data.byteLength === "number" ? null
                : typeof own.FormData === "function" && data instanceof own.FormData ? "multipart/form-data"
                : typeof own.URLSearchParams === "function" && data instanceof own.URLSearchParams ? "application/x-www-form-urlencoded" : "text/plain";
              const essence = given === null ? null : given.split(";")[0].trim().toLowerCase();
              const mode = essence === null || essence === "text/plain" || essence === "multipart/form-data" || essence === "application/x-www-form-urlencoded" ? "no-cors" : "cors";
              then.call(fetch(parsed.href, data === null || data === undefined ? { method: "POST", mode, credentials: "include", keepalive: true } : { method: "POST", mode, body: data, credentials: "include", keepalive: true }), undefined, () => {});
              return true;
            },
          };
          // A worker's (`WorkerNavigator`) has what tells the agent, the language and the locks.
          if (worker) {
            const kept = new Set(["userAgent", "appVersion", "appCodeName", "appName", "product", "platform", "hardwareConcurrency", "language", "languages", "onLine", "locks", "permissions"]);
            for (const key of Object.keys(navigator)) if (!kept.has(key)) delete navigator[key];
          }
          define(navigator, Symbol.toStringTag, { value: worker ? "WorkerNavigator" : "Navigator", configurable: true });
          define(g, "navigator", { value: freeze(navigator), enumerable: true });
          hooks.navigator = navigator; hooks.location = location;
          if (!worker) define(g, "clientInformation", { value: navigator, writable: true, enumerable: true, configurable: true });
          define(g, Symbol.toStringTag, { value: shared ? "SharedWorkerGlobalScope" : worker ? "DedicatedWorkerGlobalScope" : "Window", configurable: true });

          // The global scope's members besides the document (``WebPlatformPrelude``), all made
          // on a script's first read of any of them; a page may replace or delete each.
          const platformNames = ["atob", "btoa", "crypto", "performance", "isSecureContext", "structuredClone", "localStorage", "sessionStorage", "reportError", "history", "matchMedia", "requestAnimationFrame", "cancelAnimationFrame", "screen"], platformClasses = ["TextEncoder", "TextDecoder", "URL", "URLSearchParams", "DOMException", "Event", "EventTarget", "AbortController", "AbortSignal", "CryptoKey", "SubtleCrypto", "Storage", "XMLHttpRequest", "ProgressEvent", "CustomEvent", "History", "PopStateEvent", "HashChangeEvent", "Blob", "File", "FormData", "MediaQueryList", "MessageEvent", "ErrorEvent", "PromiseRejectionEvent", "PageTransitionEvent", "BeforeUnloadEvent", "SecurityPolicyViolationEvent", "MessageChannel", "MessagePort", "BroadcastChannel", "Lock", "LockManager", "ReadableStream", "ReadableStreamDefaultReader", "ReadableStreamDefaultController", "StorageEvent", "PerformanceEntry", "PerformanceMark", "PerformanceMeasure", "PerformanceNavigationTiming", "PerformanceObserver", "PerformanceObserverEntryList"];
          // Made apart, on a script's first read of one of them (``WebPlatformPrelude``'s `late`).
          const lateNames = ["cookieStore", "visualViewport", "locationbar", "menubar", "personalbar", "scrollbars", "statusbar", "toolbar"],
            lateClasses = ["Permissions", "PermissionStatus", "UserActivation", "Clipboard", "MediaDevices", "Notification", "BarProp", "VisualViewport", "CountQueuingStrategy", "ByteLengthQueuingStrategy", "XMLHttpRequestEventTarget",
            "XMLHttpRequestUpload", "CookieStore", "CookieChangeEvent", "FileReader", "Window", "Navigator", "Location",
            "Crypto", "Performance", "WebSocket", "CloseEvent", "WritableStream", "WritableStreamDefaultWriter", "WritableStreamDefaultController",
            "TransformStream", "TransformStreamDefaultController", "TextDecoderStream", "TextEncoderStream", "CompressionStream",
            "DecompressionStream", "EventSource", "Worker", "SharedWorker", "FileReaderSync", "WorkerLocation", "WorkerNavigator"];
          // IndexedDB's, made apart (``WebPlatformPrelude/indexedDBSource``).
          const indexedDBClasses = ["IDBFactory", "IDBDatabase", "IDBTransaction", "IDBObjectStore", "IDBIndex", "IDBCursor", "IDBCursorWithValue",
            "IDBKeyRange", "IDBRequest", "IDBOpenDBRequest", "IDBVersionChangeEvent", "DOMStringList"];
          let platformObject = null;
          // The platform's own members, made once (the page may have replaced the globals).
          const platformMade = () => platformObject !== null ? platformObject : (platformObject = native.platform("make")(g, define, native, hooks));
          // A body as `formData()` reads it, as WebKit does: URL-encoded, or multipart (a part with
          // a file name a `File`), else WebKit's `TypeError`.
          const formDataOf = (buffer, contentType) => {
            const own = platformMade(), bytes = new Uint8Array(buffer), type = String(contentType === null ? "" : contentType);
            const form = new own.FormData(), refused = () => new TypeError("Type error");
            if (/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
              for (const [name, value] of new own.URLSearchParams(textOfBytes(bytes))) form.append(name, value);
              return form;
            }
            const boundary = /^multipart\/form-data\s*;(?:.*;)?\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(type);
            if (boundary === null) throw refused();
            const find = (needle, from) => {
              outer: for (let i = from; i + needle.length <= bytes.length; i++) {
                for (let j = 0; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer;
                return i;
              }
              return -1;
            };
            const separator = "--" + (boundary[1] || boundary[2]);
            const delimiter = bytesOfText(separator), nextPart = bytesOfText("\r\n" + separator);
            const headEnd = bytesOfText("\r\n\r\n");
            let at = find(delimiter, 0);
            if (at < 0) throw refused();
            at += delimiter.length;
            while (!(bytes[at] === 45 && bytes[at + 1] === 45)) {
              if (bytes[at] !== 13 || bytes[at + 1] !== 10) throw refused();
              const head = find(headEnd, at + 2);
              if (head < 0) throw refused();
              const end = find(nextPart, head + 4);
              if (end < 0) throw refused();
              const fields = textOfBytes(bytes.subarray(at + 2, head)), content = bytes.slice(head + 4, end);
              const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(fields);
              const name = disposition && /;\s*name="([^"]*)"/i.exec(disposition[1]);
              if (name === null) throw refused();
              const filename = /;\s*filename="([^"]*)"/i.exec(disposition[1]), partType = /^content-type:\s*(.*?)\s*$/im.exec(fields);
              form.append(name[1], filename === null ? textOfBytes(content)
                : new own.File([content], filename[1], { type: partType === null ? "text/plain" : partType[1] }));
              at = end + nextPart.length;
            }
            return form;
          };
          // A body that is no JSON rejects `json()` with WebKit's DOMException, not `JSON.parse`'s error.
          const jsonOfText = text => {
            try { return JSON.parse(text); } catch { throw new (platformMade().DOMException)("The string did not match the expected pattern.", "SyntaxError"); }
          };
          // Puts a set of members in place of their accessors (those the page has not replaced).
          const place = (lazy, made) => {
            for (const [name, getter] of lazy) {
              const own = Object.getOwnPropertyDescriptor(g, name);
              if (own === undefined || own.get !== getter) continue;
              // A secure context's only (CryptoKey, SubtleCrypto, cookieStore) are gone from others.
              if (name in made) define(g, name, { value: made[name], writable: true, enumerable: own.enumerable, configurable: true });
              else delete g[name];
            }
            lazy.clear();
          };
          // One function per name is its getter and its setter (a read has no argument).
          const makeLazy = (names, classes, made) => {
            const lazy = new Map();
            const placeAll = () => { if (lazy.size > 0) place(lazy, made()); };
            for (const name of [...names, ...classes]) {
              const enumerable = names.includes(name);
              const access = function (value) {
                placeAll();
                if (arguments.length === 0) return g[name];
                define(g, name, { value, writable: true, enumerable, configurable: true });
              };
              lazy.set(name, access);
              define(g, name, { get: access, set: access, enumerable, configurable: true });
            }
          };
          // What HTML exposes to windows only is not a worker's.
          const windowOnly = new Set(["localStorage", "sessionStorage", "history", "matchMedia", "screen",
            "Storage", "History", "PopStateEvent", "HashChangeEvent", "MediaQueryList", "PageTransitionEvent", "BeforeUnloadEvent", "StorageEvent", "PerformanceNavigationTiming",
            "cookieStore", "visualViewport", "locationbar", "menubar", "personalbar", "scrollbars", "statusbar", "toolbar", "UserActivation", "Clipboard",
            "MediaDevices", "BarProp", "VisualViewport", "CookieStore", "CookieChangeEvent", "Window", "Navigator", "Location", "SharedWorker"]);
          // Nor is a worker's what a window has.
          const workerOnly = new Set(["FileReaderSync", "WorkerLocation", "WorkerNavigator"]);
          const scoped = names => names.filter(name => !(worker ? windowOnly : workerOnly).has(name));
          makeLazy(scoped(platformNames), scoped(platformClasses), platformMade);
          makeLazy(scoped(lateNames), scoped(lateClasses), () => platformMade().late());
          makeLazy(["indexedDB"], indexedDBClasses, () => platformMade().indexedDBMembers());
          makeLazy(["caches"], ["CacheStorage", "Cache"], () => platformMade().cacheMembers());

          // A view that is not shown never scrolls, moves or resizes: these do nothing, as there
          // (`scrollX` and `scrollY` stay 0); a number alone is no `ScrollToOptions`.
          const scrolls = name => function (options) {
            if (arguments.length === 1 && options !== undefined && options !== null && typeof options !== "object" && typeof options !== "function") {
              throw new TypeError("Type error");
            }
          };
          const resizes = function (x, y) { if (arguments.length < 2) throw new TypeError("Not enough arguments"); };
          if (!worker) for (const [name, value] of [["scroll", scrolls()], ["scrollTo", scrolls()], ["scrollBy", scrolls()], ["moveTo", resizes], ["moveBy", resizes],
            ["resizeTo", resizes], ["resizeBy", resizes], ["captureEvents", function () {}], ["releaseEvents", function () {}],
            ["find", function () { return false; }]]) {
            const made = { [name]: function (...args) { return value.apply(this, args); } }[name];
            define(made, "length", { value: name === "moveTo" || name === "moveBy" || name === "resizeTo" || name === "resizeBy" ? 2 : 0 });
            define(g, name, { value: made, writable: true, enumerable: true, configurable: true });
          }
          if (!worker) {
            g.alert = message => { native.panel("alert", String(message === undefined ? "" : message), null); };
            g.confirm = message => native.panel("confirm", String(message === undefined ? "" : message), null);
            g.prompt = (message, value) => native.panel("prompt", String(message === undefined ? "" : message), value === undefined ? "" : String(value));
          }
          const proxies = new Map();
          function windowProxy(id) {
            if (proxies.has(id)) return proxies.get(id);
            const proxyLocation = {};
            define(proxyLocation, "href", { get: () => native.windowHref(id), set: v => native.windowNavigate(id, String(v)), enumerable: true });
            define(proxyLocation, "assign", { value: v => native.windowNavigate(id, String(v)) });
            define(proxyLocation, "replace", { value: v => native.windowNavigate(id, String(v)) });
            define(proxyLocation, "toString", { value: () => native.windowHref(id) });
            freeze(proxyLocation);
            const proxy = {};
            define(proxy, "closed", { get: () => native.windowClosed(id), enumerable: true });
            define(proxy, "close", { value: () => native.windowClose(id) });
            define(proxy, "location", { get: () => proxyLocation, set: v => native.windowNavigate(id, String(v)), enumerable: true });
            define(proxy, "postMessage", { value(message, targetOrigin, transfer = undefined) { native.windowPost(id, ...postedToWindow(message, targetOrigin, transfer, native.windowForeign(id))); } });
            freeze(proxy);
            proxies.set(id, proxy);
            return proxy;
          }
          if (!worker) g.open = (url, target) => {
            const href = url === undefined ? "" : String(url);
            const name = target === undefined || target === null || String(target) === "" ? "_blank" : String(target);
            if (name === "_self" || name === "_top" || name === "_parent") {
              if (href !== "") navigateTo("assign", href);
              return g;
            }
            if (leaving) return null;
            const id = native.open(href, name);
            return id === null ? null : windowProxy(id);
          };

          // A header list as the Fetch Standard keeps one: names lowercased and checked to be
          // tokens, values with their leading and trailing whitespace removed and checked to hold
          // no NUL, CR or LF; iterated sorted by name, each name's values combined with ", "
          // except `set-cookie`'s, which come one by one (and from getSetCookie()).
          const headerName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/, headerValueOutside = /^[\t\n\r ]+|[\t\n\r ]+$/g, headerValueRefused = /[\0\r\n]/;
          const checkedName = name => {
            const text = String(name);
            if (!headerName.test(text)) throw new TypeError(`'${text}' is not a valid HTTP header field name.`);
            return text.toLowerCase();
          };
          const checkedValue = value => {
            const text = String(value).replace(headerValueOutside, "");
            if (headerValueRefused.test(text)) throw new TypeError(`'${text}' is not a valid HTTP header field value.`);
            return text;
          };
          class Headers {
            #list = [];
            constructor(init) {
              if (init == null) return;
              if (init instanceof Headers) { for (const [k, v] of init.#list) this.#list.push([k, v]); }
              else if (typeof init[Symbol.iterator] === "function") {
                for (const pair of init) {
                  const entry = [...pair];
                  if (entry.length !== 2) throw new TypeError("Headers: each header must be a name and a value");
                  this.append(entry[0], entry[1]);
                }
              }
              else if (typeof init === "object") { for (const k of Object.keys(init)) this.append(k, init[k]); }
            }
            append(name, value) { if (arguments.length < 2) throw new TypeError("Not enough arguments"); this.#list.push([checkedName(name), checkedValue(value)]); }
            set(name, value) { if (arguments.length < 2) throw new TypeError("Not enough arguments"); const n = checkedName(name), v = checkedValue(value); this.#list = this.#list.filter(([k]) => k !== n); this.#list.push([n, v]); }
            delete(name) { if (arguments.length < 1) throw new TypeError("Not enough arguments"); const n = checkedName(name); this.#list = this.#list.filter(([k]) => k !== n); }
            get(name) { if (arguments.length < 1) throw new TypeError("Not enough arguments"); const n = checkedName(name); const v = this.#list.filter(([k]) => k === n).map(([, v]) => v); return v.length ? v.join(", ") : null; }
            getSetCookie() { return this.#list.filter(([k]) => k === "set-cookie").map(([, v]) => v); }
            has(name) { if (arguments.length < 1) throw new TypeError("Not enough arguments"); const n = checkedName(name); return this.#list.some(([k]) => k === n); }
            #sorted() {
              const names = [...new Set(this.#list.map(([k]) => k))].sort();
              const out = [];
              for (const name of names) {
                if (name === "set-cookie") { for (const value of this.getSetCookie()) out.push([name, value]); }
                else out.push([name, this.get(name)]);
              }
              return out;
            }
            forEach(callback, thisArg) { for (const [k, v] of this.#sorted()) callback.call(thisArg, v, k, this); }
            *entries() { yield* this.#sorted(); }
            *keys() { for (const [k] of this.#sorted()) yield k; }
            *values() { for (const [, v] of this.#sorted()) yield v; }
            [Symbol.iterator]() { return this.entries(); }
          }

          // A response the page makes has the body the Fetch Standard extracts (text, a form,
          // bytes) with the Content-Type it implies; one fetch made (`received`) has the
          // server's body and headers as they came.
          let received = false, receivedResponse;
          const nullBodyStatuses = [101, 103, 204, 205, 304], redirectStatuses = [301, 302, 303, 307, 308];
          class Response {
            #body; #text; #used = false; #streamed = false; #stream = null; #nullBody;
            constructor(body, init = {}) {
              init = init || {};
              const headers = new Headers(init.headers);
              const status = init.status === undefined ? 200 : +init.status;
              let content = body === undefined || body === null ? null : body;
              // A stream given as the body is read when the body is (``WebPlatformPrelude/streamsSource``).
              this.#streamed = !received && content !== null && hooks.isStream !== null && hooks.isStream(content);
              // A received 204 or 304 has an empty body all the same, as WebKit gives it (a stream).
              this.#nullBody = content === null || (!received && nullBodyStatuses.includes(status)) || status === 0;
              if (this.#streamed) {
                if (!(status >= 200 && status <= 599) || status % 1 !== 0) throw new RangeError(`Status must be between 200 and 599, inclusive (${init.status}).`);
                if (nullBodyStatuses.includes(status)) throw new TypeError("Response cannot have a body with the given status.");
              } else if (!received) {
                if (!(status >= 200 && status <= 599) || status % 1 !== 0) throw new RangeError(`Status must be between 200 and 599, inclusive (${init.status}).`);
                if (content !== null && nullBodyStatuses.includes(status)) throw new TypeError("Response cannot have a body with the given status.");
                const { body: extracted, type } = extractBody(content);
                content = extracted;
                if (type !== null && !headers.has("content-type")) headers.set("content-type", type);
              }
              this.#body = content === null ? "" : content;
              // A received body that is not UTF-8 comes as bytes, with its text decoded natively.
              this.#text = received && typeof init.text === "string" ? init.text : undefined;
              define(this, "status", { value: status, enumerable: true });
              define(this, "statusText", { value: init.statusText === undefined ? "" : String(init.statusText), enumerable: true });
              define(this, "ok", { value: status >= 200 && status < 300, enumerable: true });
              define(this, "headers", { value: headers, enumerable: true });
              define(this, "url", { value: init.url || "", enumerable: true });
              define(this, "redirected", { value: !!init.redirected, enumerable: true });
              define(this, "type", { value: received && init.type ? init.type : received ? "basic" : "default", enumerable: true });
            }
            static #made(body, init) {
              received = true;
              try { return new Response(body, init); } finally { received = false; }
            }
            static { receivedResponse = (body, init) => Response.#made(body, init); }
            static error() { return Response.#made(null, { status: 0, type: "error" }); }
            static redirect(url, status = 302) {
              const target = native.resolve(String(url));
              if (!redirectStatuses.includes(+status)) throw new RangeError(`Invalid status code (${status}).`);
              return Response.#made(null, { status: +status, headers: [["location", target]], type: "default" });
            }
            static json(data, init = {}) {
              const text = JSON.stringify(data);
              if (text === undefined) throw new TypeError("Value is not JSON serializable");
              const headers = new Headers((init || {}).headers);
              if (!headers.has("content-type")) headers.set("content-type", "application/json");
              return new Response(text, { ...(init || {}), headers });
            }
            get bodyUsed() { return this.#used; }
            // The body as a stream: the one it was made from, or one that gives its bytes once.
            get body() {
              if (this.#nullBody) return null;
              if (this.#streamed) return this.#body;
              if (this.#stream === null) {
                platformMade();
                this.#stream = hooks.makeStream(() => {
                  if (this.#used) throw new TypeError("Body is disturbed or locked");
                  this.#used = true;
                  return typeof this.#body === "string" ? bytesOfText(this.#body) : this.#body.slice();
                });
                // Read another way already: the stream is locked, as that read's.
                if (this.#used) this.#stream.getReader();
              }
              return this.#stream;
            }
            #take() {
              if (this.#used) return PromiseCtor.reject(new TypeError("Body is disturbed or locked"));
              const stream = this.#streamed ? this.#body : this.#stream;
              if (stream !== null && !hooks.streamUsable(stream)) return PromiseCtor.reject(new TypeError("Body is disturbed or locked"));
              this.#used = true;
              if (this.#streamed) return hooks.readStream(stream);
              if (stream !== null) stream.getReader();
              return PromiseCtor.resolve(this.#body);
            }
            text() { return then.call(this.#take(), body => typeof body === "string" ? body : this.#text !== undefined ? this.#text : textOfBytes(body)); }
            json() { return then.call(this.text(), jsonOfText); }
            formData() { return then.call(this.arrayBuffer(), buffer => formDataOf(buffer, this.headers.get("content-type"))); }
            arrayBuffer() { return then.call(this.#take(), body => typeof body === "string" ? bytesOfText(body).buffer : body.slice().buffer); }
            blob() { return then.call(this.arrayBuffer(), buffer => bodyBlob(buffer, this.headers)); }
            clone() {
              if (this.#used) throw new TypeError("body stream already read");
              if ((this.#streamed ? this.#body : this.#stream) !== null && !hooks.streamUsable(this.#streamed ? this.#body : this.#stream)) {
                throw new TypeError("Body is disturbed or locked");
              }
              if (this.#streamed) {
                const [kept, given] = this.#body.tee();
                this.#body = kept;
                return new Response(given, { status: this.status, statusText: this.statusText, headers: this.headers });
              }
              return Response.#made(this.#body, {
                status: this.status, statusText: this.statusText, headers: this.headers, url: this.url, redirected: this.redirected, type: this.type,
                text: this.#text });
            }
          }
          // A body as the Fetch Standard extracts one: text, URLSearchParams (as a form) or
          // bytes (a copy of an ArrayBuffer or a view), with the Content-Type it implies.
          const extractBody = (value, keepalive = false) => {
            if (value === null || value === undefined) return { body: null, type: null };
            if (hooks.isStream !== null && hooks.isStream(value)) {
              // WebKit's refusal of a request that would outlive its document with a body not yet there.
              if (keepalive) throw new TypeError("Request cannot have a ReadableStream body and keepalive set to true");
              throw new (platformMade().DOMException)("ReadableStream uploading is not supported", "NotSupportedError");
            }
            // A Blob or a FormData (made by the platform, which says so).
            const platformBody = hooks.body ? hooks.body(value) : undefined;
            if (platformBody !== undefined) return platformBody;
            if (value instanceof ArrayBuffer) return { body: new Uint8Array(value).slice(), type: null };
            if (ArrayBuffer.isView(value)) return { body: new Uint8Array(value.buffer, value.byteOffset, value.byteLength).slice(), type: null };
            if (Object.prototype.toString.call(value) === "[object URLSearchParams]") return { body: String(value), type: "application/x-www-form-urlencoded;charset=UTF-8" };
            return { body: String(value), type: "text/plain;charset=UTF-8" };
          };
          // A body read as a Blob of its Content-Type (the platform, made now if it was not).
          const bodyBlob = (buffer, headers) => {
            platformMade();
            return hooks.makeBlob(new Uint8Array(buffer), headers.get("content-type") ?? "");
          };
          // Text as UTF-8 bytes, and back (a body's arrayBuffer() and text()).
          const bytesOfText = text => { const binary = unescape(encodeURIComponent(text)), out = new Uint8Array(binary.length); for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i); return out; };
          const textOfBytes = bytes => { let binary = ""; for (let i = 0; i < bytes.length; i += 8192) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192)); try { return decodeURIComponent(escape(binary)); } catch { return binary; } };
          // A request as fetch takes it: its URL resolved against the document's, its method
          // normalized, its body read once (by text(), json(), arrayBuffer() or fetch).
          const normalizedMethods = ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"];
          const redirectMode = value => {
            const mode = String(value);
            if (mode !== "follow" && mode !== "error" && mode !== "manual") throw new TypeError(`'${mode}' is not a valid value for RequestRedirect.`);
            return mode;
          };
          // A request's mode (the CORS protocol's, ``CrossOriginFetch``): a page cannot make a
          // navigation's, and a `no-cors` request uses a method another origin accepts unasked.
          const requestMode = (value, method) => {
            const mode = String(value);
            if (mode !== "cors" && mode !== "no-cors" && mode !== "same-origin" && mode !== "navigate") throw new TypeError(`'${mode}' is not a valid value for RequestMode.`);
            if (mode === "navigate") throw new TypeError("Request constructor does not accept navigate fetch mode.");
            if (mode === "no-cors" && method !== "GET" && method !== "HEAD" && method !== "POST") throw new TypeError("Method must be GET, POST or HEAD in no-cors mode.");
            return mode;
          };
          // A request's cache mode (``UserAgentFields``); `only-if-cached` asks for what a cache of
          // the document's origin holds.
          const cacheModes = ["default", "no-store", "reload", "no-cache", "force-cache", "only-if-cached"];
          const requestCache = (value, mode) => {
            const cache = String(value);
            if (!cacheModes.includes(cache)) throw new TypeError(`'${cache}' is not a valid value for RequestCache.`);
            if (cache === "only-if-cached" && mode !== "same-origin") throw new TypeError("only-if-cached cache option requires fetch mode to be same-origin.");
            return cache;
          };
          const requestCredentials = value => {
            const credentials = String(value);
            if (credentials !== "omit" && credentials !== "same-origin" && credentials !== "include") throw new TypeError(`'${credentials}' is not a valid value for RequestCredentials.`);
            return credentials;
          };
          // A request's referrer (``Referrer``): "" for none, `about:client` for the document, or
          // a URL, kept when it is of the document's origin.
          const requestReferrer = value => {
            const text = String(value);
            if (text === "") return "";
            const url = native.resolve(text);
            if (url === "about:client") return url;
            const origin = at("origin");
            return url.startsWith(origin + "/") || url === origin ? url : "about:client";
          };
          const referrerPolicies = ["", "no-referrer", "no-referrer-when-downgrade", "same-origin", "origin", "strict-origin",
            "origin-when-cross-origin", "strict-origin-when-cross-origin", "unsafe-url"];
          const referrerPolicy = value => {
            const policy = String(value);
            if (!referrerPolicies.includes(policy)) throw new TypeError(`'${policy}' is not a valid value for ReferrerPolicy.`);
            return policy;
          };
          // Fetch's no-CORS-safelisted request-header (``CORSSafelist``), as far as a page can tell.
          const noCORSHeader = (name, value) => {
            if (value.length > 128) return false;
            switch (name) {
            case "accept": return !/[\u0000-\u0008\u000a-\u001f"():<>?@[\\\]{}\u007f]/.test(value);
            case "accept-language": case "content-language": return /^[0-9A-Za-z *,\-.;=]*$/.test(value);
            case "content-type": return !/[\u0000-\u0008\u000a-\u001f"():<>?@[\\\]{}\u007f]/.test(value)
              && ["application/x-www-form-urlencoded", "multipart/form-data", "text/plain"].includes(value.split(";")[0].trim().toLowerCase());
            default: return false;
            }
          };
          // A `data:` URL's contents (the Fetch Standard's data: URL processor): its URL as
          // serialized, its media type (US-ASCII text by default) and its bytes, base64 or
          // percent-decoded; null when it is malformed. `XMLHttpRequest` reads them through `hooks`.
          const dataURL = given => {
            // The URL as the URL Standard serializes it: the scheme lowercased, tabs and newlines
            // removed, no fragment, what is not printable ASCII percent-encoded.
            let url = "data:";
            for (const character of String(given).trim().replace(/[\t\n\r]/g, "").slice(5).split("#")[0]) {
              const code = character.codePointAt(0);
              if (code > 0x1f && code < 0x7f) url += character;
              else for (const byte of bytesOfText(character)) url += "%" + (byte < 16 ? "0" : "") + byte.toString(16).toUpperCase();
            }
            const comma = url.indexOf(",");
            if (comma < 0) return null;
            let type = url.slice(5, comma).trim(), data = url.slice(comma + 1), bytes;
            const base64 = /;[\u0020]*base64$/i.test(type);
            if (base64) {
              type = type.replace(/;[\u0020]*base64$/i, "");
              let binary;
              try { binary = atob(decodeURIComponent(data.replace(/[\t\n\f\r ]/g, ""))); } catch { return null; }
              bytes = new Uint8Array(binary.length);
              for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
            } else {
              const parts = [];
              for (let i = 0; i < data.length; i++) {
                const hex = data[i] === "%" && /^[0-9A-Fa-f]{2}$/.test(data.slice(i + 1, i + 3));
                if (hex) { parts.push(parseInt(data.slice(i + 1, i + 3), 16)); i += 2; }
                else for (const byte of bytesOfText(data[i])) parts.push(byte);
              }
              bytes = new Uint8Array(parts);
            }
            if (type.startsWith(";")) type = "text/plain" + type;
            if (type === "") type = "text/plain;charset=US-ASCII";
            return { url, type, bytes };
          };
          hooks.dataURL = dataURL;
          const dataResponse = given => {
            const data = dataURL(given);
            return data === null ? null : receivedResponse(data.bytes, { status: 200, statusText: "OK", headers: [["content-type", data.type]], url: data.url });
          };
          let takeRequestBody;
          class Request {
            #url; #method; #headers; #body; #credentials; #mode; #cache; #signal; #redirect; #keepalive; #integrity; #referrer; #referrerPolicy; #used = false;
            constructor(input, init) {
              init = init || {};
              const from = input instanceof Request ? input : null;
              if (!from) {
                // A URL that does not parse, or that holds credentials, is refused, as WebKit refuses it.
                let url = null;
                try { url = native.resolve(String(input)); } catch {}
                if (url === null || /^[a-z][a-z0-9+.-]*:\/\/[^\/?#]*@/i.test(url)) throw new TypeError("URL is not valid or contains user credentials.");
                this.#url = url;
              } else this.#url = from.#url;
              const method = init.method !== undefined ? String(init.method) : from ? from.#method : "GET";
              this.#method = normalizedMethods.includes(method.toUpperCase()) ? method.toUpperCase() : method;
              this.#headers = new Headers(init.headers !== undefined ? init.headers : from ? from.#headers : undefined);
              if (from && from.#used && init.body === undefined) throw new TypeError("body stream already read");
              if (init.body !== undefined) {
                const { body, type } = extractBody(init.body, init.keepalive !== undefined ? !!init.keepalive : from ? from.#keepalive : false);
                this.#body = body;
                if (type !== null && !this.#headers.has("content-type")) this.#headers.set("content-type", type);
              } else this.#body = from ? from.#body : null;
              if (this.#body !== null && (this.#method === "GET" || this.#method === "HEAD")) {
                throw new TypeError("Request with GET/HEAD method cannot have body.");
              }
              this.#credentials = requestCredentials(init.credentials !== undefined ? init.credentials : from ? from.#credentials : "same-origin");
              this.#mode = requestMode(init.mode !== undefined ? init.mode : from ? from.#mode : "cors", this.#method);
              // A no-cors request keeps the headers another origin accepts unasked (its headers' guard).
              if (this.#mode === "no-cors") {
                for (const [name, value] of [...this.#headers]) if (!noCORSHeader(name, value)) this.#headers.delete(name);
              }
              this.#signal = init.signal !== undefined ? init.signal : from ? from.#signal : null;
              this.#redirect = redirectMode(init.redirect !== undefined ? init.redirect : from ? from.#redirect : "follow");
              this.#keepalive = init.keepalive !== undefined ? !!init.keepalive : from ? from.#keepalive : false;
              this.#integrity = init.integrity !== undefined ? String(init.integrity) : from ? from.#integrity : "";
              this.#referrer = init.referrer !== undefined ? requestReferrer(init.referrer) : from ? from.#referrer : "about:client";
              this.#referrerPolicy = init.referrerPolicy !== undefined ? referrerPolicy(init.referrerPolicy) : from ? from.#referrerPolicy : "";
              this.#cache = requestCache(init.cache !== undefined ? init.cache : from ? from.#cache : "default", this.#mode);
            }
            get url() { return this.#url; }
            get method() { return this.#method; }
            get headers() { return this.#headers; }
            get credentials() { return this.#credentials; }
            get signal() { return this.#signal; }
            get mode() { return this.#mode; }
            get redirect() { return this.#redirect; }
            get cache() { return this.#cache; }
            get keepalive() { return this.#keepalive; }
            get integrity() { return this.#integrity; }
            get destination() { return ""; }
            get referrer() { return this.#referrer; }
            get referrerPolicy() { return this.#referrerPolicy; }
            get bodyUsed() { return this.#used; }
            #take() {
              if (this.#used) throw new TypeError("body stream already read");
              if (this.#body !== null) this.#used = true;
              return this.#body;
            }
            text() {
              try {
                const body = this.#take();
                return PromiseCtor.resolve(body === null ? "" : typeof body === "string" ? body : textOfBytes(body));
              } catch (error) { return PromiseCtor.reject(error); }
            }
            json() { return then.call(this.text(), jsonOfText); }
            formData() { return then.call(this.arrayBuffer(), buffer => formDataOf(buffer, this.headers.get("content-type"))); }
            arrayBuffer() {
              try {
                const body = this.#take();
                return PromiseCtor.resolve(body === null ? new ArrayBuffer(0) : typeof body === "string" ? bytesOfText(body).buffer : body.slice().buffer);
              } catch (error) { return PromiseCtor.reject(error); }
            }
            blob() { return then.call(this.arrayBuffer(), buffer => bodyBlob(buffer, this.headers)); }
            clone() {
              if (this.#used) throw new TypeError("body stream already read");
              return new Request(this);
            }
            static { takeRequestBody = request => request.#take(); }
          }
          g.Headers = Headers;
          g.Response = Response;
          g.Request = Request;

          // Whatever goes wrong before the request leaves (a header the page may not set, a
          // method, a body) rejects the promise, as in WebKit: fetch never throws.
          const startFetch = (input, init) => {
            init = init || {};
            const asked = input instanceof Request ? input : null;
            const url = asked ? asked.url : String(input);
            const method = String(init.method !== undefined ? init.method : asked ? asked.method : "GET");
            let redirect;
            try { redirect = redirectMode(init.redirect !== undefined ? init.redirect : asked ? asked.redirect : "follow"); } catch (error) { return PromiseCtor.reject(error); }
            const given = init.headers !== undefined ? init.headers : asked ? asked.headers : undefined;
            const headers = given ? [...new Headers(given)] : [];
            let body;
            try {
              if (init.body !== undefined) {
                const extracted = extractBody(init.body, !!(init.keepalive !== undefined ? init.keepalive : asked ? asked.keepalive : false));
                body = extracted.body;
                if (extracted.type !== null && !headers.some(([name]) => name === "content-type")) headers.push(["content-type", extracted.type]);
              } else body = asked ? takeRequestBody(asked) : null;
            } catch (error) { return PromiseCtor.reject(error); }
            const upper = method.toUpperCase();
            if (body !== null && body !== undefined && (upper === "GET" || upper === "HEAD")) {
              return PromiseCtor.reject(new TypeError("Request with GET/HEAD method cannot have body."));
            }
            let credentials, mode, referrer, policy, cache;
            try {
              credentials = requestCredentials(init.credentials !== undefined ? init.credentials : asked ? asked.credentials : "same-origin");
              mode = requestMode(init.mode !== undefined ? init.mode : asked ? asked.mode : "cors", normalizedMethods.includes(upper) ? upper : method);
              referrer = init.referrer !== undefined ? requestReferrer(init.referrer) : asked ? asked.referrer : "about:client";
              policy = init.referrerPolicy !== undefined ? referrerPolicy(init.referrerPolicy) : asked ? asked.referrerPolicy : "";
              cache = requestCache(init.cache !== undefined ? init.cache : asked ? asked.cache : "default", mode);
            } catch (error) { return PromiseCtor.reject(error); }
            const signal = init.signal !== undefined ? init.signal : asked ? asked.signal : undefined;
            // A request whose signal was aborted before it started rejects with the signal's
            // reason (an `AbortError` DOMException unless the page gave another); one aborted in
            // flight with WebKit's `AbortError`, whatever the reason (an `AbortSignal.timeout`'s
            // too: code written for WebKit tests `name === "AbortError"`), as WebKit 2.50 does.
            const aborted = () => {
              if (signal.reason !== undefined) return signal.reason;
              const error = new Error("the request was aborted"); error.name = "AbortError";
              return error;
            };
            if (signal && signal.aborted) return PromiseCtor.reject(aborted());
            let started;
            // The document's Content Security Policy decides these too (`connect-src`).
            if (/^(data|blob):/i.test(url) && native.connectRefused(url)) return PromiseCtor.reject(new TypeError("Load failed"));
            if (/^data:/i.test(url)) {
              const response = dataResponse(url);
              return response === null ? PromiseCtor.reject(new TypeError("fetch: the data: URL is malformed")) : PromiseCtor.resolve(response);
            }
            // A blob URL this document made (``WebPlatformPrelude/blobSource``): its Blob, for GET only.
            if (/^blob:/i.test(url)) {
              const blob = upper === "GET" && hooks.blobURL !== null ? hooks.blobURL(url) : null;
              if (blob === null) return PromiseCtor.reject(new TypeError("fetch: the blob: URL is not one this document made, or not for GET"));
              return PromiseCtor.resolve(receivedResponse(blob.bytes, { status: 200, statusText: "OK", url: blob.url,
                headers: [["content-length", String(blob.bytes.length)], ["content-type", blob.type]] }));
            }
            const keepalive = !!(init.keepalive !== undefined ? init.keepalive : asked ? asked.keepalive : false);
            const integrity = String(init.integrity !== undefined ? init.integrity : asked ? asked.integrity : "");
            const abortable = signal && typeof signal.addEventListener === "function";
            const ticket = abortable ? { __proto__: null } : undefined;
            try { started = native.fetch(url, method, headers, body, credentials, redirect, keepalive, mode, "Fetch API", referrer, policy, integrity, cache, ticket); } catch (error) { return PromiseCtor.reject(error); }
            const request = then.call(started,
              r => receivedResponse(r.body, {
                status: r.status, statusText: r.statusText, headers: r.headers, url: r.url, redirected: r.redirected, type: r.type, text: r.text }));
            if (!abortable) return request;
            return new PromiseCtor((resolve, reject) => {
              // As in WebKit, the load is cancelled too: no later redirect hop, none of its cookies.
              signal.addEventListener("abort", () => {
                native.cancelFetch(ticket.id);
                reject(new (platformMade().DOMException)("Fetch is aborted", "AbortError"));
              });
              then.call(request, resolve, reject);
            });
          };
          g.fetch = function fetch(input, init) {
            try { return startFetch(input, init); } catch (error) { return PromiseCtor.reject(error); }
          };

          const fetch = g.fetch;
          for (const [made, name] of [[Headers, "Headers"], [Response, "Response"], [Request, "Request"]]) {
            define(made.prototype, Symbol.toStringTag, { value: name, configurable: true });
          }
          // The Cache API's parts (``WebPlatformPrelude/cacheStorageSource``): this document's own, whatever the page replaces.
          hooks.cacheParts = { fetch, Request, Response, Headers, receivedResponse };
          return {
            uncaught,
            // An external script ran (`load`) or could not be loaded (`error`): the event goes to
            // the window's (not for `load`) and the document's capture listeners, then to the
            // element's own (it does not bubble), as in the DOM.
            scriptEvent(type, index, src, attributes, line) {
              const element = scriptElement(index, src, attributes, line);
              let stopped = false;
              const event = {
                type, target: element, currentTarget: g, eventPhase: 1, bubbles: false, cancelable: false, isTrusted: true, defaultPrevented: false,
                preventDefault() {}, stopPropagation() { stopped = true; }, stopImmediatePropagation() { stopped = true; },
              };
              for (const object of type === "load" ? [document] : [g, document]) {
                event.currentTarget = object;
                capturers.get(object)(event);
                if (stopped) return;
              }
              event.currentTarget = element; event.eventPhase = 2;
              element.dispatchEvent(event);
            },
            // A use the document's Content Security Policy refused (``DocumentEnvironment/report``):
            // its `securitypolicyviolation` event, in a task of its own, at the `<script>` element
            // it concerns (then, as it bubbles, the document and the window) or the document.
            violation(init, index, src, attributes, line) {
              platformMade();
              const element = index >= 0 ? scriptElement(index, src, attributes, line) : null;
              hooks.schedule(() => {
                try { hooks.bubble(hooks.violation(init), element !== null ? [element, document, g] : [document, g]); } catch (error) { native.report(error); }
              }, 0);
            },
            // The document's Content Security Policy refuses `eval` (the engine makes it throw):
            // `eval` and `Function` report each refusal first, as WebKit reports it.
            refuseEval() {
              if (evalRefused) return;
              evalRefused = true;
              const wrap = original => new ProxyCtor(original, {
                apply(target, self, args) { native.evalRefused(typeof args[args.length - 1] === "string" ? args[args.length - 1] : ""); return reflectApply(target, self, args); },
                construct(target, args, newTarget) { native.evalRefused(typeof args[args.length - 1] === "string" ? args[args.length - 1] : ""); return reflectConstruct(target, args, newTarget); },
              });
              // A page that froze these first keeps them as they are: they throw all the same, unreported.
              try { define(g, "eval", { value: wrap(g.eval), writable: true, configurable: true }); } catch {}
              // Functions' `constructor` is the global `Function` still (`f.constructor === Function`).
              const made = wrap(functionPrototype.constructor);
              try {
                define(functionPrototype, "constructor", { value: made, writable: true, configurable: true });
                define(g, "Function", { value: made, writable: true, configurable: true });
              } catch {}
            },
            // Another document of this origin changed `localStorage`.
            storage(key, oldValue, newValue, url) {
              platformMade();
              g.dispatchEvent(hooks.storageEvent(key, oldValue, newValue, url));
            },
            // The document's stages, each a call of its own from native code, so that what one
            // stage's listeners queued (an `await` in a `DOMContentLoaded` listener) runs before
            // the next, as each is a task of its own in a browser: `"interactive"` once parsed
            // (before its deferred and module scripts), `"contentLoaded"` after them, `"load"`.
            // Events nothing listens for are not made (every navigation runs this, cold); those
            // listened for are `Event`s as WebKit makes them (`DOMContentLoaded` bubbles from the
            // document to the window; `load` and `pageshow` are the window's, their target the
            // document).
            finish(stage) {
              const times = hooks.times, now = () => native.platform("now");
              const made = (type, bubbles = false) => { platformMade(); return hooks.trustedEvent(type, bubbles); };
              if (readyState === "loading") {
                times.interactive = now();
                readyState = "interactive";
                if (hasListeners(document, "readystatechange")) document.dispatchEvent(made("readystatechange"));
              }
              if (stage === "contentLoaded" || (stage === "load" && times.contentLoaded === 0)) {
                if (hasListeners(document, "DOMContentLoaded") || hasListeners(g, "DOMContentLoaded")) {
                  const event = made("DOMContentLoaded", true);
                  hooks.bubble(event, [document, g]);
                }
                times.contentLoaded = now();
              }
              if (stage !== "load" || readyState === "complete") return;
              readyState = "complete";
              if (hasListeners(document, "readystatechange")) document.dispatchEvent(made("readystatechange"));
              times.complete = now();
              if (hasListeners(g, "load")) {
                const event = made("load");
                hooks.bubble(event, [g], document);
              }
              times.loaded = now();
              if (hasListeners(g, "pageshow")) {
                platformMade();
                hooks.bubble(hooks.pageTransition("pageshow", false), [g], document);
              }
            },
            // Another window's `postMessage` (``DocumentEnvironment/dispatchMessage``): `id` the
            // window this page opened it came from, `null` for the opener.
            message(wire, origin, id, ends) {
              platformMade();
              const { data, ports, failed } = hooks.received(wire, ends);
              g.dispatchEvent(hooks.message(data, origin, id === null ? openerOf() : windowProxy(id), failed ? "messageerror" : "message", ports));
            },
            // The worker's `Worker` object posted a message (``PageWorker``).
            // A `SharedWorker` connected to this shared worker: `connect`, with its port.
            workerConnect(ends) {
              platformMade();
              const port = hooks.adoptPort(ends[0], ends[1]);
              g.dispatchEvent(hooks.message("", "", port, "connect", [port]));
            },
            workerMessage(wire, ends) {
              platformMade();
              const { data, ports, failed } = hooks.received(wire, ends);
              g.dispatchEvent(hooks.message(data, "", null, failed ? "messageerror" : "message", ports));
            },
            // The document is about to be left (`"beforeunload"`: a navigation its delegate
            // allowed is starting, as WebKit fires it; nothing asks to stay, the page having no
            // user's gesture), or is being replaced: `pagehide` (not kept for going back: a
            // headless page caches no document), `visibilitychange` and `unload`. Each only to
            // listeners it has, as the `Event`s WebKit makes; from `pagehide` on it starts no
            // navigation and opens no window.
            leave(stage) {
              if (stage === "beforeunload") {
                if (!hasListeners(g, "beforeunload")) return;
                platformMade();
                hooks.bubble(hooks.beforeUnload(), [g], document);
                return;
              }
              leaving = true;
              if (hasListeners(g, "pagehide")) { platformMade(); hooks.bubble(hooks.pageTransition("pagehide", false), [g], document); }
              if (hasListeners(document, "visibilitychange") || hasListeners(g, "visibilitychange")) {
                platformMade();
                hooks.bubble(hooks.trustedEvent("visibilitychange", true), [document, g]);
              }
              if (hasListeners(g, "unload")) { platformMade(); hooks.bubble(hooks.trustedEvent("unload", false), [g], document); }
            },
            // Runs the page APIs' code that every document runs (its load events' dispatch)
            // or most do (fetch), once, before any script of the document: their first calls
            // in a fresh global object link their code and fill its property caches for these
            // very objects, which the document would otherwise pay on its navigation's path.
            // The events have a type of their own and no listener yet; the request is aborted
            // before it reaches native code; every promise is handled.
            warmUp() {
              document.dispatchEvent({ type: "sessionbridge-warm-up", target: document });
              g.dispatchEvent({ type: "sessionbridge-warm-up", target: g });
              const headers = new Headers({ accept: "*/*" });
              headers.append("accept", "text/html"); headers.get("accept"); headers.has("accept"); [...headers];
              then.call(new Response("{}", { headers: [["content-type", "application/json"]] }).json(), undefined, () => {});
              then.call(fetch("", { signal: { aborted: true } }), undefined, () => {});
            },
          };
        })
        """#
}
