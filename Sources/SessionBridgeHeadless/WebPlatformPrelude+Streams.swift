extension WebPlatformPrelude {
    /// `ReadableStream`, `ReadableStreamDefaultReader` and `ReadableStreamDefaultController`
    /// (WHATWG Streams), part of ``source``: a stream of chunks from an underlying source's
    /// `start`, `pull` and `cancel`, read through one reader at a time; a response's `body`
    /// (``DocumentPrelude``) is one, which gives its bytes as one `Uint8Array`. As in WebKit 2.50,
    /// a stream is not async-iterable. Not here: byte streams' BYOB readers. (`pipeTo`,
    /// `pipeThrough` and the writable side are ``pipeSource``'s and ``writableStreamsSource``'s.)
    static let streamsSource = #"""
          let streamInternals, readerAllowed = false, controllerAllowed = false;
          class ReadableStreamDefaultController {
            #stream;
            constructor(stream) {
              if (!controllerAllowed) throw new TypeError("Illegal constructor");
              this.#stream = stream;
            }
            get desiredSize() { return streamInternals.desiredSize(this.#stream); }
            enqueue(chunk = undefined) { streamInternals.enqueue(this.#stream, chunk); }
            close() { streamInternals.close(this.#stream); }
            error(reason = undefined) { streamInternals.error(this.#stream, reason); }
          }
          define(ReadableStreamDefaultController.prototype, Symbol.toStringTag, { value: "ReadableStreamDefaultController", configurable: true });

          class ReadableStream {
            #state = "readable"; #queue = []; #reads = []; #reader = null; #error; #source; #controller; #highWaterMark;
            #started = false; #pulling = false; #pullAgain = false; #closeRequested = false; #disturbed = false; #closedWaiters = [];
            constructor(source = undefined, strategy = undefined) {
              this.#source = source === undefined || source === null ? {} : source;
              const mark = strategy && strategy.highWaterMark !== undefined ? Number(strategy.highWaterMark) : 1;
              if (Number.isNaN(mark) || mark < 0) throw new RangeError("The highWaterMark is not a non-negative number");
              this.#highWaterMark = mark;
              controllerAllowed = true;
              try { this.#controller = new ReadableStreamDefaultController(this); } finally { controllerAllowed = false; }
              const start = this.#source.start;
              const started = typeof start === "function" ? start.call(this.#source, this.#controller) : undefined;
              Promise.resolve(started).then(() => { this.#started = true; this.#pullIfNeeded(); }, reason => this.#fail(reason));
            }
            get locked() { return this.#reader !== null; }
            getReader(options = undefined) {
              if (options && options.mode !== undefined && String(options.mode) === "byob") throw new TypeError("ReadableStream does not support BYOB readers here");
              if (this.#reader !== null) throw new TypeError("ReadableStream is locked");
              readerAllowed = true;
              try { return new ReadableStreamDefaultReader(this); } finally { readerAllowed = false; }
            }
            cancel(reason = undefined) {
              if (this.#reader !== null) return Promise.reject(new TypeError("ReadableStream is locked"));
              return this.#cancel(reason);
            }
            // Two streams of this one's chunks (the same objects in both), read from it as either
            // branch asks; it is cancelled once both are.
            tee() {
              const reader = this.getReader(), cancelled = [false, false], reasons = [];
              let reading = null, branches;
              const pull = () => {
                if (reading === null) {
                  reading = reader.read().then(({ value, done }) => {
                    reading = null;
                    for (let index = 0; index < 2; index++) {
                      if (cancelled[index] || !streamInternals.open(branches[index])) continue;
                      if (done) streamInternals.close(branches[index]); else streamInternals.enqueue(branches[index], value);
                    }
                  }, reason => { for (const branch of branches) streamInternals.error(branch, reason); });
                }
                return reading;
              };
              const branch = index => new ReadableStream({
                pull,
                cancel(reason) {
                  cancelled[index] = true; reasons[index] = reason;
                  return cancelled[0] && cancelled[1] ? reader.cancel(reasons) : undefined;
                },
              }, { highWaterMark: 0 });
              branches = [branch(0), branch(1)];
              return branches;
            }
            #cancel(reason) {
              this.#disturbed = true;
              if (this.#state === "closed") return Promise.resolve();
              if (this.#state === "errored") return Promise.reject(this.#error);
              this.#queue = [];
              this.#finish();
              const cancel = this.#source.cancel;
              try { return Promise.resolve(typeof cancel === "function" ? cancel.call(this.#source, reason) : undefined).then(() => undefined); } catch (error) { return Promise.reject(error); }
            }
            #finish() {
              this.#state = "closed";
              for (const read of this.#reads.splice(0)) read.resolve({ value: undefined, done: true });
              for (const waiter of this.#closedWaiters.splice(0)) waiter.resolve(undefined);
            }
            #fail(reason) {
              if (this.#state !== "readable") return;
              this.#state = "errored"; this.#error = reason; this.#queue = [];
              for (const read of this.#reads.splice(0)) read.reject(reason);
              for (const waiter of this.#closedWaiters.splice(0)) waiter.reject(reason);
            }
            #pullIfNeeded() {
              if (!this.#started || this.#state !== "readable" || this.#closeRequested) return;
              if (this.#reads.length === 0 && this.#highWaterMark - this.#queue.length <= 0) return;
              if (this.#pulling) { this.#pullAgain = true; return; }
              const pull = this.#source.pull;
              if (typeof pull !== "function") return;
              this.#pulling = true;
              let pulled;
              try { pulled = Promise.resolve(pull.call(this.#source, this.#controller)); } catch (error) { pulled = Promise.reject(error); }
              pulled.then(() => {
                this.#pulling = false;
                if (this.#pullAgain) { this.#pullAgain = false; this.#pullIfNeeded(); }
              }, reason => this.#fail(reason));
            }
            static {
              streamInternals = {
                desiredSize: stream => stream.#state === "errored" ? null : stream.#state === "closed" ? 0 : stream.#highWaterMark - stream.#queue.length,
                enqueue(stream, chunk) {
                  if (stream.#state !== "readable" || stream.#closeRequested) throw new TypeError("ReadableStream is closed or errored");
                  if (stream.#reads.length > 0) stream.#reads.shift().resolve({ value: chunk, done: false });
                  else stream.#queue.push(chunk);
                  stream.#pullIfNeeded();
                },
                close(stream) {
                  if (stream.#state !== "readable" || stream.#closeRequested) throw new TypeError("ReadableStream is closed or errored");
                  stream.#closeRequested = true;
                  if (stream.#queue.length === 0) stream.#finish();
                },
                error: (stream, reason) => stream.#fail(reason),
                read(stream) {
                  stream.#disturbed = true;
                  if (stream.#queue.length > 0) {
                    const value = stream.#queue.shift();
                    if (stream.#closeRequested && stream.#queue.length === 0) stream.#finish();
                    else stream.#pullIfNeeded();
                    return Promise.resolve({ value, done: false });
                  }
                  if (stream.#state === "closed") return Promise.resolve({ value: undefined, done: true });
                  if (stream.#state === "errored") return Promise.reject(stream.#error);
                  return new Promise((resolve, reject) => { stream.#reads.push({ resolve, reject }); stream.#pullIfNeeded(); });
                },
                closed(stream) {
                  if (stream.#state === "closed") return Promise.resolve(undefined);
                  if (stream.#state === "errored") return Promise.reject(stream.#error);
                  return new Promise((resolve, reject) => stream.#closedWaiters.push({ resolve, reject }));
                },
                lock: (stream, reader) => { stream.#reader = reader; },
                cancel: (stream, reason) => stream.#cancel(reason),
                release(stream) {
                  stream.#reader = null;
                  for (const read of stream.#reads.splice(0)) read.reject(new TypeError("The reader was released"));
                },
                isStream: value => value !== null && typeof value === "object" && #state in value,
                usable: stream => stream.#reader === null && !stream.#disturbed,
                open: stream => stream.#state === "readable" && !stream.#closeRequested,
              };
            }
          }
          define(ReadableStream.prototype, Symbol.toStringTag, { value: "ReadableStream", configurable: true });

          class ReadableStreamDefaultReader {
            #stream;
            constructor(stream) {
              if (!readerAllowed) {
                if (!streamInternals.isStream(stream)) throw new TypeError("ReadableStreamDefaultReader needs a ReadableStream");
                return stream.getReader();
              }
              this.#stream = stream;
              streamInternals.lock(stream, this);
            }
            get closed() { return this.#stream === null ? Promise.reject(new TypeError("The reader was released")) : streamInternals.closed(this.#stream); }
            read() {
              if (this.#stream === null) return Promise.reject(new TypeError("The reader was released"));
              return streamInternals.read(this.#stream);
            }
            cancel(reason = undefined) {
              if (this.#stream === null) return Promise.reject(new TypeError("The reader was released"));
              return streamInternals.cancel(this.#stream, reason);
            }
            releaseLock() {
              if (this.#stream === null) return;
              streamInternals.release(this.#stream);
              this.#stream = null;
            }
          }
          define(ReadableStreamDefaultReader.prototype, Symbol.toStringTag, { value: "ReadableStreamDefaultReader", configurable: true });

          // A response's body as a stream (the document prelude's `Response`): `take()` gives
          // its bytes once, or throws when the body was read another way.
          hooks.makeStream = take => new ReadableStream({
            pull(controller) {
              const bytes = take();
              if (bytes.length > 0) controller.enqueue(bytes);
              controller.close();
            },
          }, { highWaterMark: 0 });
          hooks.isStream = value => streamInternals.isStream(value);
          hooks.streamUsable = stream => streamInternals.usable(stream);
          // Every chunk of a stream given as a body, joined (each must be bytes).
          hooks.readStream = async stream => {
            const reader = stream.getReader(), parts = [];
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              if (!isView(value) && !(value instanceof ArrayBuffer)) throw new TypeError("A body's stream gave a chunk that is not bytes");
              parts.push(new Uint8Array(isView(value) ? value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength) : value.slice(0)));
            }
            const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
            let at = 0;
            for (const part of parts) { joined.set(part, at); at += part.length; }
            return joined;
          };
        """#
}
