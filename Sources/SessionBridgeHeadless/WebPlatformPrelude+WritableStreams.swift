extension WebPlatformPrelude {
    /// `WritableStream` with its writer and controller, `TransformStream` with its controller,
    /// `TextDecoderStream` and `TextEncoderStream` (WHATWG Streams and Encoding),
    /// `CompressionStream` and `DecompressionStream` (WHATWG Compression), part of
    /// ``source``'s late members: a sink's writes run one at a time, in order, the writer's
    /// `ready` waits while the queue is at its high-water mark; a transform's output waits in its
    /// readable side until read. `ReadableStream`'s `pipeTo` and `pipeThrough` are
    /// ``pipeSource``'s.
    static let writableStreamsSource = #"""
            let writableInternals, writableAllowed = false, writerAllowed = false;
            class WritableStreamDefaultController {
              #stream; #aborts = new AbortController();
              constructor(stream) {
                if (!writableAllowed) throw new TypeError("Illegal constructor");
                this.#stream = stream;
              }
              get signal() { return this.#aborts.signal; }
              error(reason = undefined) { writableInternals.error(this.#stream, reason); }
              static { writableInternals = { abortSignal: (controller, reason) => controller.#aborts.abort(reason) }; }
            }
            define(WritableStreamDefaultController.prototype, Symbol.toStringTag, { value: "WritableStreamDefaultController", configurable: true });

            class WritableStream {
              #state = "writable"; #sink; #controller; #highWaterMark; #size; #queue = []; #queued = 0; #writing = false; #started = false;
              #writer = null; #closing = null; #error; #readyWaiters = []; #closedWaiters = [];
              constructor(sink = undefined, strategy = undefined) {
                this.#sink = sink === undefined || sink === null ? {} : sink;
                const mark = strategy && strategy.highWaterMark !== undefined ? Number(strategy.highWaterMark) : 1;
                if (Number.isNaN(mark) || mark < 0) throw new RangeError("The highWaterMark is not a non-negative number");
                this.#highWaterMark = mark;
                this.#size = strategy && typeof strategy.size === "function" ? strategy.size : () => 1;
                writableAllowed = true;
                try { this.#controller = new WritableStreamDefaultController(this); } finally { writableAllowed = false; }
                const start = this.#sink.start;
                let started;
                try { started = Promise.resolve(typeof start === "function" ? start.call(this.#sink, this.#controller) : undefined); } catch (error) { started = Promise.reject(error); }
                started.then(() => { this.#started = true; this.#advance(); }, reason => this.#fail(reason));
              }
              get locked() { return this.#writer !== null; }
              getWriter() {
                if (this.#writer !== null) throw new TypeError("WritableStream is locked");
                writerAllowed = true;
                try { return new WritableStreamDefaultWriter(this); } finally { writerAllowed = false; }
              }
              abort(reason = undefined) {
                if (this.#writer !== null) return Promise.reject(new TypeError("WritableStream is locked"));
                return this.#abort(reason);
              }
              close() {
                if (this.#writer !== null) return Promise.reject(new TypeError("WritableStream is locked"));
                return this.#close();
              }
              #desiredSize() { return this.#state === "errored" ? null : this.#state === "closed" ? 0 : this.#highWaterMark - this.#queued; }
              #write(chunk) {
                if (this.#state === "errored") return Promise.reject(this.#error);
                if (this.#state === "closed" || this.#closing !== null) return Promise.reject(new TypeError("WritableStream is closed or closing"));
                let size;
                try { size = Number(this.#size(chunk)); } catch (error) { this.#fail(error); return Promise.reject(error); }
                return new Promise((resolve, reject) => {
                  this.#queue.push({ chunk, size, resolve, reject });
                  this.#queued += size;
                  this.#advance();
                });
              }
              #close() {
                if (this.#state === "errored") return Promise.reject(this.#error);
                if (this.#state === "closed" || this.#closing !== null) return Promise.reject(new TypeError("WritableStream is closed or closing"));
                return new Promise((resolve, reject) => { this.#closing = { resolve, reject }; this.#advance(); this.#wakeReady(); });
              }
              #abort(reason) {
                if (this.#state === "closed") return Promise.resolve();
                if (this.#state === "errored") return Promise.resolve();
                writableInternals.abortSignal(this.#controller, reason);
                this.#fail(reason);
                const abort = this.#sink.abort;
                try { return Promise.resolve(typeof abort === "function" ? abort.call(this.#sink, reason) : undefined).then(() => undefined); } catch (error) { return Promise.reject(error); }
              }
              // The sink's next write, or its close once every write is done.
              #advance() {
                if (!this.#started || this.#writing || this.#state !== "writable") return;
                if (this.#queue.length > 0) {
                  const { chunk, size, resolve, reject } = this.#queue[0];
                  this.#writing = true;
                  let written;
                  try { written = Promise.resolve(typeof this.#sink.write === "function" ? this.#sink.write.call(this.#sink, chunk, this.#controller) : undefined); } catch (error) { written = Promise.reject(error); }
                  written.then(() => {
                    this.#writing = false;
                    this.#queue.shift(); this.#queued -= size;
                    resolve(undefined);
                    this.#wakeReady();
                    this.#advance();
                  }, reason => { this.#writing = false; reject(reason); this.#fail(reason); });
                  return;
                }
                if (this.#closing !== null) {
                  const closing = this.#closing;
                  this.#writing = true;
                  let closed;
                  try { closed = Promise.resolve(typeof this.#sink.close === "function" ? this.#sink.close.call(this.#sink) : undefined); } catch (error) { closed = Promise.reject(error); }
                  closed.then(() => {
                    this.#writing = false;
                    this.#state = "closed";
                    closing.resolve(undefined);
                    for (const waiter of this.#closedWaiters.splice(0)) waiter.resolve(undefined);
                  }, reason => { this.#writing = false; closing.reject(reason); this.#fail(reason); });
                }
              }
              #wakeReady() {
                if (this.#desiredSize() > 0 || this.#closing !== null) for (const waiter of this.#readyWaiters.splice(0)) waiter.resolve(undefined);
              }
              #fail(reason) {
                if (this.#state !== "writable") return;
                this.#state = "errored"; this.#error = reason;
                for (const { reject } of this.#queue.splice(0)) reject(reason);
                this.#queued = 0;
                if (this.#closing !== null) { this.#closing.reject(reason); this.#closing = null; }
                for (const waiter of this.#readyWaiters.splice(0)) waiter.reject(reason);
                for (const waiter of this.#closedWaiters.splice(0)) waiter.reject(reason);
              }
              static {
                Object.assign(writableInternals, {
                  error: (stream, reason) => stream.#fail(reason),
                  isStream: value => value !== null && typeof value === "object" && #sink in value,
                  lock: (stream, writer) => { stream.#writer = writer; },
                  release: stream => { stream.#writer = null; },
                  write: (stream, chunk) => stream.#write(chunk),
                  close: stream => stream.#close(),
                  abort: (stream, reason) => stream.#abort(reason),
                  desiredSize: stream => stream.#desiredSize(),
                  ready(stream) {
                    if (stream.#state === "errored") return Promise.reject(stream.#error);
                    if (stream.#state !== "writable" || stream.#desiredSize() > 0 || stream.#closing !== null) return Promise.resolve(undefined);
                    return new Promise((resolve, reject) => stream.#readyWaiters.push({ resolve, reject }));
                  },
                  closed(stream) {
                    if (stream.#state === "closed") return Promise.resolve(undefined);
                    if (stream.#state === "errored") return Promise.reject(stream.#error);
                    return new Promise((resolve, reject) => stream.#closedWaiters.push({ resolve, reject }));
                  },
                });
              }
            }
            define(WritableStream.prototype, Symbol.toStringTag, { value: "WritableStream", configurable: true });

            class WritableStreamDefaultWriter {
              #stream;
              constructor(stream) {
                if (!writerAllowed) {
                  if (!writableInternals.isStream(stream)) throw new TypeError("WritableStreamDefaultWriter needs a WritableStream");
                  return stream.getWriter();
                }
                this.#stream = stream;
                writableInternals.lock(stream, this);
              }
              #released() { return Promise.reject(new TypeError("The writer was released")); }
              get closed() { return this.#stream === null ? this.#released() : writableInternals.closed(this.#stream); }
              get ready() { return this.#stream === null ? this.#released() : writableInternals.ready(this.#stream); }
              get desiredSize() {
                if (this.#stream === null) throw new TypeError("The writer was released");
                return writableInternals.desiredSize(this.#stream);
              }
              write(chunk = undefined) { return this.#stream === null ? this.#released() : writableInternals.write(this.#stream, chunk); }
              close() { return this.#stream === null ? this.#released() : writableInternals.close(this.#stream); }
              abort(reason = undefined) { return this.#stream === null ? this.#released() : writableInternals.abort(this.#stream, reason); }
              releaseLock() {
                if (this.#stream === null) return;
                writableInternals.release(this.#stream);
                this.#stream = null;
              }
            }
            define(WritableStreamDefaultWriter.prototype, Symbol.toStringTag, { value: "WritableStreamDefaultWriter", configurable: true });

            let transformAllowed = false;
            class TransformStreamDefaultController {
              #enqueue; #error; #terminate; #desiredSize;
              constructor(parts) {
                if (!transformAllowed) throw new TypeError("Illegal constructor");
                ({ enqueue: this.#enqueue, error: this.#error, terminate: this.#terminate, desiredSize: this.#desiredSize } = parts);
              }
              get desiredSize() { return this.#desiredSize(); }
              enqueue(chunk = undefined) { this.#enqueue(chunk); }
              error(reason = undefined) { this.#error(reason); }
              terminate() { this.#terminate(); }
            }
            define(TransformStreamDefaultController.prototype, Symbol.toStringTag, { value: "TransformStreamDefaultController", configurable: true });

            // A writable side whose chunks the transformer turns into the readable side's.
            class TransformStream {
              #readable; #writable;
              constructor(transformer = undefined, writableStrategy = undefined, readableStrategy = undefined) {
                const made = transformer === undefined || transformer === null ? {} : transformer;
                let output;
                // Backpressure, as the standard has it: a write is transformed only once the
                // readable side wants more (a read waits, or its queue is below its mark).
                let backpressure = true, relieve = null;
                const wanted = () => backpressure ? new Promise(resolve => { relieve = resolve; }) : Promise.resolve();
                this.#readable = new ReadableStream({
                  start(controller) { output = controller; },
                  pull() {
                    backpressure = false;
                    if (relieve !== null) { const resolve = relieve; relieve = null; resolve(); }
                  },
                  cancel: reason => writableInternals.error(this.#writable, reason),
                }, readableStrategy === undefined ? { highWaterMark: 0 } : readableStrategy);
                const fail = reason => { try { output.error(reason); } catch {} writableInternals.error(this.#writable, reason); };
                transformAllowed = true;
                let controller;
                try {
                  controller = new TransformStreamDefaultController({
                    enqueue: chunk => {
                      output.enqueue(chunk);
                      if (!(output.desiredSize > 0)) backpressure = true;
                    },
                    error: fail,
                    terminate: () => { try { output.close(); } catch {} writableInternals.error(this.#writable, new TypeError("The TransformStream was terminated")); },
                    desiredSize: () => output.desiredSize,
                  });
                } finally { transformAllowed = false; }
                this.#writable = new WritableStream({
                  start: () => typeof made.start === "function" ? made.start.call(made, controller) : undefined,
                  // What the transformer throws errors both sides.
                  write: chunk => wanted().then(() => {
                    let transformed;
                    try { transformed = typeof made.transform === "function" ? made.transform.call(made, chunk, controller) : controller.enqueue(chunk); } catch (error) {
                      fail(error);
                      throw error;
                    }
                    return Promise.resolve(transformed).catch(error => { fail(error); throw error; });
                  }),
                  // What `flush` throws errors the readable side too, as the standard has it (a
                  // reader waited for good on a stream whose flush failed).
                  close: () => {
                    let flushed;
                    try { flushed = typeof made.flush === "function" ? made.flush.call(made, controller) : undefined; } catch (error) {
                      fail(error);
                      return Promise.reject(error);
                    }
                    return Promise.resolve(flushed).then(() => { try { output.close(); } catch {} }, error => { fail(error); throw error; });
                  },
                  abort: reason => { try { output.error(reason); } catch {} },
                }, writableStrategy);
              }
              get readable() { return this.#readable; }
              get writable() { return this.#writable; }
            }
            define(TransformStream.prototype, Symbol.toStringTag, { value: "TransformStream", configurable: true });

            // Bytes to text as they come, a character split across chunks kept for the next.
            class TextDecoderStream {
              #decoder; #transform;
              constructor(label = "utf-8", options = undefined) {
                const decoder = this.#decoder = new TextDecoder(label, options);
                this.#transform = new TransformStream({
                  transform(chunk, controller) {
                    if (!isView(chunk) && !(chunk instanceof ArrayBuffer)) throw new TypeError("TextDecoderStream takes only ArrayBuffer or ArrayBufferView chunks");
                    const text = decoder.decode(chunk, { stream: true });
                    if (text !== "") controller.enqueue(text);
                  },
                  flush(controller) {
                    const text = decoder.decode();
                    if (text !== "") controller.enqueue(text);
                  },
                });
              }
              get encoding() { return this.#decoder.encoding; }
              get fatal() { return this.#decoder.fatal; }
              get ignoreBOM() { return this.#decoder.ignoreBOM; }
              get readable() { return this.#transform.readable; }
              get writable() { return this.#transform.writable; }
            }
            define(TextDecoderStream.prototype, Symbol.toStringTag, { value: "TextDecoderStream", configurable: true });

            // Text to UTF-8 bytes as it comes, a surrogate pair split across chunks kept whole.
            class TextEncoderStream {
              #transform;
              constructor() {
                const encoder = new TextEncoder();
                let pending = "";
                this.#transform = new TransformStream({
                  transform(chunk, controller) {
                    let text = pending + String(chunk);
                    pending = "";
                    const last = text.charCodeAt(text.length - 1);
                    if (last >= 0xD800 && last <= 0xDBFF) { pending = text.slice(-1); text = text.slice(0, -1); }
                    if (text !== "") controller.enqueue(encoder.encode(text));
                  },
                  flush(controller) { if (pending !== "") controller.enqueue(encoder.encode(pending)); },
                });
              }
              get encoding() { return "utf-8"; }
              get readable() { return this.#transform.readable; }
              get writable() { return this.#transform.writable; }
            }
            define(TextEncoderStream.prototype, Symbol.toStringTag, { value: "TextEncoderStream", configurable: true });

            // Compression Streams: gzip, deflate (zlib) and deflate-raw, compressed or
            // decompressed natively (zlib) a slice at a time. A stream that is never finished
            // lets its native state go when it is collected.
            const zlib = (...list) => native.platform("zlib", ...list);
            const zlibForget = typeof FinalizationRegistry === "function" ? new FinalizationRegistry(handle => zlib("close", handle)) : undefined;
            const zlibTransform = (owner, name, format, compresses) => {
              if (format === undefined) throw new TypeError(`${name} constructor: Not enough arguments`);
              format = String(format);
              if (format !== "gzip" && format !== "deflate" && format !== "deflate-raw") throw new TypeError(`Unsupported compression format: '${format}'`);
              const handle = zlib("open", format, compresses);
              let open = true;
              const close = () => { if (open) { open = false; zlib("close", handle); } };
              if (zlibForget !== undefined) zlibForget.register(owner, handle);
              const guarded = step => (...list) => { try { return step(...list); } catch (error) { close(); throw error; } };
              return new TransformStream({
                transform: guarded((chunk, controller) => {
                  if (!isView(chunk) && !(chunk instanceof ArrayBuffer)) throw new TypeError(`${name} takes only ArrayBuffer or ArrayBufferView chunks`);
                  const bytes = chunk instanceof ArrayBuffer ? new Uint8Array(chunk) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
                  // A slice of 64 KB at a time: what one call decompresses stays within
                  // deflate's largest ratio of it (about 66 MB).
                  for (let start = 0; start < bytes.length; start += 65536) {
                    const out = zlib("push", handle, bytes.slice(start, start + 65536));
                    if (out.length > 0) controller.enqueue(out);
                  }
                }),
                flush: guarded(controller => {
                  open = false;
                  const out = zlib("finish", handle);
                  if (out.length > 0) controller.enqueue(out);
                }),
              });
            };
            class CompressionStream {
              #transform;
              constructor(format) { this.#transform = zlibTransform(this, "CompressionStream", format, true); }
              get readable() { return this.#transform.readable; }
              get writable() { return this.#transform.writable; }
            }
            define(CompressionStream.prototype, Symbol.toStringTag, { value: "CompressionStream", configurable: true });
            class DecompressionStream {
              #transform;
              constructor(format) { this.#transform = zlibTransform(this, "DecompressionStream", format, false); }
              get readable() { return this.#transform.readable; }
              get writable() { return this.#transform.writable; }
            }
            define(DecompressionStream.prototype, Symbol.toStringTag, { value: "DecompressionStream", configurable: true });
            hooks.writable = writableInternals;
        """#

    /// `ReadableStream`'s `pipeTo` and `pipeThrough`, part of ``source``: chunks go from the
    /// stream's reader to the destination's writer one at a time, each write waiting for the
    /// writer's `ready`; the end closes the destination, a source's error aborts it, a
    /// destination's error cancels the source (unless the options prevent it), and an
    /// `AbortSignal` does both.
    static let pipeSource = #"""
          method(ReadableStream.prototype, "pipeTo", function pipeTo(destination, options = undefined) {
            const writable = hooks.writable;
            if (!streamInternals.isStream(this)) return Promise.reject(new TypeError("pipeTo is called on a ReadableStream"));
            if (writable === null || !writable.isStream(destination)) return Promise.reject(new TypeError("pipeTo's destination is not a WritableStream"));
            if (this.locked) return Promise.reject(new TypeError("ReadableStream is locked"));
            if (destination.locked) return Promise.reject(new TypeError("WritableStream is locked"));
            const preventClose = !!(options && options.preventClose), preventAbort = !!(options && options.preventAbort);
            const preventCancel = !!(options && options.preventCancel), signal = options ? options.signal : undefined;
            const reader = this.getReader(), writer = destination.getWriter();
            const ignore = () => {};
            return new Promise((resolve, reject) => {
              let done = false;
              const finish = (error, failed) => {
                if (done) return;
                done = true;
                reader.releaseLock(); writer.releaseLock();
                if (failed) reject(error); else resolve(undefined);
              };
              if (signal !== undefined && signal !== null) {
                const aborted = () => {
                  const reason = signal.reason;
                  if (!preventAbort) writer.abort(reason).then(ignore, ignore);
                  if (!preventCancel) reader.cancel(reason).then(ignore, ignore);
                  finish(reason, true);
                };
                if (signal.aborted) { aborted(); return; }
                signal.addEventListener("abort", aborted);
              }
              (async () => {
                for (;;) {
                  try { await writer.ready; } catch (error) {
                    if (!preventCancel) await reader.cancel(error).catch(ignore);
                    return finish(error, true);
                  }
                  if (done) return;
                  let read;
                  try { read = await reader.read(); } catch (error) {
                    if (!preventAbort) await writer.abort(error).catch(ignore);
                    return finish(error, true);
                  }
                  if (done) return;
                  if (read.done) {
                    if (!preventClose) {
                      try { await writer.close(); } catch (error) { return finish(error, true); }
                    }
                    return finish(undefined, false);
                  }
                  writer.write(read.value).then(ignore, ignore);
                }
              })();
            });
          });
          method(ReadableStream.prototype, "pipeThrough", function pipeThrough(transform, options = undefined) {
            if (transform === null || typeof transform !== "object" || transform.readable === undefined || transform.writable === undefined) {
              throw new TypeError("pipeThrough takes an object with readable and writable streams");
            }
            const piped = this.pipeTo(transform.writable, options);
            piped.then(() => {}, () => {});
            return transform.readable;
          });
        """#
}
