extension WebPlatformPrelude {
    /// `XMLHttpRequest` and `ProgressEvent` (XHR Standard), part of ``source``, over the
    /// document's own fetch (`native.fetch`): the same cookies, rules and events a `fetch` has.
    /// Requests are asynchronous only (a synchronous `open` throws an `InvalidAccessError`, as it
    /// would block the page's thread). A `data:` URL is read in the page, as `fetch` reads one.
    /// A body sent may be text, `URLSearchParams`, bytes, a `Blob` or a `FormData`; a response
    /// that is not UTF-8 keeps its bytes for `responseType` `"arraybuffer"` and `"blob"`, and
    /// `"document"` gives `null`. `upload` exists and sends no events.
    static let xhrSource = #"""
          class ProgressEvent extends Event {
            #lengthComputable; #loaded; #total;
            constructor(type, init = undefined) {
              if (arguments.length < 1) throw notEnough("ProgressEvent", 1);
              super(type, init);
              this.#lengthComputable = !!(init && init.lengthComputable);
              this.#loaded = init && init.loaded !== undefined ? Number(init.loaded) : 0;
              this.#total = init && init.total !== undefined ? Number(init.total) : 0;
            }
            get lengthComputable() { return this.#lengthComputable; }
            get loaded() { return this.#loaded; }
            get total() { return this.#total; }
          }
          define(ProgressEvent.prototype, Symbol.toStringTag, { value: "ProgressEvent", configurable: true });

          const progressTypes = ["loadstart", "progress", "abort", "error", "load", "timeout", "loadend"];
          // The `on…` attributes of a target: each a listener added when set, removed when replaced.
          const handlerAttributes = (prototype, types) => {
            for (const type of types) {
              const handlers = new WeakMap();
              define(prototype, `on${type}`, {
                get() { return handlers.get(this) ?? null; },
                set(value) {
                  const old = handlers.get(this);
                  if (old) this.removeEventListener(type, old);
                  if (typeof value === "function" || (value !== null && typeof value === "object")) {
                    handlers.set(this, value);
                    this.addEventListener(type, value);
                  } else handlers.delete(this);
                },
                enumerable: true, configurable: true,
              });
            }
          };
          // Neither is made by a page (`Illegal constructor`): a request makes its own `upload`.
          let makingUpload = false;
          class XMLHttpRequestEventTarget extends EventTarget {
            constructor() {
              if (new.target === XMLHttpRequestEventTarget || (new.target === XMLHttpRequestUpload && !makingUpload)) throw new TypeError("Illegal constructor");
              super();
            }
          }
          handlerAttributes(XMLHttpRequestEventTarget.prototype, progressTypes);
          class XMLHttpRequestUpload extends XMLHttpRequestEventTarget {}
          const makeUpload = () => { makingUpload = true; try { return new XMLHttpRequestUpload(); } finally { makingUpload = false; } };

          const tokenPattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
          const forbiddenMethods = ["CONNECT", "TRACE", "TRACK"];
          const startTimer = g.setTimeout, stopTimer = g.clearTimeout;
          const UNSENT = 0, OPENED = 1, HEADERS_RECEIVED = 2, LOADING = 3, DONE = 4;
          class XMLHttpRequest extends XMLHttpRequestEventTarget {
            #state = UNSENT; #sent = false; #method = "GET"; #url = ""; #headers = []; #timeout = 0; #credentials = false;
            #responseType = ""; #response = null; #generation = 0; #timer; #upload = null; #ticket = null; #override = null;
            constructor() { super(); }
            get readyState() { return this.#state; }
            get upload() { return this.#upload ??= makeUpload(); }
            get timeout() { return this.#timeout; }
            set timeout(value) { this.#timeout = Number(value) >>> 0; }
            get withCredentials() { return this.#credentials; }
            set withCredentials(value) {
              if ((this.#state !== UNSENT && this.#state !== OPENED) || this.#sent) throw new DOMException("withCredentials can only be set before send().", "InvalidStateError");
              this.#credentials = !!value;
            }
            get responseType() { return this.#responseType; }
            set responseType(value) {
              const type = String(value);
              if (!["", "arraybuffer", "blob", "document", "json", "text"].includes(type)) return;
              if (this.#state === LOADING || this.#state === DONE) throw new DOMException("responseType cannot be set once loading.", "InvalidStateError");
              this.#responseType = type;
            }
            get status() { return this.#response ? this.#response.status : 0; }
            get statusText() { return this.#response ? this.#response.statusText : ""; }
            get responseURL() { return this.#response ? this.#response.url.replace(/#.*$/, "") : ""; }
            get responseText() {
              if (this.#responseType !== "" && this.#responseType !== "text") throw new DOMException("responseText needs a responseType of '' or 'text'.", "InvalidStateError");
              return (this.#state === LOADING || this.#state === DONE) && this.#response ? this.#response.text : "";
            }
            get response() {
              if (this.#responseType === "" || this.#responseType === "text") return this.responseText;
              if (this.#state !== DONE || !this.#response) return null;
              const body = this.#response.body;
              if (this.#responseType === "json") { try { return JSON.parse(body); } catch { return null; } }
              if (this.#responseType === "arraybuffer") return this.#response.bytes !== undefined ? this.#response.bytes.slice().buffer : encode(body).buffer;
              if (this.#responseType === "blob") {
                const type = this.#response.headers.find(([key]) => key === "content-type");
                return hooks.makeBlob(this.#response.bytes !== undefined ? this.#response.bytes : encode(body), type ? type[1] : "");
              }
              return null;
            }
            get responseXML() { return null; }
            open(method, url, async = true, username = undefined, password = undefined) {
              if (arguments.length < 2) throw notEnough("XMLHttpRequest.open", 2);
              method = String(method);
              if (!tokenPattern.test(method)) throw new DOMException(`'${method}' is not a valid HTTP method.`, "SyntaxError");
              const upper = method.toUpperCase();
              if (forbiddenMethods.includes(upper)) throw new DOMException(`'${method}' HTTP method is unsupported.`, "SecurityError");
              let resolved;
              try { resolved = native.resolve(String(url)); } catch { throw new DOMException(`'${url}' is not a valid URL.`, "SyntaxError"); }
              if (arguments.length > 2 && !async) {
                throw new DOMException("Synchronous XMLHttpRequest is not supported on headless pages.", "InvalidAccessError");
              }
              this.#abortFetch();
              this.#sent = false;
              this.#method = ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"].includes(upper) ? upper : method;
              this.#url = resolved;
              this.#headers = [];
              this.#response = null;
              if (this.#state !== OPENED) { this.#state = OPENED; this.#fire("readystatechange"); }
            }
            setRequestHeader(name, value) {
              if (arguments.length < 2) throw notEnough("XMLHttpRequest.setRequestHeader", 2);
              if (this.#state !== OPENED || this.#sent) throw new DOMException("setRequestHeader needs an opened request not yet sent.", "InvalidStateError");
              name = String(name);
              value = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
              if (!tokenPattern.test(name)) throw new DOMException(`'${name}' is not a valid HTTP header name.`, "SyntaxError");
              if (/[\0\r\n]/.test(value)) throw new DOMException(`The value of ${name} is not a valid HTTP header value.`, "SyntaxError");
              const lower = name.toLowerCase();
              const existing = this.#headers.find(([key]) => key === lower);
              if (existing) existing[1] += `, ${value}`;
              else this.#headers.push([lower, value]);
            }
            send(body = null) {
              if (this.#state !== OPENED || this.#sent) throw new DOMException("send needs an opened request not yet sent.", "InvalidStateError");
              if (this.#method === "GET" || this.#method === "HEAD") body = null;
              let payload = null, type = null;
              if (body !== null && body !== undefined) {
                const platformBody = hooks.body(body);
                if (platformBody !== undefined) { payload = platformBody.body; type = platformBody.type; }
                else if (body instanceof URLSearchParams) { payload = body.toString(); type = "application/x-www-form-urlencoded;charset=UTF-8"; }
                else if (isView(body) || body instanceof ArrayBuffer) payload = byteSource(body, "XMLHttpRequest.send").slice();
                else { payload = String(body); type = "text/plain;charset=UTF-8"; }
              }
              if (type !== null && !this.#headers.some(([key]) => key === "content-type")) this.#headers.push(["content-type", type]);
              this.#sent = true;
              const generation = ++this.#generation;
              this.#progress("loadstart", 0, 0, false);
              if (this.#generation !== generation || !this.#sent) return;
              // A `data:` URL is read here, whatever the method, and answered in a task of its
              // own, as WebKit answers it; a malformed one is a network error.
              // A blob URL is read here too, for GET only.
              const blob = /^blob:/i.test(this.#url);
              if (blob || /^data:/i.test(this.#url) && hooks.dataURL) {
                // The document's Content Security Policy decides these too (`connect-src`).
                const refused = native.connectRefused(this.#url);
                const data = refused ? null : !blob ? hooks.dataURL(this.#url) : this.#method === "GET" ? hooks.blobURL(this.#url) : null;
                startTimer(() => {
                  if (data === null) this.#fail("error", generation);
                  else this.#received({ status: 200, statusText: "OK", url: data.url, headers: [["content-type", data.type]],
                    body: data.bytes, text: text(decodeUTF8(data.bytes, false, false)[0]), length: data.bytes.length }, generation);
                }, 0);
                return;
              }
              let started;
              const ticket = { __proto__: null };
              this.#ticket = ticket;
              try { started = native.fetch(this.#url, this.#method, this.#headers.map(pair => [...pair]), payload, this.#credentials ? "include" : "same-origin", "follow", false, "cors", "XMLHttpRequest", undefined, undefined, undefined, undefined, ticket); }
              catch { startTimer(() => this.#fail("error", generation), 0); return; }
              if (this.#timeout > 0) this.#timer = startTimer(() => this.#fail("timeout", generation), this.#timeout);
              started.then(response => this.#received(response, generation), () => this.#fail("error", generation));
            }
            abort() {
              this.#abortFetch();
              if ((this.#state === OPENED && this.#sent) || this.#state === HEADERS_RECEIVED || this.#state === LOADING) this.#fail("abort", this.#generation);
              if (this.#state === DONE) { this.#state = UNSENT; this.#response = null; }
            }
            getResponseHeader(name) {
              if (arguments.length < 1) throw notEnough("XMLHttpRequest.getResponseHeader", 1);
              if (!this.#response || this.#state < HEADERS_RECEIVED) return null;
              const lower = String(name).toLowerCase();
              const values = this.#response.headers.filter(([key]) => key === lower).map(([, value]) => value);
              return values.length > 0 ? values.join(", ") : null;
            }
            getAllResponseHeaders() {
              if (!this.#response || this.#state < HEADERS_RECEIVED) return "";
              const combined = new Map();
              for (const [key, value] of this.#response.headers) combined.set(key, combined.has(key) ? `${combined.get(key)}, ${value}` : value);
              return [...combined.keys()].sort().map(key => `${key}: ${combined.get(key)}\r\n`).join("");
            }
            overrideMimeType(mime) {
              if (this.#state === LOADING || this.#state === DONE) throw new DOMException("overrideMimeType cannot be called once loading.", "InvalidStateError");
              this.#override = String(mime);
            }
            #abortFetch() {
              this.#generation++;
              // As in WebKit, the load itself is cancelled (an abort, a timeout, a new `open`).
              if (this.#ticket !== null) { native.cancelFetch(this.#ticket.id); this.#ticket = null; }
              if (this.#timer !== undefined) { stopTimer(this.#timer); this.#timer = undefined; }
            }
            #fire(type) { this.dispatchEvent(new Event(type)); }
            #progress(type, loaded, total, computable) { this.dispatchEvent(new ProgressEvent(type, { loaded, total, lengthComputable: computable })); }
            #received(response, generation) {
              if (this.#generation !== generation) return;
              if (this.#timer !== undefined) { stopTimer(this.#timer); this.#timer = undefined; }
              // A body that is not UTF-8 came as bytes, with its decoded text beside them.
              const bytes = typeof response.body === "string" ? undefined : response.body;
              const body = bytes === undefined ? response.body : response.text;
              // The text is decoded by the charset `overrideMimeType` or the response's
              // `Content-Type` names (UTF-8 without one), as XHR's text decoding is in WebKit;
              // `json` reads UTF-8 whatever it says.
              const typeField = response.headers.find(([key]) => key === "content-type");
              const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(this.#override !== null ? this.#override : typeField ? typeField[1] : "");
              let decoder = null;
              if (charset) try { decoder = new TextDecoder(charset[1]); } catch {}
              const decoded = decoder !== null && decoder.encoding !== "utf-8" ? decoder.decode(bytes !== undefined ? bytes : encode(body)) : body;
              this.#response = { status: response.status, statusText: response.statusText, url: response.url, headers: response.headers,
                body, text: decoded, bytes };
              const length = bytes === undefined ? encode(response.body).length : bytes.length;
              const lengthField = response.headers.find(([key]) => key === "content-length");
              // A `data:` URL's length is known without a header. A length of 0 is not computable
              // (the XHR Standard's progress events; WebKit's too), nor is a compressed body's,
              // whose field counts bytes before they were decoded.
              const encoded = response.headers.some(([key, value]) => key === "content-encoding" && value !== "identity");
              const declared = encoded ? NaN : lengthField ? Number(lengthField[1]) : response.length !== undefined ? response.length : NaN;
              const computable = Number.isInteger(declared) && declared > 0;
              const total = computable ? declared : 0;
              this.#state = HEADERS_RECEIVED;
              this.#fire("readystatechange");
              if (this.#generation !== generation) return;
              // Loading, and progress, only for a body with bytes in it (as in WebKit).
              if (length > 0) {
                this.#state = LOADING;
                this.#fire("readystatechange");
                if (this.#generation !== generation) return;
                this.#progress("progress", length, total, computable);
                if (this.#generation !== generation) return;
              }
              this.#state = DONE;
              this.#sent = false;
              this.#fire("readystatechange");
              if (this.#generation !== generation) return;
              this.#progress("load", length, total, computable);
              if (this.#generation !== generation) return;
              this.#progress("loadend", length, total, computable);
            }
            // The request error steps: a network error, a timeout or an abort.
            #fail(type, generation) {
              if (this.#generation !== generation) return;
              if (type !== "abort") this.#abortFetch();
              this.#state = DONE;
              this.#sent = false;
              this.#response = null;
              this.#fire("readystatechange");
              this.#progress(type, 0, 0, false);
              this.#progress("loadend", 0, 0, false);
            }
          }
          handlerAttributes(XMLHttpRequest.prototype, ["readystatechange"]);
          for (const [name, value] of [["UNSENT", UNSENT], ["OPENED", OPENED], ["HEADERS_RECEIVED", HEADERS_RECEIVED], ["LOADING", LOADING], ["DONE", DONE]]) {
            define(XMLHttpRequest, name, { value, enumerable: true });
            define(XMLHttpRequest.prototype, name, { value, enumerable: true });
          }
          for (const [target, tag] of [[XMLHttpRequest, "XMLHttpRequest"], [XMLHttpRequestEventTarget, "XMLHttpRequestEventTarget"], [XMLHttpRequestUpload, "XMLHttpRequestUpload"]]) {
            define(target.prototype, Symbol.toStringTag, { value: tag, configurable: true });
          }
        """#
}
