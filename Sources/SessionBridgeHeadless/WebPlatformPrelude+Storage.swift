extension WebPlatformPrelude {
    /// `localStorage`, `sessionStorage` and `Storage` (HTML's Web Storage), part of ``source``.
    /// The pairs live natively (``WebStorage``: the data store's local areas, the page's session
    /// ones), so every world and every page of an origin sees the same; each call reads or writes
    /// them at once. A `Proxy` gives the named properties WebIDL's legacy platform objects have
    /// (`localStorage.token = "x"`, `Object.keys(localStorage)`, `delete localStorage.token`),
    /// with `Storage.prototype`'s members taking precedence when read. A write past the quota
    /// throws a `QuotaExceededError`; a document without an origin of its own (`about:`,
    /// `data:`, `file:`) gets a `SecurityError` from every call. A change to `localStorage` fires
    /// `storage` at the origin's other pages of the data store (``DocumentPrelude``'s `storage`).
    static let storageSource = #"""
          const storageKinds = new WeakMap(), quota = \#(WebStorage.quota);
          // Native storage keeps well-formed text; a JavaScript string may hold lone surrogates
          // (binary data in a string, as lz-string's `compress` makes), which WebKit keeps as they
          // are. Such a string, and one that starts with the marker, crosses as the marker and
          // its units, each lone surrogate as the escape and a private-use unit, the escape itself
          // as two escapes; every other string crosses as it is.
          const storageMark = "\uFDD0", storageEscape = "\uFDD1", isWellFormed = String.prototype.isWellFormed;
          const storedText = text => {
            if (Reflect.apply(isWellFormed, text, []) && text[0] !== storageMark) return text;
            let out = storageMark;
            for (let i = 0; i < text.length; i++) {
              const unit = text.charCodeAt(i);
              if (unit >= 0xD800 && unit <= 0xDBFF && (text.charCodeAt(i + 1) & 0xFC00) === 0xDC00) { out += text[i] + text[i + 1]; i++; }
              else if (unit >= 0xD800 && unit <= 0xDFFF) out += storageEscape + String.fromCharCode(0xE000 + unit - 0xD800);
              else if (unit === 0xFDD1) out += storageEscape + storageEscape;
              else out += text[i];
            }
            return out;
          };
          const readText = text => {
            if (typeof text !== "string" || text[0] !== storageMark) return text;
            let out = "";
            for (let i = 1; i < text.length; i++) {
              if (text[i] !== storageEscape || i + 1 === text.length) { out += text[i]; continue; }
              const unit = text.charCodeAt(++i);
              out += unit === 0xFDD1 ? storageEscape : String.fromCharCode(0xD800 + unit - 0xE000);
            }
            return out;
          };
          const storageCall = (kind, operation, ...request) => {
            if (operation === "set") request = [storedText(request[0]), storedText(request[1])];
            else if (operation === "get" || operation === "remove") request = [storedText(request[0])];
            let result;
            try { result = native.storage(kind, operation, ...request); }
            catch (error) { throw error.name === "SecurityError" ? new DOMException(error.message, "SecurityError") : error; }
            return operation === "get" || operation === "key" ? readText(result) : operation === "keys" ? result.map(readText) : result;
          };
          const storageKind = object => {
            const kind = storageKinds.get(object);
            if (kind === undefined) throw new TypeError("Illegal invocation");
            return kind;
          };
          const storeItem = (kind, key, value) => {
            const text = `${key}`, valueText = `${value}`;
            // Past the quota however it is counted (a byte a code unit at least): refused before
            // it is copied to native code.
            if (text.length + valueText.length > quota || !storageCall(kind, "set", text, valueText)) {
              throw new DOMException(`Exceeded the quota of ${kind === "local" ? "localStorage" : "sessionStorage"} for this origin.`, "QuotaExceededError");
            }
          };
          class Storage {
            constructor() { throw new TypeError("Illegal constructor"); }
            get length() { return storageCall(storageKind(this), "length"); }
            key(index) {
              if (arguments.length < 1) throw notEnough("Storage.key", 1);
              return storageCall(storageKind(this), "key", Number(index) >>> 0);
            }
            getItem(key) {
              if (arguments.length < 1) throw notEnough("Storage.getItem", 1);
              return storageCall(storageKind(this), "get", `${key}`);
            }
            setItem(key, value) {
              if (arguments.length < 2) throw notEnough("Storage.setItem", 2);
              storeItem(storageKind(this), key, value);
            }
            removeItem(key) {
              if (arguments.length < 1) throw notEnough("Storage.removeItem", 1);
              storageCall(storageKind(this), "remove", `${key}`);
            }
            clear() { storageCall(storageKind(this), "clear"); }
          }
          define(Storage.prototype, Symbol.toStringTag, { value: "Storage", configurable: true });
          // The `storage` event another document's change fires here, and one a page makes (to
          // tell its own listeners, as cross-tab state libraries do).
          class StorageEvent extends Event {
            #key; #oldValue; #newValue; #url; #storageArea;
            constructor(type, init = undefined) {
              if (arguments.length < 1) throw notEnough("StorageEvent", 1);
              super(type, init);
              const member = (name, fallback) => init && init[name] !== undefined ? init[name] : fallback;
              const text = value => value === null ? null : String(value);
              this.#key = text(member("key", null)); this.#oldValue = text(member("oldValue", null));
              this.#newValue = text(member("newValue", null)); this.#url = String(member("url", ""));
              this.#storageArea = member("storageArea", null);
            }
            get key() { return this.#key; }
            get oldValue() { return this.#oldValue; }
            get newValue() { return this.#newValue; }
            get url() { return this.#url; }
            get storageArea() { return this.#storageArea; }
          }
          define(StorageEvent.prototype, Symbol.toStringTag, { value: "StorageEvent", configurable: true });
          hooks.storageEvent = (key, oldValue, newValue, url) => trusted(new StorageEvent("storage", {
            key: readText(key), oldValue: readText(oldValue), newValue: readText(newValue), url, storageArea: localStorage }));
          const makeStorage = kind => {
            const target = Object.create(Storage.prototype);
            // Every stored key is an own property, as in WebKit; reading one of a name the
            // prototype chain has gives the prototype's member.
            const stored = key => typeof key === "string" && storageCall(kind, "get", key) !== null;
            const proxy = new Proxy(target, {
              get(target, key, receiver) {
                if (typeof key === "string" && !(key in target)) {
                  const value = storageCall(kind, "get", key);
                  if (value !== null) return value;
                }
                return Reflect.get(target, key, receiver);
              },
              set(target, key, value, receiver) {
                if (typeof key === "string" && receiver === proxy) { storeItem(kind, key, value); return true; }
                return Reflect.set(target, key, value, receiver);
              },
              has(target, key) { return stored(key) || Reflect.has(target, key); },
              deleteProperty(target, key) {
                if (stored(key)) { storageCall(kind, "remove", key); return true; }
                return Reflect.deleteProperty(target, key);
              },
              ownKeys(target) { return [...storageCall(kind, "keys"), ...Reflect.ownKeys(target)]; },
              getOwnPropertyDescriptor(target, key) {
                if (stored(key)) return { value: storageCall(kind, "get", key), writable: true, enumerable: true, configurable: true };
                return Reflect.getOwnPropertyDescriptor(target, key);
              },
              defineProperty(target, key, descriptor) {
                if (typeof key !== "string") return Reflect.defineProperty(target, key, descriptor);
                if ("get" in descriptor || "set" in descriptor) return false;
                storeItem(kind, key, descriptor.value);
                return true;
              },
              preventExtensions() { return false; },
            });
            storageKinds.set(proxy, kind);
            return proxy;
          };
          const localStorage = makeStorage("local"), sessionStorage = makeStorage("session");
        """#
}
