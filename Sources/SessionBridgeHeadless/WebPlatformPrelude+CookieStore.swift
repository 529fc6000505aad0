extension WebPlatformPrelude {
    /// `cookieStore`, `CookieStore` and `CookieChangeEvent` (the Cookie Store API), part of
    /// ``source``, in a secure context only: the document's cookies as a script sees them
    /// (`document.cookie`'s, without `HttpOnly` ones) as `{name, value}` items; `set` and
    /// `delete` with the API's checks and defaults (`Secure`, `SameSite=Strict`, path `/`, a
    /// given path ending in `/`); a `change` event for each change to a cookie the document
    /// sees, whoever made it (its own writes, a response's `Set-Cookie`, the native session's
    /// refresh), as WebKit fires them. The document watches its jar only once a script listens.
    static let cookieStoreSource = #"""
          let cookieStoreAllowed = false, cookieStore = null;
          class CookieChangeEvent extends Event {
            #changed; #deleted;
            constructor(type, init = undefined) {
              if (arguments.length < 1) throw notEnough("CookieChangeEvent", 1);
              super(type, init);
              this.#changed = Object.freeze(init && init.changed !== undefined ? Array.from(init.changed) : []);
              this.#deleted = Object.freeze(init && init.deleted !== undefined ? Array.from(init.deleted) : []);
            }
            get changed() { return this.#changed; }
            get deleted() { return this.#deleted; }
          }
          define(CookieChangeEvent.prototype, Symbol.toStringTag, { value: "CookieChangeEvent", configurable: true });
          // A cookie name or value may hold no `;` and no control character but tab.
          const cookieTextAllowed = text => !/[\u0000-\u0008\u000A-\u001F\u007F;]/.test(text);
          const hasPrefix = (text, prefix) => text.slice(0, prefix.length).toLowerCase() === prefix;
          const cookieItems = (name, url) => {
            if (url !== undefined) {
              const documentURL = new URL(hooks.href()), asked = new URL(String(url), documentURL);
              documentURL.hash = ""; asked.hash = "";
              if (asked.href !== documentURL.href) throw new TypeError("URL must match the document URL");
            }
            const items = [];
            for (const [itemName, value] of native.cookieStore("list")) {
              if (name === undefined || itemName === name) items.push({ name: itemName, value });
            }
            return items;
          };
          // `(nameOrOptions)` as `get` and `getAll` read it: `[name or undefined, url or undefined]`.
          const cookieQuery = (argument, all) => {
            if (typeof argument !== "object" || argument === null) {
              if (argument === undefined && all) return [undefined, undefined];
              if (argument === undefined || argument === null) throw new TypeError("CookieStoreGetOptions must not be empty");
              return [String(argument), undefined];
            }
            const name = argument.name === undefined ? undefined : String(argument.name);
            const url = argument.url === undefined ? undefined : String(argument.url);
            if (!all && name === undefined && url === undefined) throw new TypeError("CookieStoreGetOptions must not be empty");
            return [name, url];
          };
          const writeCookie = (name, value, options) => {
            if (!cookieTextAllowed(name)) throw new TypeError("The cookie name must not contain ';', '\u007F', or any C0 control character except '\t'.");
            if (!cookieTextAllowed(value)) throw new TypeError("The cookie value must not contain ';', '\u007F', or any C0 control character except '\t'.");
            if (name === "" && value === "") throw new TypeError("The cookie name and value must not both be empty.");
            if (name === "" && value.includes("=")) throw new TypeError("The cookie name and value must not both be set from the 'value' field.");
            if (name === "" && (hasPrefix(value, "__host-") || hasPrefix(value, "__secure-"))) {
              throw new TypeError("A cookie without a name must not have a value beginning with '__Host-' or '__Secure-'.");
            }
            if (new TextEncoder().encode(name + value).length > 4096) throw new TypeError("The cookie name and value must not be longer than 4096 bytes.");
            let domain = null;
            if (options.domain !== undefined && options.domain !== null) {
              domain = String(options.domain);
              if (domain.startsWith(".")) throw new TypeError("The domain must not begin with a '.'");
              const host = new URL(hooks.href()).hostname.toLowerCase(), lower = domain.toLowerCase();
              const isIP = /^[0-9.]+$/.test(host) || host.includes(":");
              if (host !== lower && (isIP || !host.endsWith("." + lower))) throw new TypeError("The domain must domain-match current host");
              if (hasPrefix(name, "__host-")) throw new TypeError("If the cookie name begins with \"__Host-\", the domain must not be specified.");
            }
            let path = "/";
            if (options.path !== undefined && options.path !== null) {
              path = String(options.path);
              if (!path.startsWith("/")) throw new TypeError("The path must begin with a '/'");
              if (!path.endsWith("/")) path += "/";
              if (path !== "/" && hasPrefix(name, "__host-")) {
                throw new TypeError("If the cookie name begins with \"__Host-\", the path must either not be specified or be \"/\".");
              }
            }
            let expires = null;
            if (options.expires !== undefined && options.expires !== null) {
              expires = Number(options.expires);
              if (!Number.isFinite(expires)) throw new TypeError("The provided value is non-finite");
            }
            const sameSite = options.sameSite === undefined ? "strict" : String(options.sameSite);
            if (sameSite !== "strict" && sameSite !== "lax" && sameSite !== "none") throw new TypeError("Type error");
            const refused = native.cookieStore("set", name, value, expires, domain, path, sameSite);
            if (typeof refused === "string") throw new TypeError(refused);
          };
          // Runs `body` and gives what it returns, or throws, as a promise.
          const settled = body => { try { return Promise.resolve(body()); } catch (error) { return Promise.reject(error); } };
          class CookieStore extends EventTarget {
            #handler = null; #watching = false;
            constructor() {
              if (!cookieStoreAllowed) throw new TypeError("Illegal constructor");
              super();
              listenHooks.set(this, type => { if (type === "change") this.#watch(); });
            }
            get onchange() { return this.#handler; }
            set onchange(value) {
              if (this.#handler !== null) super.removeEventListener("change", this.#handler);
              this.#handler = typeof value === "function" ? value : null;
              if (this.#handler !== null) super.addEventListener("change", this.#handler);
            }
            get(nameOrOptions = undefined) {
              const given = arguments.length;
              return settled(() => {
                const [name, url] = cookieQuery(given === 0 ? undefined : nameOrOptions, false);
                const items = cookieItems(name, url);
                return items.length > 0 ? items[0] : null;
              });
            }
            getAll(nameOrOptions = undefined) {
              return settled(() => { const [name, url] = cookieQuery(nameOrOptions, true); return cookieItems(name, url); });
            }
            set(nameOrOptions, value = undefined) {
              const given = arguments.length;
              return settled(() => {
                if (given < 1) throw notEnough("CookieStore.set", 1);
                if (typeof nameOrOptions !== "object" || nameOrOptions === null) {
                  if (given < 2) throw new TypeError("Type error");
                  writeCookie(String(nameOrOptions), String(value), {});
                } else {
                  if (nameOrOptions.name === undefined || nameOrOptions.value === undefined) throw new TypeError("Type error");
                  writeCookie(String(nameOrOptions.name), String(nameOrOptions.value), nameOrOptions);
                }
              });
            }
            delete(nameOrOptions) {
              const given = arguments.length;
              return settled(() => {
                if (given < 1) throw new TypeError("Not enough arguments");
                const options = typeof nameOrOptions === "object" && nameOrOptions !== null ? nameOrOptions : { name: nameOrOptions };
                if (options.name === undefined) throw new TypeError("Type error");
                // A deletion is a write of an empty value that expired at the epoch.
                writeCookie(String(options.name), "", { domain: options.domain, path: options.path, expires: 0 });
              });
            }
            #watch() {
              if (this.#watching) return;
              this.#watching = true;
              native.cookieStore("watch", (kind, name, value) => {
                const item = kind === "changed" ? { name, value } : { name };
                this.dispatchEvent(trusted(new CookieChangeEvent("change", kind === "changed" ? { changed: [item] } : { deleted: [item] })));
              });
            }
          }
          define(CookieStore.prototype, Symbol.toStringTag, { value: "CookieStore", configurable: true });
          if (secure) {
            cookieStoreAllowed = true;
            try { cookieStore = new CookieStore(); } finally { cookieStoreAllowed = false; }
          }
        """#
}
