extension WebPlatformPrelude {
    /// `Blob` and `File` (File API) and `FormData` (XHR Standard), part of ``source``: what a
    /// page builds a request body of. `fetch`, `Request`, `Response` and `XMLHttpRequest` send
    /// their bytes (``DocumentPrelude`` reads them through `hooks.body`), a `FormData` as
    /// `multipart/form-data` with a boundary as WebKit makes one; `blob()` reads a body as a
    /// `Blob` (`hooks.makeBlob`). A headless page has no form element to read, so `new
    /// FormData(form)` throws; `stream()` is not there.
    static let blobSource = #"""
          // The bytes of `parts` (byte arrays) one after another.
          const joinedBytes = parts => {
            let length = 0;
            for (const part of parts) length += part.length;
            const joined = new Uint8Array(length);
            let at = 0;
            for (const part of parts) { joined.set(part, at); at += part.length; }
            return joined;
          };
          let blobBytes, isBlob;
          class Blob {
            #bytes; #type;
            constructor(blobParts = undefined, options = undefined) {
              const parts = [];
              const endings = options && options.endings !== undefined ? String(options.endings) : "transparent";
              if (endings !== "transparent" && endings !== "native") throw new TypeError(`'${endings}' is not a valid value for EndingType.`);
              if (blobParts !== undefined) {
                if (blobParts === null || (typeof blobParts !== "object" && typeof blobParts !== "function") || typeof blobParts[Symbol.iterator] !== "function") {
                  throw new TypeError("Blob: the first argument is not a sequence.");
                }
                for (const part of blobParts) {
                  if (isBlob(part)) parts.push(part.#bytes);
                  else if (part instanceof ArrayBuffer) parts.push(new Uint8Array(part));
                  else if (isView(part)) parts.push(new Uint8Array(part.buffer, part.byteOffset, part.byteLength));
                  else parts.push(encode(endings === "native" ? String(part).replace(/\r\n|\r/g, "\n") : String(part)));
                }
              }
              this.#bytes = joinedBytes(parts);
              const type = options && options.type !== undefined ? String(options.type) : "";
              this.#type = /[^\u0020-\u007E]/.test(type) ? "" : type.toLowerCase();
            }
            get size() { return this.#bytes.length; }
            get type() { return this.#type; }
            slice(start = undefined, end = undefined, contentType = undefined) {
              const size = this.#bytes.length;
              const position = (value, otherwise) => {
                if (value === undefined) return otherwise;
                const number = Math.trunc(Number(value)) || 0;
                return number < 0 ? Math.max(size + number, 0) : Math.min(number, size);
              };
              const from = position(start, 0), to = position(end, size);
              const made = new Blob([], { type: contentType === undefined ? "" : String(contentType) });
              made.#bytes = this.#bytes.slice(from, Math.max(from, to));
              return made;
            }
            async text() {
              // UTF-8 decode, as the Encoding Standard has it: a leading byte order mark is dropped.
              const units = decodeUTF8(this.#bytes, false, false)[0];
              if (units[0] === 0xFEFF) units.shift();
              return text(units);
            }
            async arrayBuffer() { return this.#bytes.slice().buffer; }
            async bytes() { return this.#bytes.slice(); }
            // Its bytes as one chunk, as WebKit's stream of a blob in memory gives them.
            stream() {
              const bytes = this.#bytes.slice();
              return new ReadableStream({ start(controller) { if (bytes.length > 0) controller.enqueue(bytes); controller.close(); } });
            }
            static {
              isBlob = value => value !== null && typeof value === "object" && #bytes in value;
              blobBytes = blob => blob.#bytes;
            }
          }
          define(Blob.prototype, Symbol.toStringTag, { value: "Blob", configurable: true });
          class File extends Blob {
            #name; #lastModified;
            constructor(fileBits, fileName, options = undefined) {
              if (arguments.length < 2) throw notEnough("File", 2);
              super(fileBits, options);
              this.#name = String(fileName);
              const modified = options && options.lastModified !== undefined ? Number(options.lastModified) : Date.now();
              this.#lastModified = Number.isFinite(modified) ? Math.trunc(modified) : 0;
            }
            get name() { return this.#name; }
            get lastModified() { return this.#lastModified; }
          }
          define(File.prototype, Symbol.toStringTag, { value: "File", configurable: true });

          // FormData: names with text or File values, in order.
          let formEntries, isFormData;
          const formEntry = (name, value, filename, count, method) => {
            if (count === 3 && !isBlob(value)) throw new TypeError(`FormData.${method}: argument 2 is not a Blob.`);
            if (!isBlob(value)) return [String(name), String(value)];
            if (filename === undefined && value instanceof File) return [String(name), value];
            const named = new File([value], filename !== undefined ? String(filename) : value instanceof File ? value.name : "blob",
              { type: value.type, lastModified: value instanceof File ? value.lastModified : undefined });
            return [String(name), named];
          };
          class FormData {
            #entries = [];
            constructor(form = undefined) {
              if (form !== undefined) throw new TypeError("FormData: a headless page has no form element to read.");
            }
            append(name, value, filename = undefined) {
              if (arguments.length < 2) throw notEnough("FormData.append", 2);
              this.#entries.push(formEntry(name, value, filename, arguments.length, "append"));
            }
            set(name, value, filename = undefined) {
              if (arguments.length < 2) throw notEnough("FormData.set", 2);
              const entry = formEntry(name, value, filename, arguments.length, "set");
              const first = this.#entries.findIndex(([key]) => key === entry[0]);
              if (first < 0) { this.#entries.push(entry); return; }
              this.#entries = this.#entries.filter(([key], index) => index <= first || key !== entry[0]);
              this.#entries[first] = entry;
            }
            delete(name) {
              if (arguments.length < 1) throw notEnough("FormData.delete", 1);
              name = String(name);
              this.#entries = this.#entries.filter(([key]) => key !== name);
            }
            get(name) {
              if (arguments.length < 1) throw notEnough("FormData.get", 1);
              name = String(name);
              const entry = this.#entries.find(([key]) => key === name);
              return entry ? entry[1] : null;
            }
            getAll(name) {
              if (arguments.length < 1) throw notEnough("FormData.getAll", 1);
              name = String(name);
              return this.#entries.filter(([key]) => key === name).map(([, value]) => value);
            }
            has(name) {
              if (arguments.length < 1) throw notEnough("FormData.has", 1);
              name = String(name);
              return this.#entries.some(([key]) => key === name);
            }
            forEach(callback, thisArg = undefined) {
              if (typeof callback !== "function") throw new TypeError("FormData.forEach: the callback is not a function.");
              for (const [key, value] of this.#entries.slice()) callback.call(thisArg, value, key, this);
            }
            entries() { return this.#entries.map(([key, value]) => [key, value])[Symbol.iterator](); }
            keys() { return this.#entries.map(([key]) => key)[Symbol.iterator](); }
            values() { return this.#entries.map(([, value]) => value)[Symbol.iterator](); }
            static {
              isFormData = value => value !== null && typeof value === "object" && #entries in value;
              formEntries = form => form.#entries;
            }
          }
          define(FormData.prototype, Symbol.iterator, { value: FormData.prototype.entries, writable: true, configurable: true });
          define(FormData.prototype, Symbol.toStringTag, { value: "FormData", configurable: true });

          // multipart/form-data (HTML): names and file names with `"`, CR and LF escaped, text
          // with its line breaks as CRLF, a file's bytes as they are.
          const randomNumber = Math.random;
          const boundaryCharacters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
          const multipartBody = form => {
            let boundary = "----WebKitFormBoundary";
            for (let index = 0; index < 16; index++) boundary += boundaryCharacters[Math.floor(randomNumber() * boundaryCharacters.length)];
            const escaped = name => name.replace(/\n/g, "%0A").replace(/\r/g, "%0D").replace(/"/g, "%22");
            const lines = text => text.replace(/\r\n|\r|\n/g, "\r\n");
            const parts = [];
            for (const [name, value] of formEntries(form)) {
              let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escaped(lines(name))}"`;
              if (typeof value === "string") {
                parts.push(encode(`${head}\r\n\r\n${lines(value)}\r\n`));
              } else {
                head += `; filename="${escaped(value.name)}"\r\nContent-Type: ${value.type || "application/octet-stream"}\r\n\r\n`;
                parts.push(encode(head), blobBytes(value), encode("\r\n"));
              }
            }
            parts.push(encode(`--${boundary}--\r\n`));
            return { body: joinedBytes(parts), type: `multipart/form-data; boundary=${boundary}` };
          };
          // A Blob's or a FormData's bytes and the Content-Type they imply, or undefined.
          hooks.body = value => {
            if (isBlob(value)) return { body: blobBytes(value).slice(), type: value.type === "" ? null : value.type };
            if (isFormData(value)) return multipartBody(value);
            return undefined;
          };
          hooks.makeBlob = (bytes, type) => new Blob([bytes], { type });
          // Blob URLs (File API): `blob:<origin>/<UUID>` for a Blob, valid until revoked or
          // this context's end; `fetch` and `XMLHttpRequest` read them through `hooks.blobURL`:
          // this context's own from its list, another's of its origin (a worker's, its page's)
          // from the data store's (native code's copy).
          const blobURLs = new Map();
          define(URL, "createObjectURL", { value: function createObjectURL(object) {
            if (arguments.length < 1) throw notEnough("URL.createObjectURL", 1);
            if (!isBlob(object)) throw new TypeError("URL.createObjectURL: the argument is not a Blob");
            const hex = Array.from(native.platform("random", 16), (byte, index) =>
              (index === 6 ? byte & 0x0F | 0x40 : index === 8 ? byte & 0x3F | 0x80 : byte).toString(16).padStart(2, "0")).join("");
            const url = `blob:${hooks.origin()}/${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
            blobURLs.set(url, object);
            native.platform("registerBlob", url, blobBytes(object), object.type);
            return url;
          }, writable: true, enumerable: true, configurable: true });
          define(URL, "revokeObjectURL", { value: function revokeObjectURL(url) {
            if (arguments.length < 1) throw notEnough("URL.revokeObjectURL", 1);
            blobURLs.delete(String(url));
            native.platform("revokeBlob", String(url));
          }, writable: true, enumerable: true, configurable: true });
          // A registered blob URL's contents (its fragment aside), as `hooks.dataURL` gives a
          // `data:` URL's; null when it is not registered here.
          hooks.blobURL = given => {
            const url = String(given).replace(/#.*$/s, ""), blob = blobURLs.get(url);
            return blob === undefined ? native.platform("blobURL", url) ?? null : { url, type: blob.type, bytes: blobBytes(blob).slice() };
          };
        """#
}
