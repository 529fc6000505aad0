extension WebPlatformPrelude {
    /// `FileReader` (File API), part of ``source``: a `Blob` read as text (a byte order mark
    /// deciding the encoding, else the one given, else UTF-8), as a `data:` URL, an
    /// `ArrayBuffer` or a binary string, in a later task, with `loadstart`, one `progress`,
    /// `load` (or `abort`) and `loadend` and their handler attributes, as WebKit fires them;
    /// and a worker's `FileReaderSync`, the same reads returned at once.
    static let fileReaderSource = #"""
          const readerTypes = ["loadstart", "progress", "load", "loadend", "error", "abort"];
          // Bytes as a string of the code points 0-255 (a binary string, what `btoa` takes).
          const binaryString = bytes => {
            let out = "";
            for (let index = 0; index < bytes.length; index += 8192) out += String.fromCharCode.apply(null, bytes.subarray(index, index + 8192));
            return out;
          };
          const sniffedText = (bytes, label) => {
            let encoding = "utf-8";
            if (bytes[0] === 0xEF && bytes[1] === 0xBB && bytes[2] === 0xBF) encoding = "utf-8";
            else if (bytes[0] === 0xFE && bytes[1] === 0xFF) encoding = "utf-16be";
            else if (bytes[0] === 0xFF && bytes[1] === 0xFE) encoding = "utf-16le";
            else if (label !== undefined) {
              try { encoding = new TextDecoder(String(label)).encoding; } catch {}
            }
            return new TextDecoder(encoding).decode(bytes);
          };
          class FileReader extends EventTarget {
            #state = 0; #result = null; #error = null; #run = 0;
            #handlers = { loadstart: null, progress: null, load: null, loadend: null, error: null, abort: null };
            get readyState() { return this.#state; }
            get result() { return this.#result; }
            get error() { return this.#error; }
            readAsArrayBuffer(blob) { this.#read(blob, "readAsArrayBuffer", bytes => bytes.slice().buffer); }
            readAsBinaryString(blob) { this.#read(blob, "readAsBinaryString", binaryString); }
            readAsText(blob, encoding = undefined) { this.#read(blob, "readAsText", bytes => sniffedText(bytes, encoding)); }
            readAsDataURL(blob) {
              this.#read(blob, "readAsDataURL", (bytes, type) => `data:${type === "" ? "application/octet-stream" : type};base64,${btoa(binaryString(bytes))}`);
            }
            abort() {
              if (this.#state !== 1) { this.#result = null; return; }
              this.#run++;
              this.#state = 2; this.#result = null;
              this.#fire("abort", 0, 0, false);
              if (this.#state !== 1) this.#fire("loadend", 0, 0, false);
            }
            #fire(type, loaded, total, lengthComputable) {
              this.dispatchEvent(trusted(new ProgressEvent(type, { loaded, total, lengthComputable })));
            }
            // Reads in a later task; a read started again, or aborted, meanwhile ends this one.
            #read(blob, method, convert) {
              if (!isBlob(blob)) throw new TypeError(`Argument 1 ('blob') to FileReader.${method} must be an instance of Blob`);
              if (this.#state === 1) throw new DOMException("The object is in an invalid state.", "InvalidStateError");
              this.#state = 1; this.#result = null; this.#error = null;
              const run = ++this.#run, bytes = blobBytes(blob).slice(), type = blob.type;
              setTimeout(() => {
                if (run !== this.#run) return;
                this.#fire("loadstart", 0, bytes.length, true);
                if (run !== this.#run) return;
                this.#fire("progress", bytes.length, bytes.length, true);
                if (run !== this.#run) return;
                this.#result = convert(bytes, type);
                this.#state = 2;
                this.#fire("load", bytes.length, bytes.length, true);
                if (this.#state !== 1) this.#fire("loadend", bytes.length, bytes.length, true);
              }, 0);
            }
            static {
              for (const type of readerTypes) {
                define(FileReader.prototype, "on" + type, {
                  get() { return this.#handlers[type]; },
                  set(value) { replaceHandler(this, this.#handlers, type, value); },
                  enumerable: true, configurable: true,
                });
              }
            }
          }
          for (const [name, value] of [["EMPTY", 0], ["LOADING", 1], ["DONE", 2]]) {
            define(FileReader, name, { value, enumerable: true });
            define(FileReader.prototype, name, { value, enumerable: true });
          }
          define(FileReader.prototype, Symbol.toStringTag, { value: "FileReader", configurable: true });
          // A worker's `FileReaderSync`: the same reads, returned at once.
          const syncRead = (blob, method) => {
            if (!isBlob(blob)) throw new TypeError(`Argument 1 ('blob') to FileReaderSync.${method} must be an instance of Blob`);
            return blobBytes(blob).slice();
          };
          class FileReaderSync {
            readAsArrayBuffer(blob) { return syncRead(blob, "readAsArrayBuffer").buffer; }
            readAsBinaryString(blob) { return binaryString(syncRead(blob, "readAsBinaryString")); }
            readAsText(blob, encoding = undefined) { return sniffedText(syncRead(blob, "readAsText"), encoding); }
            readAsDataURL(blob) {
              const bytes = syncRead(blob, "readAsDataURL");
              return `data:${blob.type === "" ? "application/octet-stream" : blob.type};base64,${btoa(binaryString(bytes))}`;
            }
          }
          define(FileReaderSync.prototype, Symbol.toStringTag, { value: "FileReaderSync", configurable: true });
        """#
}
