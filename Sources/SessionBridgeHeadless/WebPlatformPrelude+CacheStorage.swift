import SessionBridgeScriptEngine

extension WebPlatformPrelude {
    /// `caches`, `CacheStorage` and `Cache` (the Service Workers standard's Cache API), in a
    /// secure context, windows' and workers' alike: named caches of request–response pairs kept
    /// natively per origin (``CacheStorages``), shared by the data store's pages, as an app's
    /// `caches.keys()` and `caches.delete()` on sign-out find them.
    ///
    /// Made apart, on a script's first read of `caches`, `CacheStorage` or `Cache`
    /// (`native.platform("caches")`), with the page's own `fetch`, `Request` and `Response`
    /// (not the globals a page may have replaced). Requests match as the standard matches them:
    /// their URLs without the fragment (and without the query with `ignoreSearch`), `GET` unless
    /// `ignoreMethod`, and the request fields a response's `Vary` names unless `ignoreVary`.
    /// A `Cache` whose cache was deleted goes on with its pairs, as in WebKit, while the store
    /// keeps them (``CacheStorages``).
    static let cacheStorageScript = ScriptSource(cacheStorageSource, sourceURL: "sessionbridge://prelude/caches.js")

    static let cacheStorageSource = #"""
        (function (parts) {
          "use strict";
          const { native, define, notEnough, DOMException, fetch, Request, Response, Headers, receivedResponse } = parts;
          const call = (...request) => native.caches(...request);
          const PromiseCtor = Promise, all = Promise.all.bind(Promise), URLCtor = URL;
          const cacheIDs = new WeakMap();
          const requestOf = input => input instanceof Request ? input : new Request(input);
          const flag = (options, name) => options !== undefined && options !== null && !!options[name];
          const withoutFragment = url => { const at = url.indexOf("#"); return at < 0 ? url : url.slice(0, at); };
          const withoutQuery = url => { const parsed = new URLCtor(url); parsed.search = ""; parsed.hash = ""; return parsed.href; };
          const field = (pairs, name) => {
            const values = pairs.filter(([key]) => key === name).map(([, value]) => value);
            return values.length > 0 ? values.join(", ") : null;
          };
          const varied = pairs => (field(pairs, "vary") || "").split(",").map(name => name.trim().toLowerCase()).filter(name => name !== "");
          // A head as kept natively: [id, url, method, request fields, status, statusText, type, response fields, redirected, response URL].
          const matches = (request, head, options) => {
            const url = flag(options, "ignoreSearch") ? withoutQuery : withoutFragment;
            if (url(request.url) !== url(head[1])) return false;
            if (flag(options, "ignoreVary")) return true;
            for (const name of varied(head[7])) {
              if (name === "*" || request.headers.get(name) !== field(head[3], name)) return false;
            }
            return true;
          };
          const idOf = cache => {
            const id = cacheIDs.get(cache);
            if (id === undefined) throw new TypeError("Illegal invocation");
            return id;
          };
          const headsOf = id => {
            const heads = call("heads", id);
            if (heads === null) throw new DOMException("The cache was deleted and is no longer kept.", "InvalidStateError");
            return heads;
          };
          // The heads of `id`'s pairs `request` matches (all of them without one).
          const query = (id, request, options) => {
            const heads = headsOf(id);
            if (request === undefined) return heads;
            request = requestOf(request);
            if (!flag(options, "ignoreMethod") && request.method !== "GET") return [];
            return heads.filter(head => matches(request, head, options));
          };
          const responseOf = (id, head) => {
            const body = call("body", id, head[0]);
            return receivedResponse(head[4] === 0 || body === null ? null : body, {
              status: head[4], statusText: head[5], type: head[6], headers: head[7], redirected: head[8], url: head[9] });
          };
          const checkedRequest = request => {
            request = requestOf(request);
            const scheme = new URLCtor(request.url).protocol;
            if (scheme !== "http:" && scheme !== "https:") throw new TypeError("Request url is not HTTP/HTTPS");
            if (request.method !== "GET") throw new TypeError("Request method is not GET");
            return request;
          };
          const checkedResponse = response => {
            if (!(response instanceof Response)) throw new TypeError("Argument 2 ('response') to Cache.put must be an instance of Response");
            if (response.status === 206) throw new TypeError("Response is a 206 partial");
            if (varied([...response.headers]).includes("*")) throw new TypeError("Response has a '*' Vary header value");
            if (response.bodyUsed) throw new TypeError("Response is disturbed or locked");
            return response;
          };
          // Stores the pairs, each replacing the pairs its request matches, all or none.
          const store = async (id, pairs) => {
            const heads = headsOf(id), removing = [], adding = [];
            for (const [request, response] of pairs) {
              const body = new Uint8Array(await response.arrayBuffer());
              for (const head of heads) if (matches(request, head, undefined)) removing.push(head[0]);
              adding.push([[request.url, request.method, [...request.headers], response.status, response.statusText, response.type,
                [...response.headers], response.redirected, response.url], body]);
            }
            const outcome = call("change", id, removing, adding);
            if (outcome === "gone") throw new DOMException("The cache was deleted and is no longer kept.", "InvalidStateError");
            if (outcome === "quota") throw new DOMException("Exceeded the quota of Cache Storage for this origin.", "QuotaExceededError");
          };
          const addAll = async (id, requests) => {
            const list = [...requests].map(checkedRequest);
            const responses = await all(list.map(request => fetch(request)));
            for (const response of responses) {
              if (!response.ok) throw new TypeError("Response is not OK");
              checkedResponse(response);
            }
            await store(id, list.map((request, index) => [request, responses[index]]));
          };
          class Cache {
            constructor() { throw new TypeError("Illegal constructor"); }
            async match(request, options = undefined) {
              if (arguments.length < 1) throw notEnough("Cache.match", 1);
              const id = idOf(this), [head] = query(id, request, options);
              return head === undefined ? undefined : responseOf(id, head);
            }
            async matchAll(request = undefined, options = undefined) {
              const id = idOf(this);
              return query(id, request, options).map(head => responseOf(id, head));
            }
            async add(request) {
              if (arguments.length < 1) throw notEnough("Cache.add", 1);
              await addAll(idOf(this), [request]);
            }
            async addAll(requests) {
              if (arguments.length < 1) throw notEnough("Cache.addAll", 1);
              await addAll(idOf(this), requests);
            }
            async put(request, response) {
              if (arguments.length < 2) throw notEnough("Cache.put", 2);
              const id = idOf(this);
              await store(id, [[checkedRequest(request), checkedResponse(response)]]);
            }
            async delete(request, options = undefined) {
              if (arguments.length < 1) throw notEnough("Cache.delete", 1);
              const id = idOf(this), found = query(id, request, options);
              if (found.length === 0) return false;
              if (call("change", id, found.map(head => head[0]), []) === "gone") throw new DOMException("The cache was deleted and is no longer kept.", "InvalidStateError");
              return true;
            }
            async keys(request = undefined, options = undefined) {
              return query(idOf(this), request, options).map(head => new Request(head[1], { method: head[2], headers: head[3] }));
            }
          }
          define(Cache.prototype, Symbol.toStringTag, { value: "Cache", configurable: true });
          const cacheOf = id => {
            const cache = Object.create(Cache.prototype);
            cacheIDs.set(cache, id);
            return cache;
          };
          let instance = null;
          class CacheStorage {
            constructor() { throw new TypeError("Illegal constructor"); }
            async open(name) {
              if (arguments.length < 1) throw notEnough("CacheStorage.open", 1);
              self(this);
              return cacheOf(call("id", String(name), true));
            }
            async has(name) {
              if (arguments.length < 1) throw notEnough("CacheStorage.has", 1);
              self(this);
              return call("id", String(name), false) !== null;
            }
            async delete(name) {
              if (arguments.length < 1) throw notEnough("CacheStorage.delete", 1);
              self(this);
              return call("delete", String(name));
            }
            async keys() { self(this); return call("names"); }
            async match(request, options = undefined) {
              if (arguments.length < 1) throw notEnough("CacheStorage.match", 1);
              self(this);
              const named = options !== undefined && options !== null && options.cacheName !== undefined;
              for (const name of named ? [String(options.cacheName)] : call("names")) {
                const id = call("id", name, false);
                if (id === null) continue;
                const [head] = query(id, request, options);
                if (head !== undefined) return responseOf(id, head);
              }
              return undefined;
            }
          }
          define(CacheStorage.prototype, Symbol.toStringTag, { value: "CacheStorage", configurable: true });
          const self = value => { if (value !== instance) throw new TypeError("Illegal invocation"); };
          instance = Object.create(CacheStorage.prototype);
          return { caches: instance, CacheStorage, Cache };
        })
        """#
}
