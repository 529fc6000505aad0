import SessionBridgeScriptEngine

/// The members of a page's global scope scripts expect besides the document, as the HTML,
/// Encoding, URL, WebCrypto and High Resolution Time standards define them: `atob` and `btoa`,
/// `TextEncoder` (UTF-8) and `TextDecoder` (UTF-8, windows-1252, UTF-16), `URL` and `URLSearchParams` (``urlSource``),
/// `crypto.getRandomValues`, and in a secure context (as `isSecureContext` tells)
/// `crypto.randomUUID` and `crypto.subtle` with `CryptoKey` and `SubtleCrypto`
/// (``subtleSource``), `performance.now()` and
/// `performance.timeOrigin`, `Event`, `EventTarget`, `AbortController` and `AbortSignal`,
/// `MessageEvent`, `ErrorEvent`, `PromiseRejectionEvent`, `PageTransitionEvent`, `BeforeUnloadEvent`, `SecurityPolicyViolationEvent`,
/// `MessageChannel` and `MessagePort` (``eventsSource``), `structuredClone` (``cloneSource``), `localStorage`, `sessionStorage` and
/// `Storage` (``storageSource``), `Blob`, `File` and `FormData` (``blobSource``),
/// `XMLHttpRequest` and `ProgressEvent` (``xhrSource``), `matchMedia`, `screen` and
/// `requestAnimationFrame` (``mediaSource``), `history`
/// (``historySource``), and `DOMException`, the errors they throw.
///
/// A function of the global object, `Object.defineProperty`, the document prelude's `native`
/// object and its same-document hooks, evaluated and called by ``DocumentPrelude`` on a script's first read of any of these
/// names (most documents never read them). Made up front, as part of the document prelude, its
/// source and functions cost every document about 110 KB.
/// Randomness and the clock are native (`native.platform`); the rest is JavaScript.
enum WebPlatformPrelude {
    /// ``source``, kept parsed by each engine thread that evaluates it.
    static let script = ScriptSource(source, sourceURL: "sessionbridge://prelude/platform.js")

