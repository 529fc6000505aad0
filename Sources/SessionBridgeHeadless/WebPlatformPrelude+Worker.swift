extension WebPlatformPrelude {
    /// `Worker` (HTML's dedicated workers), a window's: the worker's script, from the
    /// document's origin or a `blob:` URL it made, runs in a global scope of its own on a thread
    /// of its own (``PageWorker``). Messages cross both ways as structured clones, in the
    /// order they were posted; an error the worker's own listeners leave uncancelled reaches
    /// the `Worker` as an `ErrorEvent`, and a script that cannot be loaded as an `error` event.
    ///
    /// Made with the members fewer pages use (``source``'s `late()`).
    static let workerSource = #"""
          // The document's workers, by the id native code gave each.
          const workers = new Map();
          // A worker's script as its constructor is given it: `[url, source, name, type]`. A
          // `blob:` URL's text is the document's to give (its registry is here); a `data:` URL's
          // runs with an opaque origin; another origin's script is refused.
          const workerScript = (scriptURL, options) => {
            const asked = options === undefined || options === null ? {} : options;
            const type = asked.type === undefined ? "classic" : String(asked.type);
            if (type !== "classic" && type !== "module") throw new TypeError(`Worker: '${type}' is not a valid value for type.`);
            const name = asked.name === undefined ? "" : String(asked.name);
            let url;
            try { url = new URL(String(scriptURL), hooks.base()); } catch { throw new DOMException(`'${String(scriptURL)}' is not a valid URL.`, "SyntaxError"); }
            let source = null;
            if (url.protocol === "blob:" || url.protocol === "data:") {
              const made = url.protocol === "blob:" ? hooks.blobURL(url.href) : hooks.dataURL(url.href);
              if (made !== null) source = new TextDecoder().decode(made.bytes);
            } else if (url.origin !== hooks.origin()) {
              throw new DOMException("The operation is insecure.", "SecurityError");
            }
            return [url.href, source, name, type];
          };
          let receiveWorker;
          class Worker extends EventTarget {
            #id = 0; #handlers = { message: null, messageerror: null, error: null };
            constructor(scriptURL, options = undefined) {
              if (arguments.length < 1) throw notEnough("Worker", 1);
              const [url, source, name, type] = workerScript(scriptURL, options);
              super();
              this.#id = native.startWorker(receiveWorker, url, source, name, type);
              workers.set(this.#id, this);
            }
            postMessage(message, transfer = undefined) {
              if (arguments.length < 1) throw notEnough("Worker.postMessage", 1);
              native.postToWorker(this.#id, ...hooks.sendable(message, transfer));
            }
            terminate() {
              workers.delete(this.#id);
              native.terminateWorker(this.#id);
            }
            get onmessage() { return this.#handlers.message; }
            set onmessage(value) { replaceHandler(this, this.#handlers, "message", value); }
            get onmessageerror() { return this.#handlers.messageerror; }
            set onmessageerror(value) { replaceHandler(this, this.#handlers, "messageerror", value); }
            get onerror() { return this.#handlers.error; }
            set onerror(value) { replaceHandler(this, this.#handlers, "error", value); }
          }
          define(Worker.prototype, Symbol.toStringTag, { value: "Worker", configurable: true });
          // A shared worker: the one its origin, URL, type and name name, started if none runs;
          // `port` is entangled with the port its `connect` event gives the worker.
          class SharedWorker extends EventTarget {
            #port; #handlers = { error: null };
            constructor(scriptURL, options = undefined) {
              if (arguments.length < 1) throw notEnough("SharedWorker", 1);
              const [url, source, name, type] = workerScript(scriptURL, typeof options === "string" ? { name: options } : options);
              super();
              const [id, pipe] = native.startSharedWorker(receiveWorker, url, source, name, type);
              this.#port = hooks.adoptPort(pipe, 0);
              workers.set(id, this);
            }
            get port() { return this.#port; }
            get onerror() { return this.#handlers.error; }
            set onerror(value) { replaceHandler(this, this.#handlers, "error", value); }
          }
          define(SharedWorker.prototype, Symbol.toStringTag, { value: "SharedWorker", configurable: true });
          // What a worker tells its `Worker` (``DocumentEnvironment/dispatchWorkerEvent``).
          // `first` a message's wire text or an error's message; `second` the message's ports'
          // ends or the error's file.
          receiveWorker = (id, kind, first, second, lineno, colno) => {
            const worker = workers.get(id);
            if (worker === undefined) return;
            if (kind === "message") {
              const { data, ports, failed } = hooks.received(first, second);
              worker.dispatchEvent(trusted(new MessageEvent(failed ? "messageerror" : "message", { data, origin: "", ports })));
            } else if (kind === "error") {
              worker.dispatchEvent(trusted(new ErrorEvent("error", { message: first, filename: second, lineno, colno, cancelable: true })));
            } else {
              worker.dispatchEvent(trusted(new Event("error")));
            }
          };
        """#
}
