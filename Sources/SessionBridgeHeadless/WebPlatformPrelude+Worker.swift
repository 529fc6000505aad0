extension WebPlatformPrelude {
    /// `Worker` (HTML's dedicated workers), a window's: the worker's script, from the
    /// document's origin or a `blob:` URL it made, runs in a global scope of its own on a thread
    /// of its own (``DedicatedWorker``). Messages cross both ways as structured clones, in the
    /// order they were posted; an error the worker's own listeners leave uncancelled reaches
    /// the `Worker` as an `ErrorEvent`, and a script that cannot be loaded as an `error` event.
    ///
    /// Made with the members fewer pages use (``source``'s `late()`).
    static let workerSource = #"""
          // The document's workers, by the id native code gave each.
          const workers = new Map();
          let receiveWorker;
          class Worker extends EventTarget {
            #id = 0; #handlers = { message: null, messageerror: null, error: null };
            constructor(scriptURL, options = undefined) {
              if (arguments.length < 1) throw notEnough("Worker", 1);
              const asked = options === undefined || options === null ? {} : options;
              const type = asked.type === undefined ? "classic" : String(asked.type);
              if (type !== "classic" && type !== "module") throw new TypeError(`Worker: '${type}' is not a valid value for type.`);
              const name = asked.name === undefined ? "" : String(asked.name);
              let url;
              try { url = new URL(String(scriptURL), hooks.base()); } catch { throw new DOMException(`'${String(scriptURL)}' is not a valid URL.`, "SyntaxError"); }
              // A `blob:` URL's text is the document's to give (its registry is here); a `data:`
              // URL's runs with an opaque origin.
              let source = null;
              if (url.protocol === "blob:" || url.protocol === "data:") {
                const made = url.protocol === "blob:" ? hooks.blobURL(url.href) : hooks.dataURL(url.href);
                if (made !== null) source = new TextDecoder().decode(made.bytes);
              } else if (url.origin !== hooks.origin()) {
                throw new DOMException("The operation is insecure.", "SecurityError");
              }
              super();
              this.#id = native.startWorker(receiveWorker, url.href, source, name, type);
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