    static let source = #"""
        (function (g, define, native, hooks) {
          "use strict";
          const fromCharCode = String.fromCharCode, isView = ArrayBuffer.isView;
          const typedArrayName = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;
          const method = (object, name, value) => define(object, name, { value, writable: true, enumerable: true, configurable: true });
          // WebKit's words for a call with too few arguments, whatever it is (`name`, `count`: for who reads this code).
          const notEnough = (name, count) => new TypeError("Not enough arguments");

          // DOMException (WebIDL), with the legacy codes of the names used here and elsewhere.
          const legacy = [["IndexSizeError", 1, "INDEX_SIZE_ERR"], ["HierarchyRequestError", 3, "HIERARCHY_REQUEST_ERR"],
            ["WrongDocumentError", 4, "WRONG_DOCUMENT_ERR"], ["InvalidCharacterError", 5, "INVALID_CHARACTER_ERR"],
            ["NoModificationAllowedError", 7, "NO_MODIFICATION_ALLOWED_ERR"], ["NotFoundError", 8, "NOT_FOUND_ERR"],
            ["NotSupportedError", 9, "NOT_SUPPORTED_ERR"], ["InvalidStateError", 11, "INVALID_STATE_ERR"], ["SyntaxError", 12, "SYNTAX_ERR"],
            ["InvalidModificationError", 13, "INVALID_MODIFICATION_ERR"], ["NamespaceError", 14, "NAMESPACE_ERR"],
            ["InvalidAccessError", 15, "INVALID_ACCESS_ERR"], ["TypeMismatchError", 17, "TYPE_MISMATCH_ERR"], ["SecurityError", 18, "SECURITY_ERR"],
            ["NetworkError", 19, "NETWORK_ERR"], ["AbortError", 20, "ABORT_ERR"], ["URLMismatchError", 21, "URL_MISMATCH_ERR"],
            ["QuotaExceededError", 22, "QUOTA_EXCEEDED_ERR"], ["TimeoutError", 23, "TIMEOUT_ERR"], ["InvalidNodeTypeError", 24, "INVALID_NODE_TYPE_ERR"],
            ["DataCloneError", 25, "DATA_CLONE_ERR"]];
          const codes = { __proto__: null };
          for (const [name, code] of legacy) codes[name] = code;
          class DOMException extends Error {
            #name; #message;
            constructor(message = "", name = "Error") {
              super();
              this.#message = String(message);
              this.#name = String(name);
            }
            get name() { return this.#name; }
            get message() { return this.#message; }
            get code() { return codes[this.#name] || 0; }
          }
          for (const [, code, constant] of legacy) {
            define(DOMException, constant, { value: code, enumerable: true });
            define(DOMException.prototype, constant, { value: code, enumerable: true });
          }
          define(DOMException.prototype, Symbol.toStringTag, { value: "DOMException", configurable: true });

          // Forgiving base64 (HTML): ASCII whitespace is skipped, padding is optional, and a
          // binary string's code units are its bytes.
          const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
          const sextets = new Int8Array(128).fill(-1);
          for (let index = 0; index < 64; index++) sextets[alphabet.charCodeAt(index)] = index;
          const invalidCharacter = () => new DOMException("The string contains invalid characters.", "InvalidCharacterError");
          // Code units to a string, in slices (an argument list has a bound).
          const text = units => {
            let out = "";
            for (let start = 0; start < units.length; start += 8192) out += fromCharCode.apply(null, units.slice(start, start + 8192));
            return out;
          };
          function atob(data) {
            if (arguments.length < 1) throw notEnough("atob", 1);
            const input = String(data), values = [];
            for (let index = 0; index < input.length; index++) {
              const unit = input.charCodeAt(index);
              if (unit === 0x09 || unit === 0x0A || unit === 0x0C || unit === 0x0D || unit === 0x20) continue;
              values.push(unit);
            }
            if (values.length % 4 === 0 && values.length > 0 && values[values.length - 1] === 0x3D) {
              values.pop();
              if (values[values.length - 1] === 0x3D) values.pop();
            }
            if (values.length % 4 === 1) throw invalidCharacter();
            const bytes = [];
            let buffer = 0, bits = 0;
            for (const unit of values) {
              const sextet = unit < 128 ? sextets[unit] : -1;
              if (sextet < 0) throw invalidCharacter();
              buffer = ((buffer << 6) | sextet) & 0xFFFFFF;
              bits += 6;
              if (bits >= 8) { bits -= 8; bytes.push((buffer >> bits) & 0xFF); }
            }
            return text(bytes);
          }
          function btoa(data) {
            if (arguments.length < 1) throw notEnough("btoa", 1);
            const input = String(data), out = [];
            for (let index = 0; index < input.length; index += 3) {
              const count = Math.min(3, input.length - index);
              let group = 0;
              for (let offset = 0; offset < 3; offset++) {
                const unit = offset < count ? input.charCodeAt(index + offset) : 0;
                if (unit > 0xFF) throw invalidCharacter();
                group = (group << 8) | unit;
              }
              for (let offset = 0; offset < 4; offset++) {
                out.push(offset <= count ? alphabet.charCodeAt((group >> (18 - 6 * offset)) & 0x3F) : 0x3D);
              }
            }
            return text(out);
          }

          // UTF-8 (Encoding): a lone surrogate is encoded as U+FFFD; decoding replaces each
          // maximal invalid subpart with U+FFFD, or throws when fatal.
          const utf8Length = input => {
            let length = 0;
            for (let index = 0; index < input.length; index++) {
              const unit = input.charCodeAt(index);
              if (unit < 0x80) length += 1;
              else if (unit < 0x800) length += 2;
              else if (unit >= 0xD800 && unit <= 0xDBFF && index + 1 < input.length && (input.charCodeAt(index + 1) & 0xFC00) === 0xDC00) { length += 4; index++; }
              else length += 3;
            }
            return length;
          };
          // Writes `input` from `index` into `bytes` while whole characters fit: [units read, bytes written].
          const encodeUTF8 = (input, bytes) => {
            let index = 0, written = 0;
            while (index < input.length) {
              let point = input.charCodeAt(index), units = 1;
              if (point >= 0xD800 && point <= 0xDFFF) {
                const next = index + 1 < input.length ? input.charCodeAt(index + 1) : 0;
                if (point <= 0xDBFF && (next & 0xFC00) === 0xDC00) { point = 0x10000 + ((point - 0xD800) << 10) + (next - 0xDC00); units = 2; }
                else point = 0xFFFD;
              }
              const size = point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
              if (written + size > bytes.length) break;
              if (size === 1) bytes[written] = point;
              else if (size === 2) { bytes[written] = 0xC0 | (point >> 6); bytes[written + 1] = 0x80 | (point & 0x3F); }
              else if (size === 3) { bytes[written] = 0xE0 | (point >> 12); bytes[written + 1] = 0x80 | ((point >> 6) & 0x3F); bytes[written + 2] = 0x80 | (point & 0x3F); }
              else { bytes[written] = 0xF0 | (point >> 18); bytes[written + 1] = 0x80 | ((point >> 12) & 0x3F); bytes[written + 2] = 0x80 | ((point >> 6) & 0x3F); bytes[written + 3] = 0x80 | (point & 0x3F); }
              index += units;
              written += size;
            }
            return [index, written];
          };
          const encode = input => {
            const bytes = new Uint8Array(utf8Length(input));
            encodeUTF8(input, bytes);
            return bytes;
          };
          // Decodes `bytes` (array-like) as UTF-8: [code units, bytes of an unfinished sequence at the end when `stream`].
          const decodeUTF8 = (bytes, fatal, stream) => {
            const units = [];
            let needed = 0, seen = 0, point = 0, lower = 0x80, upper = 0xBF, start = 0;
            const fail = () => {
              if (fatal) throw new TypeError("The encoded data was not valid for encoding utf-8");
              units.push(0xFFFD);
            };
            for (let index = 0; index < bytes.length; index++) {
              const byte = bytes[index];
              if (needed === 0) {
                start = index;
                if (byte < 0x80) units.push(byte);
                else if (byte >= 0xC2 && byte <= 0xDF) { needed = 1; point = byte & 0x1F; }
                else if (byte >= 0xE0 && byte <= 0xEF) { if (byte === 0xE0) lower = 0xA0; if (byte === 0xED) upper = 0x9F; needed = 2; point = byte & 0x0F; }
                else if (byte >= 0xF0 && byte <= 0xF4) { if (byte === 0xF0) lower = 0x90; if (byte === 0xF4) upper = 0x8F; needed = 3; point = byte & 0x07; }
                else fail();
                continue;
              }
              if (byte < lower || byte > upper) {
                needed = seen = point = 0; lower = 0x80; upper = 0xBF;
                fail();
                index--;
                continue;
              }
              lower = 0x80; upper = 0xBF;
              point = (point << 6) | (byte & 0x3F);
              if (++seen === needed) {
                if (point < 0x10000) units.push(point);
                else { point -= 0x10000; units.push(0xD800 + (point >> 10), 0xDC00 + (point & 0x3FF)); }
                needed = seen = point = 0;
              }
            }
            if (needed !== 0) {
              if (stream) return [units, Array.prototype.slice.call(bytes, start)];
              fail();
            }
            return [units, []];
          };
          const byteSource = (input, name) => {
            if (input === undefined) return new Uint8Array(0);
            if (isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
            if (input instanceof ArrayBuffer) return new Uint8Array(input);
            throw new TypeError(`${name}: the argument is not an ArrayBuffer or an ArrayBuffer view`);
          };

          class TextEncoder {
            get encoding() { return "utf-8"; }
            encode(input = "") { return encode(String(input)); }
            encodeInto(source, destination) {
              if (arguments.length < 2) throw notEnough("TextEncoder.encodeInto", 2);
              if (typedArrayName.call(destination) !== "Uint8Array") throw new TypeError("TextEncoder.encodeInto: the destination is not a Uint8Array");
              const [read, written] = encodeUTF8(String(source), destination);
              return { read, written };
            }
          }
          define(TextEncoder.prototype, Symbol.toStringTag, { value: "TextEncoder", configurable: true });

          // The Encoding Standard's labels of the encodings decoded here: UTF-8, windows-1252 (what
          // "latin1", "ascii" and "iso-8859-1" name), UTF-16LE and UTF-16BE.
          const encodings = new Map();
          for (const label of ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"]) encodings.set(label, "utf-8");
          for (const label of ["ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100", "iso8859-1",
            "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252", "x-cp1252"]) encodings.set(label, "windows-1252");
          for (const label of ["csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicode-1-1", "unicodefeff", "utf-16", "utf-16le"]) encodings.set(label, "utf-16le");
          for (const label of ["unicodefffe", "utf-16be"]) encodings.set(label, "utf-16be");
          // windows-1252's bytes 0x80-0x9F; the others are their own code points.
          const windows1252 = [0x20AC, 0x81, 0x201A, 0x192, 0x201E, 0x2026, 0x2020, 0x2021, 0x2C6, 0x2030, 0x160, 0x2039, 0x152, 0x8D, 0x17D, 0x8F,
            0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x2DC, 0x2122, 0x161, 0x203A, 0x153, 0x9D, 0x17E, 0x178];
          const decodeWindows1252 = bytes => {
            const units = new Array(bytes.length);
            for (let index = 0; index < bytes.length; index++) {
              const byte = bytes[index];
              units[index] = byte >= 0x80 && byte < 0xA0 ? windows1252[byte - 0x80] : byte;
            }
            return [units, []];
          };
          // UTF-16 in either byte order: a lone surrogate or an odd last byte is U+FFFD (or an
          // error when fatal); in a stream, an odd byte or a lead surrogate waits for the next call.
          const decodeUTF16 = (bytes, bigEndian, fatal, stream) => {
            const units = [];
            let index = 0;
            const unitAt = at => bigEndian ? bytes[at] << 8 | bytes[at + 1] : bytes[at] | bytes[at + 1] << 8;
            const invalid = () => {
              if (fatal) throw new TypeError("The encoded data was not valid for encoding " + (bigEndian ? "utf-16be" : "utf-16le"));
              units.push(0xFFFD);
            };
            while (index + 1 < bytes.length) {
              const unit = unitAt(index);
              if (unit >= 0xD800 && unit <= 0xDBFF) {
                if (index + 3 >= bytes.length) {
                  if (stream) break;
                  invalid(); index += 2; continue;
                }
                const next = unitAt(index + 2);
                if (next >= 0xDC00 && next <= 0xDFFF) { units.push(unit, next); index += 4; } else { invalid(); index += 2; }
              } else if (unit >= 0xDC00 && unit <= 0xDFFF) { invalid(); index += 2; }
              else { units.push(unit); index += 2; }
            }
            if (index < bytes.length && !stream) { invalid(); index = bytes.length; }
            return [units, Array.from(bytes.subarray(index))];
          };
          class TextDecoder {
            #encoding; #fatal; #ignoreBOM; #pending = []; #bomSeen = false;
            constructor(label = "utf-8", options = undefined) {
              const name = String(label).replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, "").toLowerCase();
              if (!encodings.has(name)) throw new RangeError("Bad value");
              this.#encoding = encodings.get(name);
              this.#fatal = !!(options && options.fatal);
              this.#ignoreBOM = !!(options && options.ignoreBOM);
            }
            get encoding() { return this.#encoding; }
            get fatal() { return this.#fatal; }
            get ignoreBOM() { return this.#ignoreBOM; }
            decode(input = undefined, options = undefined) {
              const stream = !!(options && options.stream);
              let bytes = byteSource(input, "TextDecoder.decode");
              if (this.#pending.length > 0) {
                const joined = new Uint8Array(this.#pending.length + bytes.length);
                joined.set(this.#pending);
                joined.set(bytes, this.#pending.length);
                bytes = joined;
              }
              let units, pending;
              try {
                const encoding = this.#encoding;
                [units, pending] = encoding === "utf-8" ? decodeUTF8(bytes, this.#fatal, stream) : encoding === "windows-1252" ? decodeWindows1252(bytes)
                  : decodeUTF16(bytes, encoding === "utf-16be", this.#fatal, stream);
              } catch (error) {
                this.#pending = [];
                this.#bomSeen = false;
                throw error;
              }
              this.#pending = pending;
              if (!this.#ignoreBOM && !this.#bomSeen && units.length > 0 && this.#encoding !== "windows-1252") {
                if (units[0] === 0xFEFF) units.shift();
                this.#bomSeen = true;
              }
              if (!stream) this.#bomSeen = false;
              return text(units);
            }
          }
          define(TextDecoder.prototype, Symbol.toStringTag, { value: "TextDecoder", configurable: true });

          \#(urlSource)
          \#(eventsSource)
          \#(locksSource)
          \#(streamsSource)
          \#(pipeSource)
          \#(cloneSource)
          \#(storageSource)
          \#(blobSource)
          \#(xhrSource)
          \#(mediaSource)
          \#(historySource)
          // Randomness from the system's generator (WebCrypto); `subtle` in a secure context.
          const integerArrays = ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "BigInt64Array", "BigUint64Array"];
          const crypto = {};
          method(crypto, "getRandomValues", function getRandomValues(array) {
            // WebIDL's checks first, as WebKit makes them: its own object, then an
            // `ArrayBufferView` (a plain array is a `TypeError`), then an integer array.
            if (this !== crypto) throw new TypeError("Can only call Crypto.getRandomValues on instances of Crypto");
            if (arguments.length < 1) throw notEnough("Crypto.getRandomValues", 1);
            if (!isView(array)) throw new TypeError("Argument 1 ('array') to Crypto.getRandomValues must be an instance of ArrayBufferView");
            if (!integerArrays.includes(typedArrayName.call(array))) throw new DOMException("The data provided is not an integer typed array.", "TypeMismatchError");
            if (array.byteLength > 65536) {
              throw new DOMException(`The ArrayBufferView's byte length (${array.byteLength}) exceeds the number of bytes of entropy available via this API (65536).`, "QuotaExceededError");
            }
            new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(native.platform("random", array.byteLength));
            return array;
          });
          // A secure context's only, as in WebKit (`isSecureContext`).
          const secure = native.platform("secure") === true;
          if (secure) method(crypto, "randomUUID", function randomUUID() {
            const bytes = native.platform("random", 16);
            bytes[6] = (bytes[6] & 0x0F) | 0x40;
            bytes[8] = (bytes[8] & 0x3F) | 0x80;
            let out = "";
            for (let index = 0; index < 16; index++) {
              if (index === 4 || index === 6 || index === 8 || index === 10) out += "-";
              out += (bytes[index] < 16 ? "0" : "") + bytes[index].toString(16);
            }
            return out;
          });
          define(crypto, Symbol.toStringTag, { value: "Crypto", configurable: true });
          \#(subtleSource)

          // The document's clock (High Resolution Time): milliseconds since its time origin,
          // coarsened to 100 us as for a page that is not cross-origin isolated.
          const performance = {};
          const timeOrigin = native.platform("origin");
          method(performance, "now", function now() { return native.platform("now"); });
          define(performance, "timeOrigin", { get: () => timeOrigin, enumerable: true, configurable: true });
          method(performance, "toJSON", function toJSON() { return { timeOrigin }; });
          define(performance, Symbol.toStringTag, { value: "Performance", configurable: true });
          // User Timing: marks and measures, the document's only performance entries besides its
          // navigation's; each an instance of its interface, its members on the prototype.
          const timeline = [];
          let entryInit = null;
          class PerformanceEntry {
            #name; #entryType; #startTime; #duration;
            constructor() {
              if (entryInit === null) throw new TypeError("Illegal constructor");
              [this.#name, this.#entryType, this.#startTime, this.#duration] = entryInit;
              entryInit = null;
            }
            get name() { return this.#name; }
            get entryType() { return this.#entryType; }
            get startTime() { return this.#startTime; }
            get duration() { return this.#duration; }
            toJSON() { return { name: this.name, entryType: this.entryType, startTime: this.startTime, duration: this.duration }; }
          }
          class PerformanceMark extends PerformanceEntry {
            #detail;
            constructor(name, options = undefined) {
              let detail = entryInit === null ? null : entryInit[4];
              if (entryInit === null) {
                // Made by a page: a mark of its own, not on the timeline.
                if (arguments.length < 1) throw notEnough("PerformanceMark", 1);
                const startTime = options && options.startTime !== undefined ? Number(options.startTime) : performance.now();
                if (!(startTime >= 0)) throw new TypeError("PerformanceMark: the start time cannot be negative.");
                detail = options && options.detail !== undefined ? structuredClone(options.detail) : null;
                entryInit = [String(name), "mark", startTime, 0];
              }
              super();
              this.#detail = detail;
            }
            get detail() { return this.#detail; }
          }
          class PerformanceMeasure extends PerformanceEntry {
            #detail;
            constructor() {
              const detail = entryInit === null ? null : entryInit[4];
              super();
              this.#detail = detail;
            }
            get detail() { return this.#detail; }
          }
          class PerformanceNavigationTiming extends PerformanceEntry {}
          for (const [made, tag] of [[PerformanceEntry, "PerformanceEntry"], [PerformanceMark, "PerformanceMark"], [PerformanceMeasure, "PerformanceMeasure"],
            [PerformanceNavigationTiming, "PerformanceNavigationTiming"]]) {
            define(made.prototype, Symbol.toStringTag, { value: tag, configurable: true });
          }
          const timingEntry = (name, entryType, startTime, duration, detail) => {
            entryInit = [name, entryType, startTime, duration, detail];
            try { return entryType === "mark" ? new PerformanceMark() : new PerformanceMeasure(); } finally { entryInit = null; }
          };
          const markTime = (name, what) => {
            if (typeof name === "number") {
              if (name < 0) throw new TypeError(`${what} cannot be negative.`);
              return name;
            }
            for (let index = timeline.length - 1; index >= 0; index--) {
              if (timeline[index].entryType === "mark" && timeline[index].name === String(name)) return timeline[index].startTime;
            }
            throw new DOMException(`No mark named '${name}' exists.`, "SyntaxError");
          };
          method(performance, "mark", function mark(name, options = undefined) {
            if (arguments.length < 1) throw notEnough("performance.mark", 1);
            const startTime = options && options.startTime !== undefined ? Number(options.startTime) : performance.now();
            if (!(startTime >= 0)) throw new TypeError("performance.mark: the start time cannot be negative.");
            const made = timingEntry(String(name), "mark", startTime, 0, options && options.detail !== undefined ? structuredClone(options.detail) : null);
            timeline.push(made);
            queueEntry(made);
            return made;
          });
          method(performance, "measure", function measure(name, startOrOptions = undefined, endMark = undefined) {
            if (arguments.length < 1) throw notEnough("performance.measure", 1);
            const options = startOrOptions !== null && typeof startOrOptions === "object" ? startOrOptions : null;
            let start, end;
            if (options) {
              const has = key => options[key] !== undefined;
              end = has("end") ? markTime(options.end, "end") : has("start") && has("duration") ? markTime(options.start, "start") + Number(options.duration) : performance.now();
              start = has("start") ? markTime(options.start, "start") : has("duration") && has("end") ? end - Number(options.duration) : 0;
            } else {
              end = endMark !== undefined ? markTime(endMark, "end") : performance.now();
              start = startOrOptions !== undefined ? markTime(startOrOptions, "start") : 0;
            }
            const made = timingEntry(String(name), "measure", start, end - start, options && options.detail !== undefined ? structuredClone(options.detail) : null);
            timeline.push(made);
            queueEntry(made);
            return made;
          });
          // Navigation Timing: the document's navigation entry, its times as they are when asked
          // (0 for what has not happened yet), in milliseconds from the time origin, which is the
          // navigation's start; the network's own steps are not told apart from the request.
          const navigationEntry = () => {
            const [type, redirectCount, fetchStart, responseEnd] = native.platform("navigation"), times = hooks.times;
            const made = {
              name: hooks.href(), entryType: "navigation", startTime: 0, duration: times.loaded, initiatorType: "navigation",
              nextHopProtocol: "http/1.1", workerStart: 0, redirectStart: 0, redirectEnd: 0, fetchStart, domainLookupStart: fetchStart,
              domainLookupEnd: fetchStart, connectStart: fetchStart, connectEnd: fetchStart, secureConnectionStart: 0, requestStart: fetchStart,
              responseStart: responseEnd, responseEnd, transferSize: 0, encodedBodySize: 0, decodedBodySize: 0, serverTiming: [],
              unloadEventStart: 0, unloadEventEnd: 0, domInteractive: times.interactive, domContentLoadedEventStart: times.interactive,
              domContentLoadedEventEnd: times.contentLoaded, domComplete: times.complete, loadEventStart: times.complete,
              loadEventEnd: times.loaded, type, redirectCount,
            };
            method(made, "toJSON", function toJSON() { const copy = { ...made }; delete copy.toJSON; return copy; });
            Object.setPrototypeOf(made, PerformanceNavigationTiming.prototype);
            return made;
          };
          const byStart = list => list.slice().sort((a, b) => a.startTime - b.startTime);
          method(performance, "getEntries", function getEntries() { return [navigationEntry(), ...byStart(timeline)]; });
          method(performance, "getEntriesByType", function getEntriesByType(type) {
            return String(type) === "navigation" ? [navigationEntry()] : byStart(timeline.filter(e => e.entryType === String(type)));
          });
          method(performance, "getEntriesByName", function getEntriesByName(name, type = undefined) {
            const navigation = navigationEntry();
            const own = navigation.name === String(name) && (type === undefined || String(type) === "navigation") ? [navigation] : [];
            return [...own, ...byStart(timeline.filter(e => e.name === String(name) && (type === undefined || e.entryType === String(type))))];
          });
          // The legacy `performance.timing` (milliseconds since the epoch) and `performance.navigation`.
          const timing = {};
          const absolute = relative => relative > 0 ? Math.round(timeOrigin + relative) : 0;
          for (const [key, read] of [["navigationStart", () => Math.round(timeOrigin)], ["unloadEventStart", () => 0], ["unloadEventEnd", () => 0],
            ["redirectStart", () => 0], ["redirectEnd", () => 0], ["fetchStart", e => absolute(e.fetchStart) || Math.round(timeOrigin)],
            ["domainLookupStart", e => absolute(e.fetchStart) || Math.round(timeOrigin)], ["domainLookupEnd", e => absolute(e.fetchStart) || Math.round(timeOrigin)],
            ["connectStart", e => absolute(e.fetchStart) || Math.round(timeOrigin)], ["connectEnd", e => absolute(e.fetchStart) || Math.round(timeOrigin)],
            ["secureConnectionStart", () => 0], ["requestStart", e => absolute(e.requestStart)], ["responseStart", e => absolute(e.responseStart)],
            ["responseEnd", e => absolute(e.responseEnd)], ["domLoading", e => absolute(e.responseEnd) || Math.round(timeOrigin)],
            ["domInteractive", e => absolute(e.domInteractive)], ["domContentLoadedEventStart", e => absolute(e.domContentLoadedEventStart)],
            ["domContentLoadedEventEnd", e => absolute(e.domContentLoadedEventEnd)], ["domComplete", e => absolute(e.domComplete)],
            ["loadEventStart", e => absolute(e.loadEventStart)], ["loadEventEnd", e => absolute(e.loadEventEnd)]]) {
            define(timing, key, { get: () => read(navigationEntry()), enumerable: true });
          }
          method(timing, "toJSON", function toJSON() { const copy = {}; for (const key in timing) if (key !== "toJSON") copy[key] = timing[key]; return copy; });
          define(timing, Symbol.toStringTag, { value: "PerformanceTiming", configurable: true });
          const navigationKinds = { navigate: 0, reload: 1, back_forward: 2 };
          const navigation = {};
          define(navigation, "type", { get: () => navigationKinds[navigationEntry().type] || 0, enumerable: true });
          define(navigation, "redirectCount", { get: () => navigationEntry().redirectCount, enumerable: true });
          for (const [key, value] of [["TYPE_NAVIGATE", 0], ["TYPE_RELOAD", 1], ["TYPE_BACK_FORWARD", 2], ["TYPE_RESERVED", 255]]) define(navigation, key, { value, enumerable: true });
          define(navigation, Symbol.toStringTag, { value: "PerformanceNavigation", configurable: true });
          define(performance, "timing", { get: () => timing, enumerable: true, configurable: true });
          define(performance, "navigation", { get: () => navigation, enumerable: true, configurable: true });
          const clearTiming = type => function (name = undefined) {
            for (let index = timeline.length - 1; index >= 0; index--) {
              if (timeline[index].entryType === type && (name === undefined || timeline[index].name === String(name))) timeline.splice(index, 1);
            }
          };
          method(performance, "clearMarks", clearTiming("mark"));
          method(performance, "clearMeasures", clearTiming("measure"));
          \#(performanceObserverSource)

          // The members fewer pages use, made on a script's first read of one of them, so that a
          // document that never reads one does not pay for making them.
          let lateMembers = null;
          const late = () => {
            if (lateMembers !== null) return lateMembers;
            \#(cookieStoreSource)
            \#(fileReaderSource)
            \#(webSocketSource)
            \#(writableStreamsSource)
            \#(eventSourceSource)
            \#(viewportSource)
            \#(navigatorMembersSource)
            \#(workerSource)
          // The interfaces of the page's own singletons, for `instanceof` (`window instanceof
          // Window`); none can be made.
          const singletonInterface = (name, instance, base = null) => {
            const made = base === null
              ? class { constructor() { throw new TypeError("Illegal constructor"); } static [Symbol.hasInstance](value) { return value === instance(); } }
              : class extends base { constructor() { throw new TypeError("Illegal constructor"); } static [Symbol.hasInstance](value) { return value === instance(); } };
            define(made, "name", { value: name });
            define(made.prototype, Symbol.toStringTag, { value: name, configurable: true });
            return made;
          };
          const Window = singletonInterface("Window", () => g, EventTarget), Navigator = singletonInterface("Navigator", () => hooks.navigator);
          const Location = singletonInterface("Location", () => hooks.location), Crypto = singletonInterface("Crypto", () => crypto);
          const Performance = singletonInterface("Performance", () => performance, EventTarget);

            platformClones.set(FileReader.prototype, null);
            platformClones.set(WebSocket.prototype, null);
            lateMembers = { FileReader, Window, Navigator, Location, Crypto, Performance, WebSocket, CloseEvent, WritableStream,
              WritableStreamDefaultWriter, WritableStreamDefaultController, TransformStream, TransformStreamDefaultController, TextDecoderStream,
              TextEncoderStream, CompressionStream, DecompressionStream, EventSource, BarProp, VisualViewport, visualViewport, ...bars, CountQueuingStrategy, ByteLengthQueuingStrategy,
              XMLHttpRequestEventTarget, XMLHttpRequestUpload, navigatorMembers, Permissions, PermissionStatus, UserActivation, Clipboard,
              MediaDevices, Notification, Worker, SharedWorker, FileReaderSync,
              WorkerLocation: singletonInterface("WorkerLocation", () => hooks.location),
              WorkerNavigator: singletonInterface("WorkerNavigator", () => hooks.navigator),
              ...(secure ? { cookieStore, CookieStore, CookieChangeEvent } : {}) };
            return lateMembers;
          };

          // IndexedDB, made apart on a script's first read of one of its members (``indexedDBSource``).
          let indexedDBMade = null;
          // A structured clone's wire form (``wireFormSource``), made on first use.
          let wireMade = null;
          // A CryptoKey's algorithm as the native side keeps it with the key: JSON text, an RSA
          // key's public exponent as a list of bytes.
          const keyAlgorithm = algorithm => JSON.stringify(algorithm.publicExponent ? { ...algorithm, publicExponent: Array.from(algorithm.publicExponent) } : algorithm);
          const wireForm = () => wireMade !== null ? wireMade : (wireMade = native.platform("wireForm")({
            define, DOMException, has, dateValue, regExpSource, regExpFlags, bufferLength, isView, typedArrayName, viewBuffer, viewOffset, viewLength,
            dataViewBuffer, dataViewOffset, dataViewLength, mapSize, mapEntries, setSize, setValues, wrappers, typedArrays, errors, member, platformClone,
            dataCloneError, builtinTag, ownDescriptor, text, Blob, File, isBlob, blobBytes, storedKey: webCrypto.storedKey, restoredKey: webCrypto.restoredKey }));
          // A value crossing to another document: the wire form's text (a CryptoKey handed over
          // natively), and the value made again from it (throws when it cannot be).
          const wireText = (value, ports = []) => JSON.stringify(wireForm().toWire(value,
            key => native.platform("shareKey", key.handle, key.type, key.extractable, keyAlgorithm(key.algorithm), key.usages),
            value => ports.indexOf(value)));
          const fromWireText = (text, ports = []) => wireForm().fromWire(JSON.parse(text), id => native.platform("sharedKey", id), ports);
          // Cache Storage, made apart on a script's first read of one of its members, in a secure context only (``cacheStorageSource``).
          let cacheMade = null;
          const cacheMembers = () => cacheMade !== null ? cacheMade
            : (cacheMade = secure ? native.platform("caches")({ native, define, notEnough, DOMException, ...hooks.cacheParts }) : {});
          const indexedDBMembers = () => indexedDBMade !== null ? indexedDBMade : (indexedDBMade = native.platform("indexedDB")({
            native, hooks, define, notEnough, DOMException, Event, EventTarget, trusted, structuredClone, has, dateValue, regExpSource, regExpFlags, bufferLength, bufferSlice, bufferDetached, isView, typedArrayName, viewBuffer, viewOffset, viewLength, dataViewBuffer, dataViewOffset, dataViewLength, mapSize, mapEntries, setSize, setValues, wrappers, typedArrays, errors, member, platformClone, platformClones, dataCloneError, builtinTag, ownDescriptor, text, Blob, File, isBlob, blobBytes, BroadcastChannel, wireForm, keyAlgorithm }));

          for (const made of [TextEncoder, TextDecoder, URL, URLSearchParams, Event, EventTarget, AbortController, AbortSignal, Storage, XMLHttpRequest, History, MessageChannel, BroadcastChannel, Lock, LockManager, ReadableStream, ReadableStreamDefaultReader, ReadableStreamDefaultController]) {
            platformClones.set(made.prototype, null);
          }
          platformClones.set(DOMException.prototype, value => new DOMException(value.message, value.name));
          platformClones.set(Blob.prototype, value => new Blob([value], { type: value.type }));
          platformClones.set(File.prototype, value => new File([value], value.name, { type: value.type, lastModified: value.lastModified }));
          platformClones.set(FormData.prototype, null);
          // A port is given only in a transfer list (not taken here); WebKit refuses one anywhere
          // else with a TypeError, not a DataCloneError.
          platformClones.set(MessagePort.prototype, () => { throw new TypeError("Type error"); });
          if (webCrypto.cloneKey) platformClones.set(webCrypto.CryptoKey.prototype, webCrypto.cloneKey);
          return { atob, btoa, TextEncoder, TextDecoder, URL, URLSearchParams, crypto, performance, DOMException, isSecureContext: secure,
            Event, EventTarget, AbortController, AbortSignal, structuredClone, localStorage, sessionStorage, Storage, XMLHttpRequest, ProgressEvent, CustomEvent, reportError, history, History, PopStateEvent, HashChangeEvent,
            MessageEvent, ErrorEvent, PromiseRejectionEvent, PageTransitionEvent, BeforeUnloadEvent, SecurityPolicyViolationEvent, MessageChannel, MessagePort, BroadcastChannel, locks, Lock, LockManager,
            ReadableStream, ReadableStreamDefaultReader, ReadableStreamDefaultController,
            Blob, File, FormData, matchMedia, MediaQueryList, screen, requestAnimationFrame, cancelAnimationFrame, StorageEvent, late, indexedDBMembers, cacheMembers,
            wireText, fromWireText,
            PerformanceEntry, PerformanceMark, PerformanceMeasure, PerformanceNavigationTiming, PerformanceObserver, PerformanceObserverEntryList,
            ...(secure ? { CryptoKey: webCrypto.CryptoKey, SubtleCrypto: webCrypto.SubtleCrypto } : {}) };
        })
        """#
}
