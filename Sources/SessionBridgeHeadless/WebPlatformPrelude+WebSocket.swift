extension WebPlatformPrelude {
    /// `WebSocket` and `CloseEvent` (WHATWG WebSockets), part of ``source``, over native
    /// connections (``WebSocketConnection``) whose opening handshake carries the page's cookies
    /// for the URL and its origin: `open`, `message` (text, or bytes as a `Blob` or an
    /// `ArrayBuffer` by `binaryType`), `error` and `close`, in a task each, with their handler
    /// attributes; `protocol` is the subprotocol the server chose. A secure document's `ws:` socket
    /// is blocked as mixed content.
    static let webSocketSource = #"""
          class CloseEvent extends Event {
            #wasClean; #code; #reason;
            constructor(type, init = undefined) {
              if (arguments.length < 1) throw notEnough("CloseEvent", 1);
              super(type, init);
              this.#wasClean = !!(init && init.wasClean);
              this.#code = init && init.code !== undefined ? Number(init.code) & 0xFFFF : 0;
              this.#reason = init && init.reason !== undefined ? String(init.reason) : "";
            }
            get wasClean() { return this.#wasClean; }
            get code() { return this.#code; }
            get reason() { return this.#reason; }
          }
          define(CloseEvent.prototype, Symbol.toStringTag, { value: "CloseEvent", configurable: true });
          const CONNECTING = 0, OPEN = 1, CLOSING = 2, CLOSED = 3;
          // A subprotocol is an HTTP token (RFC 9110).
          const isToken = text => /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(text);
          const sockets = new Map();
          let deliverToSocket;
          // What native code tells of connection `id` (``DocumentEnvironment/dispatchWebSocket``).
          const receiveSocketEvent = (id, kind, ...rest) => {
            const socket = sockets.get(id);
            if (socket !== undefined) deliverToSocket(socket, kind, rest);
          };
          class WebSocket extends EventTarget {
            #id = 0; #url; #origin; #protocol = ""; #state = CONNECTING; #binaryType = "blob"; #buffered = 0;
            #handlers = { open: null, message: null, error: null, close: null };
            constructor(url, protocols = undefined) {
              if (arguments.length < 1) throw notEnough("WebSocket", 1);
              super();
              let parsed;
              // WebKit's one message for every refused URL or subprotocol.
              const refused = () => new DOMException("The string did not match the expected pattern.", "SyntaxError");
              try { parsed = new URL(String(url), hooks.base()); } catch { throw refused(); }
              if (parsed.protocol === "http:") parsed.protocol = "ws:";
              else if (parsed.protocol === "https:") parsed.protocol = "wss:";
              if ((parsed.protocol !== "ws:" && parsed.protocol !== "wss:") || parsed.hash !== "" || String(url).includes("#")) throw refused();
              const offered = protocols === undefined ? [] : typeof protocols === "string" ? [protocols] : Array.from(protocols, String);
              for (const [index, name] of offered.entries()) {
                if (!isToken(name) || offered.indexOf(name) !== index) throw refused();
              }
              this.#url = parsed.href;
              this.#origin = parsed.origin;
              // A secure document's `ws:` socket is mixed content: blocked, it fails (`error`, then
              // `close` with 1006, as the standard has it; WebKit fires only `error`).
              if (parsed.protocol === "ws:" && hooks.href().startsWith("https:")) {
                this.#fail();
                return;
              }
              const id = native.webSocket("open", this.#url, offered.join(", "), receiveSocketEvent);
              if (typeof id !== "number") throw refused();
              this.#id = id;
              sockets.set(this.#id, this);
            }
            get url() { return this.#url; }
            get readyState() { return this.#state; }
            get bufferedAmount() { return this.#buffered; }
            get extensions() { return ""; }
            get protocol() { return this.#protocol; }
            get binaryType() { return this.#binaryType; }
            set binaryType(value) { if (value === "blob" || value === "arraybuffer") this.#binaryType = value; }
            send(data) {
              if (arguments.length < 1) throw notEnough("WebSocket.send", 1);
              if (this.#state === CONNECTING) throw new DOMException("The object is in an invalid state.", "InvalidStateError");
              let payload;
              if (isBlob(data)) payload = blobBytes(data).slice();
              else if (data instanceof ArrayBuffer) payload = new Uint8Array(data.slice(0));
              else if (ArrayBuffer.isView(data)) payload = new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
              else payload = String(data);
              // Sent on a connection that is closing or closed, data is only counted, as the standard
              // has it, with its frame's header and mask as WebKit counts them.
              if (this.#state !== OPEN) {
                const size = typeof payload === "string" ? new TextEncoder().encode(payload).length : payload.length;
                this.#buffered += size + (size < 126 ? 6 : size < 65536 ? 8 : 14);
                return;
              }
              if (this.#id !== 0) native.webSocket("send", this.#id, payload);
            }
            close(code = undefined, reason = undefined) {
              if (code !== undefined) {
                code = Number(code) & 0xFFFF;
                if (code !== 1000 && (code < 3000 || code > 4999)) throw new DOMException("The object does not support the operation or argument.", "InvalidAccessError");
              }
              const text = reason === undefined ? "" : String(reason);
              if (new TextEncoder().encode(text).length > 123) throw new DOMException("The string did not match the expected pattern.", "SyntaxError");
              if (this.#state === CLOSING || this.#state === CLOSED) return;
              const connecting = this.#state === CONNECTING;
              this.#state = CLOSING;
              if (this.#id !== 0) native.webSocket("close", this.#id, code === undefined ? 1000 : code, text);
              // Closed before it opened, it fails in the next task (`error`, then `close` with
              // 1006); what its connection does after is not the page's any more.
              if (connecting) this.#fail();
            }
            static {
              deliverToSocket = (socket, kind, values) => socket.#deliver(kind, values);
              for (const type of ["open", "message", "error", "close"]) {
                define(WebSocket.prototype, "on" + type, {
                  get() { return this.#handlers[type]; },
                  set(value) { replaceHandler(this, this.#handlers, type, value); },
                  enumerable: true, configurable: true,
                });
              }
            }
            #fail() {
              sockets.delete(this.#id);
              setTimeout(() => this.#deliver("close", [1006, "", false, true]), 0);
            }
            #deliver(kind, values) {
              if (kind === "close") {
                sockets.delete(this.#id);
                const [code, reason, wasClean, failed] = values;
                this.#state = CLOSED;
                if (failed) this.dispatchEvent(trusted(new Event("error")));
                this.dispatchEvent(trusted(new CloseEvent("close", { code, reason, wasClean })));
                return;
              }
              if (kind === "open") {
                this.#state = OPEN;
                this.#protocol = values[0];
                this.dispatchEvent(trusted(new Event("open")));
              } else if (this.#state === OPEN) {
                let data = values[0];
                if (kind === "binary") data = this.#binaryType === "arraybuffer" ? data.buffer : new Blob([data]);
                this.dispatchEvent(trusted(new MessageEvent("message", { data, origin: this.#origin })));
              }
            }
          }
          for (const [name, value] of [["CONNECTING", CONNECTING], ["OPEN", OPEN], ["CLOSING", CLOSING], ["CLOSED", CLOSED]]) {
            define(WebSocket, name, { value, enumerable: true });
            define(WebSocket.prototype, name, { value, enumerable: true });
          }
          define(WebSocket.prototype, Symbol.toStringTag, { value: "WebSocket", configurable: true });
        """#
}
