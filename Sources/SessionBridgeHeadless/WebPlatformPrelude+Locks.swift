extension WebPlatformPrelude {
    /// `navigator.locks`, `LockManager` and `Lock` (W3C Web Locks API), part of ``source``: a
    /// request's callback runs, in a task, once its lock is granted (with `null` for an
    /// `ifAvailable` request that could not be), and the lock is released when the promise it
    /// returned settles. The locks themselves are native (``WebLocks``), shared by the pages of
    /// the origin that use the same data store.
    static let locksSource = #"""
          let lockAllowed = false, lockJoined = null, nextLockID = 1;
          // Whether this document has locks at all: it joins the data store's on first use; an
          // opaque origin has none (a `SecurityError`).
          const joinLocks = () => {
            if (lockJoined === null) lockJoined = native.lockJoin(receiveLockNotice) === true;
            if (!lockJoined) throw new DOMException("Web Locks are not available to an opaque origin.", "SecurityError");
          };
          const lockRequests = new Map();
          class Lock {
            #name; #mode;
            constructor(name, mode) {
              if (!lockAllowed) throw new TypeError("Illegal constructor");
              this.#name = name; this.#mode = mode;
            }
            get name() { return this.#name; }
            get mode() { return this.#mode; }
          }
          define(Lock.prototype, Symbol.toStringTag, { value: "Lock", configurable: true });
          const makeLock = (name, mode) => {
            lockAllowed = true;
            try { return new Lock(name, mode); } finally { lockAllowed = false; }
          };
          // Runs a request's callback with its lock (or `null`); its promise follows the
          // callback's, and the lock is released when that settles.
          const runLockCallback = (id, granted) => {
            const request = lockRequests.get(id);
            if (request === undefined) return;
            const release = () => {
              lockRequests.delete(id);
              if (granted && !request.stolen) native.lockRelease(id);
            };
            let result;
            try { result = request.callback.call(undefined, granted ? makeLock(request.name, request.mode) : null); } catch (error) {
              release();
              request.reject(error);
              return;
            }
            Promise.resolve(result).then(value => { release(); request.resolve(value); }, error => { release(); request.reject(error); });
          };
          const receiveLockNotice = (kind, id) => {
            const request = lockRequests.get(id);
            if (request === undefined) return;
            if (kind === "granted") { setTimeout(() => runLockCallback(id, true), 0); return; }
            request.stolen = true;
            request.reject(new DOMException("Lock broken by another request with the 'steal' option.", "AbortError"));
          };
          let lockManagerAllowed = false;
          class LockManager {
            constructor() { if (!lockManagerAllowed) throw new TypeError("Illegal constructor"); }
            request(name, options, callback = undefined) {
              if (arguments.length < 2) return Promise.reject(notEnough("LockManager.request", 2));
              if (callback === undefined) { callback = options; options = undefined; }
              try {
                if (typeof callback !== "function") throw new TypeError("LockManager.request: the callback is not a function");
                joinLocks();
                const text = String(name);
                const mode = options && options.mode !== undefined ? String(options.mode) : "exclusive";
                if (mode !== "exclusive" && mode !== "shared") throw new TypeError(`LockManager.request: '${mode}' is not a lock mode`);
                const ifAvailable = !!(options && options.ifAvailable), steal = !!(options && options.steal);
                const signal = options && options.signal !== undefined && options.signal !== null ? options.signal : null;
                if (text.startsWith("-")) throw new DOMException("Lock names starting with '-' are reserved.", "NotSupportedError");
                if (steal && ifAvailable) throw new DOMException("ifAvailable and steal cannot both be set.", "NotSupportedError");
                if (steal && mode !== "exclusive") throw new DOMException("steal requires an exclusive lock.", "NotSupportedError");
                if (signal !== null && (steal || ifAvailable)) throw new DOMException("signal cannot be set with steal or ifAvailable.", "NotSupportedError");
                if (signal !== null && signal.aborted) return Promise.reject(signal.reason);
                const id = nextLockID++;
                return new Promise((resolve, reject) => {
                  lockRequests.set(id, { name: text, mode, callback, resolve, reject, stolen: false });
                  const outcome = native.lockRequest(id, text, mode === "exclusive", ifAvailable, steal);
                  if (outcome === "granted") setTimeout(() => runLockCallback(id, true), 0);
                  else if (outcome === "unavailable") setTimeout(() => runLockCallback(id, false), 0);
                  else if (signal !== null) {
                    signal.addEventListener("abort", () => {
                      if (lockRequests.has(id) && native.lockAbort(id)) { lockRequests.delete(id); reject(signal.reason); }
                    });
                  }
                });
              } catch (error) { return Promise.reject(error); }
            }
            query() {
              try { joinLocks(); } catch (error) { return Promise.reject(error); }
              const [held, pending] = native.lockQuery();
              const info = ([name, exclusive, clientId]) => ({ name, mode: exclusive ? "exclusive" : "shared", clientId });
              return Promise.resolve({ held: held.map(info), pending: pending.map(info) });
            }
          }
          define(LockManager.prototype, Symbol.toStringTag, { value: "LockManager", configurable: true });
          lockManagerAllowed = true;
          const locks = new LockManager();
          lockManagerAllowed = false;
        """#
}
