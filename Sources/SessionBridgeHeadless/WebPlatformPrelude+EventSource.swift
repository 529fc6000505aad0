extension WebPlatformPrelude {
    /// `EventSource` (HTML's server-sent events), part of ``source``'s late members, over native
    /// requests (``EventSourceConnection``) that carry the page's cookies (to another origin only
    /// `withCredentials`): the stream is decoded as UTF-8 and parsed as the standard has it
    /// (`data`, `event`, `id`, `retry`, comments, any line ending); each event is a `MessageEvent`
    /// of its type with its `lastEventId`. A stream that ends or breaks is asked for again after
    /// the `retry` time with `Last-Event-ID`; an answer that is no stream closes the source.
    static let eventSourceSource = #"""
            const sources = new Map();
            let deliverToSource;
            const receiveSourceEvent = (id, kind, bytes) => {
              const source = sources.get(id);
              if (source !== undefined) deliverToSource(source, kind, bytes);
            };
            class EventSource extends EventTarget {
              #id = 0; #url; #origin; #withCredentials; #state = 0; #retry = 3000; #lastEventId = "";
              #decoder; #pending = ""; #data = ""; #type = ""; #eventId = null; #sawCR = false;
              #handlers = { open: null, message: null, error: null };
              constructor(url, init = undefined) {
                if (arguments.length < 1) throw notEnough("EventSource", 1);
                super();
                let parsed;
                try { parsed = new URL(String(url), hooks.base()); } catch { throw new DOMException("The string did not match the expected pattern.", "SyntaxError"); }
                this.#url = parsed.href;
                this.#origin = parsed.origin;
                this.#withCredentials = !!(init && init.withCredentials);
                this.#open();
                if (this.#id === 0) throw new DOMException("The string did not match the expected pattern.", "SyntaxError");
              }
              get url() { return this.#url; }
              get withCredentials() { return this.#withCredentials; }
              get readyState() { return this.#state; }
              close() {
                if (this.#state === 2) return;
                this.#state = 2;
                sources.delete(this.#id);
                native.eventSource("close", this.#id);
              }
              #open() {
                this.#decoder = new TextDecoder();
                this.#pending = ""; this.#sawCR = false; this.#data = ""; this.#type = ""; this.#eventId = null;
                const id = native.eventSource("open", this.#url, this.#withCredentials, this.#lastEventId, receiveSourceEvent);
                if (typeof id !== "number") return;
                this.#id = id;
                sources.set(id, this);
              }
              #fire(event) { this.dispatchEvent(trusted(event)); }
              #deliver(kind, bytes) {
                if (this.#state === 2) return;
                if (kind === "open") {
                  this.#state = 1;
                  this.#fire(new Event("open"));
                } else if (kind === "bytes") {
                  this.#parse(this.#decoder.decode(bytes, { stream: true }));
                } else if (kind === "ended") {
                  // Asked for again after the retry time, from the last event's id.
                  this.#state = 0;
                  this.#fire(new Event("error"));
                  if (this.#state === 2) return;
                  this.#decoder = new TextDecoder();
                  this.#pending = ""; this.#sawCR = false; this.#data = ""; this.#type = ""; this.#eventId = null;
                  native.eventSource("reconnect", this.#id, this.#retry, this.#lastEventId, this.#url, this.#withCredentials);
                } else {
                  sources.delete(this.#id);
                  this.#state = 2;
                  this.#fire(new Event("error"));
                }
              }
              // Lines end with CRLF, LF or CR, whichever; a CR at a chunk's end may begin a CRLF.
              #parse(text) {
                let at = 0;
                if (this.#sawCR && text.startsWith("\n")) at = 1;
                this.#sawCR = false;
                for (;;) {
                  let end = -1;
                  for (let index = at; index < text.length; index++) {
                    const code = text.charCodeAt(index);
                    if (code === 10 || code === 13) { end = index; break; }
                  }
                  if (end === -1) { this.#pending += text.slice(at); return; }
                  const line = this.#pending + text.slice(at, end);
                  this.#pending = "";
                  if (text.charCodeAt(end) === 13) {
                    if (end + 1 === text.length) this.#sawCR = true;
                    else if (text.charCodeAt(end + 1) === 10) end++;
                  }
                  at = end + 1;
                  this.#line(line);
                  if (this.#state === 2) return;
                }
              }
              #line(line) {
                if (line === "") return this.#dispatch();
                if (line.startsWith(":")) return;
                const colon = line.indexOf(":");
                const field = colon === -1 ? line : line.slice(0, colon);
                let value = colon === -1 ? "" : line.slice(colon + 1);
                if (value.startsWith(" ")) value = value.slice(1);
                if (field === "data") this.#data += value + "\n";
                else if (field === "event") this.#type = value;
                else if (field === "id") { if (!value.includes("\0")) this.#eventId = value; }
                else if (field === "retry") { if (/^[0-9]+$/.test(value)) this.#retry = Number(value); }
              }
              #dispatch() {
                if (this.#eventId !== null) { this.#lastEventId = this.#eventId; this.#eventId = null; }
                if (this.#data === "") { this.#type = ""; return; }
                const data = this.#data.slice(0, -1), type = this.#type === "" ? "message" : this.#type;
                this.#data = ""; this.#type = "";
                this.#fire(new MessageEvent(type, { data, origin: this.#origin, lastEventId: this.#lastEventId }));
              }
              static {
                deliverToSource = (source, kind, bytes) => source.#deliver(kind, bytes);
                for (const type of ["open", "message", "error"]) {
                  define(EventSource.prototype, "on" + type, {
                    get() { return this.#handlers[type]; },
                    set(value) { replaceHandler(this, this.#handlers, type, value); },
                    enumerable: true, configurable: true,
                  });
                }
              }
            }
            for (const [name, value] of [["CONNECTING", 0], ["OPEN", 1], ["CLOSED", 2]]) {
              define(EventSource, name, { value, enumerable: true });
              define(EventSource.prototype, name, { value, enumerable: true });
            }
            define(EventSource.prototype, Symbol.toStringTag, { value: "EventSource", configurable: true });
        """#
}
