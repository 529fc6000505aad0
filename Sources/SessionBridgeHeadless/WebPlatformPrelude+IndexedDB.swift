import SessionBridgeScriptEngine

extension WebPlatformPrelude {
    /// `indexedDB` and its interfaces (the Indexed Database API 3.0), part of ``source``'s
    /// late members: databases opened and upgraded with `upgradeneeded`, `blocked` and
    /// `versionchange`; object stores with in-line or out-of-line keys and key generators;
    /// indexes (`unique`, `multiEntry`); stores and indexes renamed in an upgrade;
    /// `IDBKeyRange`; cursors in the four directions (`continue`, `continuePrimaryKey`,
    /// `advance`, `update`, `delete`); transactions that
    /// run in the order the standard gives (a `readwrite` one waits for those before it over
    /// the same stores), commit on their own once they have nothing left to do, and abort on an
    /// error no listener prevented, on a listener's exception, or on `abort()`, every change
    /// reverted; `indexedDB.databases()` and `cmp`. Keys compare as the standard orders them
    /// (numbers, dates, strings, binary, arrays): each key has a text code that sorts in that
    /// order. Values are stored as the structured clone of what was put.
    ///
    /// Each document holds a copy of the databases it opened and reads them there; a
    /// transaction that changed something saves the whole database natively when it commits
    /// (``IndexedDatabases``: shared by the pages of the data store, saved with a persistent
    /// store's profile), and a transaction starting after another document committed reads
    /// the database again; one committing after another document committed makes its changes
    /// again on the newest state. Across documents, a transaction takes its object stores
    /// natively when it starts (alone to write, shared to read) and gives them back when it
    /// ends, so it waits for another page's over the same stores, as WebKit's do. An upgrade
    /// or a deletion asks the other documents' connections to close (a broadcast channel of
    /// the platform's own) and waits until they have (their connections are counted natively,
    /// and forgotten with their document); clearing the store's data, or the app deleting a
    /// database, closes the connections to it (a `close` event), and nothing they had read is
    /// written back. `Blob`s and
    /// `File`s are stored with their bytes; `CryptoKey`s with their material kept natively, the
    /// database's state holding an id (``StoredCryptoKey``), so that a key read back in any
    /// page of the store, or after a restart, works as the one put and stays as unexportable.
    ///
    /// Evaluated apart, on a script's first read of `indexedDB` or one of its interfaces
    /// (`native.platform("indexedDB")`), with the platform's members it uses: its 60 KB would
    /// otherwise add about 0.3 ms to every document that reads any platform member.
    /// ``indexedDBSource``, kept parsed by each engine thread that evaluates it.
    static let indexedDBScript = ScriptSource(indexedDBSource, sourceURL: "sessionbridge://prelude/indexeddb.js")

    static let indexedDBSource = #"""
        (function (scope) {
          "use strict";
          const { native, hooks, define, notEnough, DOMException, Event, EventTarget, trusted, structuredClone, has, dateValue, regExpSource, regExpFlags, bufferLength, bufferSlice, bufferDetached, isView, typedArrayName, viewBuffer, viewOffset, viewLength, dataViewBuffer, dataViewOffset, dataViewLength, mapSize, mapEntries, setSize, setValues, wrappers, typedArrays, errors, member, platformClone, platformClones, dataCloneError, builtinTag, ownDescriptor, text, Blob, File, isBlob, blobBytes, BroadcastChannel, wireForm, keyAlgorithm } = scope;
          const idbNative = (...request) => {
            try { return native.indexedDB(...request); }
            catch (error) { throw error.name === "SecurityError" ? new DOMException(error.message, "SecurityError") : error; }
          };
          const idbError = (name, message) => new DOMException(message, name);
          const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

          // Keys: converted from values, copied back to values, and coded as text that sorts
          // as the standard orders keys (number < date < string < binary < array).
          const float64 = new DataView(new ArrayBuffer(8));
          const hex = (value, width) => value.toString(16).padStart(width, "0");
          const numberCode = number => {
            float64.setFloat64(0, number === 0 ? 0 : number);
            let high = float64.getUint32(0), low = float64.getUint32(4);
            if (high >= 0x80000000) { high = ~high >>> 0; low = ~low >>> 0; } else high = (high + 0x80000000) >>> 0;
            return hex(high, 8) + hex(low, 8);
          };
          const isBuffer = value => has(bufferLength, value);
          const toKey = (value, seen = null) => {
            if (typeof value === "number") return Number.isNaN(value) ? undefined : value;
            if (typeof value === "string") return value;
            if (value === null || typeof value !== "object") return undefined;
            if (has(dateValue, value)) { const time = dateValue.call(value); return Number.isNaN(time) ? undefined : new Date(time); }
            if (isBuffer(value)) return bufferDetached && bufferDetached.get.call(value) ? undefined : bufferSlice.call(value, 0);
            if (isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength).slice().buffer;
            if (Array.isArray(value)) {
              if (seen === null) seen = [];
              if (seen.includes(value)) return undefined;
              seen.push(value);
              const length = value.length, out = [];
              for (let index = 0; index < length; index++) {
                if (!hasOwn(value, index)) return undefined;
                const key = toKey(value[index], seen);
                if (key === undefined) return undefined;
                out.push(key);
              }
              seen.pop();
              return out;
            }
            return undefined;
          };
          const keyCode = key => {
            if (typeof key === "number") return "1" + numberCode(key);
            if (typeof key === "string") {
              let out = "3";
              for (let index = 0; index < key.length; index++) out += "1" + hex(key.charCodeAt(index), 4);
              return out + "0";
            }
            if (Array.isArray(key)) {
              let out = "5";
              for (const element of key) out += keyCode(element);
              return out + "0";
            }
            if (isBuffer(key)) {
              let out = "4";
              for (const byte of new Uint8Array(key)) out += "1" + hex(byte, 2);
              return out + "0";
            }
            return "2" + numberCode(dateValue.call(key));
          };
          const keyValue = key => typeof key !== "object" ? key : Array.isArray(key) ? key.map(keyValue)
            : isBuffer(key) ? bufferSlice.call(key, 0) : new Date(dateValue.call(key));
          const validKey = (value, what) => {
            const key = toKey(value);
            if (key === undefined) throw idbError("DataError", `Failed to execute '${what}': The parameter is not a valid key.`);
            return key;
          };

          // Values: the structured clone of what was put, in its wire form (``wireFormSource``),
          // which the database's text holds; a CryptoKey's material is kept natively beside the
          // databases, and the tree holds its id.
          const { toWire, fromWire } = wireForm();
          const serialize = value => toWire(value, key => native.indexedDB("storeKey", "", key.handle, key.type, key.extractable, keyAlgorithm(key.algorithm), key.usages));
          const deserialize = tree => fromWire(tree, id => native.indexedDB("readKey", "", id));

          // Key paths (a string of identifiers joined by dots, "", or a list of those).
          const identifier = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u;
          const validPath = path => path === "" || path.split(".").every(part => identifier.test(part));
          const keyPathOption = (path, what) => {
            if (path === null || path === undefined) return null;
            if (Array.isArray(path) || (typeof path === "object" && typeof path[Symbol.iterator] === "function")) {
              const list = [...path].map(String);
              if (list.length === 0 || !list.every(validPath)) throw idbError("SyntaxError", `Failed to execute '${what}': The keyPath option is not a valid key path.`);
              return list;
            }
            const text = String(path);
            if (!validPath(text)) throw idbError("SyntaxError", `Failed to execute '${what}': The keyPath option is not a valid key path.`);
            return text;
          };
          const evaluatePath = (value, path) => {
            if (Array.isArray(path)) {
              const out = [];
              for (const part of path) {
                const key = evaluatePath(value, part);
                if (key === undefined) return undefined;
                out.push(key);
              }
              return out;
            }
            if (path === "") return value;
            let current = value;
            for (const part of path.split(".")) {
              if (typeof current === "string" && part === "length") { current = current.length; continue; }
              if (current === null || typeof current !== "object") return undefined;
              if (Array.isArray(current) && part === "length") { current = current.length; continue; }
              if (!hasOwn(current, part)) return undefined;
              current = current[part];
            }
            return current;
          };
          const pathKey = (value, path) => { const raw = evaluatePath(value, path); return raw === undefined ? undefined : toKey(raw); };
          const copyPath = path => Array.isArray(path) ? path.slice() : path;
          // Whether a generated key can be put at `path` in `value`, and putting it there.
          const injectable = (value, path) => {
            let current = value;
            for (const part of path.split(".").slice(0, -1)) {
              if (current === null || typeof current !== "object") return false;
              if (!hasOwn(current, part)) return true;
              current = current[part];
            }
            return current !== null && typeof current === "object";
          };
          const inject = (value, path, key) => {
            const parts = path.split(".");
            let current = value;
            for (const part of parts.slice(0, -1)) {
              if (!hasOwn(current, part)) define(current, part, member({}));
              current = current[part];
            }
            define(current, parts[parts.length - 1], member(key));
          };

          // Sorted arrays of records (by `code`) and index entries (by `code`, then `primary`).
          const compareEntry = (a, b) => a.code < b.code ? -1 : a.code > b.code ? 1 : a.primary < b.primary ? -1 : a.primary > b.primary ? 1 : 0;
          // The first position whose item is not below `probe` (`after`: above it).
          const position = (list, probe, compare, after = false) => {
            let low = 0, high = list.length;
            while (low < high) {
              const middle = (low + high) >>> 1, order = compare(list[middle], probe);
              if (order < 0 || (after && order === 0)) low = middle + 1; else high = middle;
            }
            return low;
          };
          const byCode = (item, code) => item.code < code ? -1 : item.code > code ? 1 : 0;

          // Key ranges, as codes (null: unbounded).
          const rangeIncludes = (range, code) =>
            (range.lower === null || (range.lowerOpen ? code > range.lower : code >= range.lower))
            && (range.upper === null || (range.upperOpen ? code < range.upper : code <= range.upper));
          let rangeOf, makeRange;
          class IDBKeyRange {
            #lower; #upper; #lowerOpen; #upperOpen; #codes;
            constructor() {
              if (makeRange.allowed !== true) throw new TypeError("Illegal constructor");
              [this.#lower, this.#upper, this.#lowerOpen, this.#upperOpen] = makeRange.fields;
              this.#codes = {
                lower: this.#lower === undefined ? null : keyCode(this.#lower), upper: this.#upper === undefined ? null : keyCode(this.#upper),
                lowerOpen: this.#lowerOpen, upperOpen: this.#upperOpen,
              };
            }
            get lower() { return this.#lower === undefined ? undefined : keyValue(this.#lower); }
            get upper() { return this.#upper === undefined ? undefined : keyValue(this.#upper); }
            get lowerOpen() { return this.#lowerOpen; }
            get upperOpen() { return this.#upperOpen; }
            includes(key) {
              if (arguments.length < 1) throw notEnough("IDBKeyRange.includes", 1);
              return rangeIncludes(this.#codes, keyCode(validKey(key, "includes")));
            }
            static only(value) {
              if (arguments.length < 1) throw notEnough("IDBKeyRange.only", 1);
              const key = validKey(value, "only");
              return makeRange(key, key, false, false);
            }
            static lowerBound(value, open = false) {
              if (arguments.length < 1) throw notEnough("IDBKeyRange.lowerBound", 1);
              return makeRange(validKey(value, "lowerBound"), undefined, !!open, true);
            }
            static upperBound(value, open = false) {
              if (arguments.length < 1) throw notEnough("IDBKeyRange.upperBound", 1);
              return makeRange(undefined, validKey(value, "upperBound"), true, !!open);
            }
            static bound(lower, upper, lowerOpen = false, upperOpen = false) {
              if (arguments.length < 2) throw notEnough("IDBKeyRange.bound", 2);
              const low = validKey(lower, "bound"), high = validKey(upper, "bound"), lowCode = keyCode(low), highCode = keyCode(high);
              if (lowCode > highCode || (lowCode === highCode && (lowerOpen || upperOpen))) {
                throw idbError("DataError", "Failed to execute 'bound' on 'IDBKeyRange': The lower key is greater than the upper key.");
              }
              return makeRange(low, high, !!lowerOpen, !!upperOpen);
            }
            static {
              makeRange = (...fields) => {
                makeRange.allowed = true;
                makeRange.fields = fields;
                try { return new IDBKeyRange(); } finally { makeRange.allowed = false; makeRange.fields = null; }
              };
              rangeOf = range => range.#codes;
            }
          }
          const unbounded = { lower: null, upper: null, lowerOpen: false, upperOpen: false };
          // A query (a key or a range) as a range of codes; `null` and `undefined` are every key
          // where `nullable`.
          const queryRange = (query, nullable, what) => {
            if (query instanceof IDBKeyRange) return rangeOf(query);
            if ((query === undefined || query === null) && nullable) return unbounded;
            const code = keyCode(validKey(query, what));
            return { lower: code, upper: code, lowerOpen: false, upperOpen: false };
          };

          // A `DOMStringList`: the names of stores and indexes, sorted.
          let makeStringList;
          class DOMStringList {
            #names;
            constructor() {
              if (makeStringList.names === null) throw new TypeError("Illegal constructor");
              this.#names = makeStringList.names;
              this.#names.forEach((name, index) => define(this, index, { value: name, enumerable: true }));
            }
            get length() { return this.#names.length; }
            item(index) { return this.#names[Number(index) >>> 0] ?? null; }
            contains(name) { return this.#names.includes(String(name)); }
            [Symbol.iterator]() { return this.#names[Symbol.iterator](); }
            static {
              makeStringList = names => {
                makeStringList.names = [...names].sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
                try { return new DOMStringList(); } finally { makeStringList.names = null; }
              };
              makeStringList.names = null;
            }
          }

          // Event handler attributes (`onsuccess`, ...): one listener each, at the position of
          // the first assignment, as HTML has them.
          const handlerValues = new WeakMap();
          const handlerAttributes = (prototype, ...types) => {
            for (const type of types) {
              define(prototype, "on" + type, {
                get() { const own = handlerValues.get(this); return own && own[type] ? own[type].value : null; },
                set(value) {
                  let own = handlerValues.get(this);
                  if (own === undefined) handlerValues.set(this, own = { __proto__: null });
                  if (own[type]) { this.removeEventListener(type, own[type].listener); own[type] = null; }
                  if (typeof value !== "function") return;
                  const listener = function (event) { return value.call(this, event); };
                  own[type] = { value, listener };
                  this.addEventListener(type, listener);
                },
                enumerable: true, configurable: true,
              });
            }
          };

          class IDBVersionChangeEvent extends Event {
            #oldVersion; #newVersion;
            constructor(type, init = undefined) {
              if (arguments.length < 1) throw notEnough("IDBVersionChangeEvent", 1);
              super(type, init);
              this.#oldVersion = init && init.oldVersion !== undefined ? Number(init.oldVersion) : 0;
              this.#newVersion = init && init.newVersion !== undefined && init.newVersion !== null ? Number(init.newVersion) : null;
            }
            get oldVersion() { return this.#oldVersion; }
            get newVersion() { return this.#newVersion; }
          }
          const versionEvent = (type, oldVersion, newVersion) => trusted(new IDBVersionChangeEvent(type, { oldVersion, newVersion }));

          // The document's side: its copies of the databases it opened, its connections, and
          // every transaction not finished, in the order they were made.
          const copies = new Map(), connectionsOf = new Map(), opens = new Map();
          const live = [];
          let pumping = false;
          const emptyState = () => ({ version: 0, stores: new Map() });
          // The database's text as `committing` leaves it: a store another transaction is
          // still changing is saved as it was before that transaction.
          const stateText = (state, committing) => {
            const before = new Map();
            for (const tx of live) {
              if (committing === null || tx === committing || tx.name !== committing.name || tx.saved === null) continue;
              for (const content of tx.saved.contents) before.set(content.store, content);
            }
            return JSON.stringify([...state.stores.values()].map(store => {
              const content = before.get(store);
              const records = content ? content.records : store.records, current = content ? content.current : store.current;
              return {
                name: store.name, keyPath: store.keyPath, autoIncrement: store.autoIncrement, current,
                records: records.map(record => [serialize(record.key), record.value]),
                indexes: [...(content ? content.indexes : store.indexes).values()].map(index => {
                  const saved = content ? content.entries.find(([made]) => made === index) : undefined;
                  return {
                    name: index.name, keyPath: index.keyPath, unique: index.unique, multiEntry: index.multiEntry,
                    entries: (saved ? saved[1] : index.entries).map(entry => [serialize(entry.key), entry.primary]),
                  };
                }),
              };
            }));
          };
          const stateFrom = (version, source) => {
            const state = { version, stores: new Map() };
            for (const saved of JSON.parse(source)) {
              const store = { name: saved.name, keyPath: saved.keyPath, autoIncrement: saved.autoIncrement, current: saved.current, records: [], indexes: new Map(), deleted: false };
              for (const [keyTree, value] of saved.records) {
                const key = deserialize(keyTree);
                store.records.push({ code: keyCode(key), key, value });
              }
              for (const index of saved.indexes) {
                const entries = index.entries.map(([keyTree, primary]) => { const key = deserialize(keyTree); return { code: keyCode(key), key, primary }; });
                store.indexes.set(index.name, { name: index.name, keyPath: index.keyPath, unique: index.unique, multiEntry: index.multiEntry, entries, deleted: false });
              }
              state.stores.set(store.name, store);
            }
            return state;
          };
          // The document's copy of `name`, read again if another document committed to it and
          // no transaction of this document is using it.
          const copyOf = name => {
            let copy = copies.get(name);
            if (copy !== undefined && (live.some(tx => tx.name === name && tx.started) || idbNative("generation", name) === copy.generation)) return copy;
            const stored = idbNative("load", name);
            let state = emptyState();
            if (stored !== null) {
              try { state = stateFrom(stored[1], stored[2]); } catch { throw idbError("UnknownError", "The database could not be read."); }
            }
            copy = { generation: stored === null ? -1 : stored[0], state };
            copies.set(name, copy);
            return copy;
          };

          // Requests.
          let requestAccess, allowRequest = false;
          class IDBRequest extends EventTarget {
            #result = undefined; #error = null; #source = null; #transaction = null; #done = false;
            constructor() {
              if (!allowRequest) throw new TypeError("Illegal constructor");
              super();
            }
            get result() {
              if (!this.#done) throw idbError("InvalidStateError", "Failed to read the 'result' property from 'IDBRequest': The request has not finished.");
              return this.#result;
            }
            get error() {
              if (!this.#done) throw idbError("InvalidStateError", "Failed to read the 'error' property from 'IDBRequest': The request has not finished.");
              return this.#error;
            }
            get source() { return this.#source; }
            get transaction() { return this.#transaction; }
            get readyState() { return this.#done ? "done" : "pending"; }
            static {
              requestAccess = {
                make: (kind, source, transaction) => {
                  allowRequest = true;
                  try {
                    const request = new kind();
                    request.#source = source; request.#transaction = transaction;
                    return request;
                  } finally { allowRequest = false; }
                },
                settle: (request, result, error) => { request.#done = true; request.#result = result; request.#error = error; },
                reopen: request => { request.#done = false; request.#result = undefined; request.#error = null; },
                setTransaction: (request, transaction) => { request.#transaction = transaction; },
              };
            }
          }
          handlerAttributes(IDBRequest.prototype, "success", "error");
          class IDBOpenDBRequest extends IDBRequest {}
          handlerAttributes(IDBOpenDBRequest.prototype, "blocked", "upgradeneeded");

          // Transactions: `tx` is the internal record, `tx.object` what scripts hold.
          const overlaps = (a, b) => a.name === b.name && a.scope.some(store => b.scope.includes(store));
          const canStart = tx => {
            for (const other of live) {
              if (other === tx) return true;
              if (other.finished || !overlaps(other, tx)) continue;
              if (other.mode !== "readonly" || tx.mode !== "readonly") return false;
            }
            return true;
          };
          const schedulePump = () => {
            if (pumping) return;
            pumping = true;
            hooks.schedule(pump, 0);
          };
          // One turn: transactions made active in the last turn become inactive (their
          // promise reactions have run since), those that may start start, each started one
          // handles its next request, and those with nothing left to do commit.
          const pump = () => {
            pumping = false;
            try { turn(); } finally {
              // A transaction waiting for another page's is tried again when that page gives its stores back.
              if (live.some(tx => !tx.finished && !tx.waitingForPages) || [...opens.values()].some(queue => queue.length > 0 && !queue[0].running)) schedulePump();
            }
          };
          const turn = () => {
            for (const tx of live) if (tx.state === "active") tx.state = "inactive";
            for (const tx of live.slice()) {
              try { advance(tx); } catch (error) {
                // A fault of this code's, not the page's: the transaction ends, the page's other work goes on.
                native.report(error);
                if (!tx.finished && tx.aborting === null) abort(tx, idbError("UnknownError", "An unknown error occurred within Indexed Database."));
              }
            }
            for (const [name, queue] of opens) if (queue.length > 0 && !queue[0].running) runOpen(name, queue);
          };
          const advance = tx => {
            {
              if (tx.finished) return;
              if (!tx.started) {
                if (!canStart(tx)) return;
                if (tx.aborting === null && !takeStores(tx)) return;
                tx.started = true;
                if (tx.holdsStores) readAgain(tx);
              }
              // An index the records break, in an upgrade: the task after it aborts the upgrade.
              if (tx.failure !== null && tx.aborting === null && tx.state !== "committing") abort(tx, tx.failure);
              if (tx.aborting !== null) { finishAbort(tx); return; }
              if (tx.state === "committing") { complete(tx); return; }
              if (tx.next < tx.requests.length) { handle(tx, tx.requests[tx.next++]); return; }
              if (tx.state === "inactive") commit(tx);
            }
          };
          // Across pages: a transaction takes its object stores from the store's other pages
          // when it starts (alone to write, shared to read) and gives them back once committed
          // or aborted, so that one page's transaction waits for another's over the same stores
          // and then reads what it committed. A page refused tries again when told the stores
          // are back (the platform's channel), or every 20 ms (their page may have gone away).
          let pagesPoll = false;
          const pollPages = () => {
            pagesPoll = false;
            if (live.some(tx => tx.waitingForPages && !tx.finished)) schedulePump();
          };
          const takeStores = tx => {
            if (tx.mode === "versionchange") return true;
            if (!idbNative("acquire", tx.name, tx.mode === "readwrite", tx.scope)) {
              tx.waitingForPages = true;
              channel();
              if (!pagesPoll) { pagesPoll = true; hooks.schedule(pollPages, 20); }
              return false;
            }
            tx.waitingForPages = false;
            tx.holdsStores = true;
            return true;
          };
          const giveBack = tx => {
            if (!tx.holdsStores) return;
            tx.holdsStores = false;
            if (idbNative("relinquish", tx.name, tx.mode === "readwrite", tx.scope)) channel().postMessage({ released: tx.name });
          };
          // A transaction that starts after another page committed reads its stores as committed
          // (in place: its store and index objects stay those the page holds); its commit then
          // makes its changes on the newest state.
          const readAgain = tx => {
            const copy = copies.get(tx.name);
            if (copy === undefined || (tx.base === copy.state && idbNative("generation", tx.name) === copy.generation)) return;
            const stored = idbNative("load", tx.name);
            if (stored === null) return;
            const newest = stateFrom(stored[1], stored[2]);
            for (const name of tx.scope) {
              const store = tx.base.stores.get(name), committed = newest.stores.get(name);
              if (store === undefined || committed === undefined || store.deleted) continue;
              store.records = committed.records;
              store.current = committed.current;
              for (const [indexName, index] of store.indexes) {
                const entries = committed.indexes.get(indexName);
                if (entries !== undefined) index.entries = entries.entries;
              }
            }
          };
          const removeLive = tx => { const at = live.indexOf(tx); if (at >= 0) live.splice(at, 1); };
          // Fires a request's result: `success`, or `error` (bubbling to the transaction and the
          // connection) that aborts the transaction unless a listener prevented it.
          const fire = (tx, request, result, error) => {
            requestAccess.settle(request, result, error);
            if (!tx.commitAsked) tx.state = "active";
            if (error === null) {
              const along = hooks.bubble(trusted(new Event("success")), [request]);
              if (along.threw) abort(tx, idbError("AbortError", "The transaction was aborted, so the request cannot be fulfilled."));
              return;
            }
            const event = trusted(new Event("error", { bubbles: true, cancelable: true }));
            const along = hooks.bubble(event, [request, tx.object, tx.connection.object]);
            if (along.threw) abort(tx, idbError("AbortError", "The transaction was aborted, so the request cannot be fulfilled."));
            else if (!event.defaultPrevented) abort(tx, error);
          };
          const handle = (tx, entry) => {
            let result, error = null;
            try { result = entry.operation(); }
            catch (thrown) { error = thrown instanceof DOMException ? thrown : idbError("UnknownError", "An unknown error occurred within Indexed Database."); }
            fire(tx, entry.request, error === null ? result : undefined, error);
          };
          // Before a transaction's first change: what it would revert to.
          const touch = tx => {
            tx.changed = true;
            if (tx.saved !== null) return;
            // The state the transaction began on (the document's copy may have been read again since).
            const state = tx.base, upgrade = tx.mode === "versionchange";
            tx.saved = {
              version: state.version, stores: upgrade ? new Map(state.stores) : null,
              contents: [...state.stores.values()].filter(store => upgrade || tx.scope.includes(store.name)).map(store => ({
                store, name: store.name, current: store.current, records: store.records, deleted: store.deleted, indexes: new Map(store.indexes),
                entries: [...store.indexes.values()].map(index => [index, index.entries, index.deleted, index.name]),
              })),
            };
          };
          const revert = tx => {
            const saved = tx.saved;
            if (saved === null) return;
            const state = tx.base;
            if (saved.stores !== null) { state.version = saved.version; state.stores = saved.stores; }
            for (const content of saved.contents) {
              const store = content.store;
              store.name = content.name; store.current = content.current; store.records = content.records; store.deleted = content.deleted;
              store.indexes = content.indexes;
              for (const [index, entries, deleted, name] of content.entries) { index.entries = entries; index.deleted = deleted; index.name = name; }
            }
            // Stores made by the transaction are gone.
            for (const store of tx.made) if (!saved.contents.some(content => content.store === store)) store.deleted = true;
          };
          // Another document's commit since this document read the database (or since this
          // transaction began, its copy read again): the transaction's changes are made again on
          // the newest state, so that neither document's are lost; a change that no longer
          // fits (a key another document added) aborts it, as it would have failed run after.
          const replayed = tx => {
            const stored = idbNative("load", tx.name);
            const state = stored === null ? emptyState() : stateFrom(stored[1], stored[2]);
            for (const [kind, name, ...rest] of tx.log) {
              const store = state.stores.get(name);
              if (store === undefined) throw idbError("NotFoundError", "An object store of the transaction was deleted by another document.");
              if (kind === "put") writeRecord(store, rest[0], rest[1], rest[2], () => {});
              else if (kind === "delete") removeRecords(store, new Set(store.records.filter(record => rest[0].has(record.code)).map(record => record.code)));
              else { store.records = []; for (const index of store.indexes.values()) index.entries = []; }
            }
            return { generation: stored === null ? -1 : stored[0], state };
          };
          // The database was deleted by the app, or the store's data cleared, since the
          // connection opened: it writes nothing back, and closes.
          const ended = connection => connection.epoch !== null && idbNative("epoch", connection.name) !== connection.epoch;
          const endedCommit = tx => {
            tx.state = "inactive";
            abort(tx, idbError("AbortError", "The database connection was closed."));
            finishAbort(tx);
            for (const connection of [...openConnections(tx.name)]) forceClose(connection);
          };
          const commit = tx => {
            tx.state = "committing";
            if (tx.changed && ended(tx.connection)) return endedCommit(tx);
            if (tx.changed) {
              const copy = copies.get(tx.name);
              let state = copy.state, text;
              const replaying = tx.mode === "readwrite" && (tx.base !== copy.state || idbNative("generation", tx.name) !== copy.generation);
              try {
                if (replaying) { state = replayed(tx).state; text = stateText(state, null); } else text = stateText(state, tx);
              } catch (error) {
                if (!(error instanceof DOMException)) throw error;
                tx.state = "inactive";
                abort(tx, error);
                finishAbort(tx);
                return;
              }
              const generation = idbNative("commit", tx.name, state.version, text, tx.connection.epoch);
              // The same, decided with the commit (the deletion came in between).
              if (generation === false) return endedCommit(tx);
              if (generation === null) {
                tx.state = "inactive";
                abort(tx, idbError("QuotaExceededError", "The quota has been exceeded."));
                finishAbort(tx);
                return;
              }
              copy.generation = generation;
              // The document reads the newest state from now on; its other transactions under
              // way make their changes again when they commit (their base is gone).
              if (replaying) copy.state = state;
            }
            // Saved: nothing of it is reverted, or held back from another's commit, any more.
            tx.saved = null;
            giveBack(tx);
            schedulePump();
          };
          // The turn after its commit, as WebKit's transactions finish after the commit's round trip.
          const complete = tx => {
            tx.finished = true;
            tx.state = "finished";
            removeLive(tx);
            tx.object.dispatchEvent(trusted(new Event("complete")));
            if (tx.onFinished) tx.onFinished(true);
            connectionDone(tx.connection);
          };
          // Aborts now: its changes reverted, its requests and events to follow in the next turn.
          const abort = (tx, error) => {
            if (tx.finished || tx.aborting !== null || tx.state === "committing") return;
            tx.aborting = { error };
            tx.state = "inactive";
            revert(tx);
            schedulePump();
          };
          const finishAbort = tx => {
            giveBack(tx);
            const error = tx.aborting.error;
            tx.finished = true;
            tx.state = "finished";
            removeLive(tx);
            // `abort()` leaves `error` null; an error, a listener's exception or the quota set it.
            tx.error = error;
            for (const entry of tx.requests.slice(tx.next)) {
              requestAccess.settle(entry.request, undefined, idbError("AbortError", "The transaction was aborted, so the request cannot be fulfilled."));
              const event = trusted(new Event("error", { bubbles: true, cancelable: true }));
              hooks.bubble(event, [entry.request, tx.object, tx.connection.object]);
            }
            tx.next = tx.requests.length;
            hooks.bubble(trusted(new Event("abort", { bubbles: true })), [tx.object, tx.connection.object]);
            if (tx.onFinished) tx.onFinished(false);
            connectionDone(tx.connection);
          };
          // Places a request in `tx`, checked as the standard checks every request.
          const place = (tx, source, operation, request = null) => {
            if (request === null) request = requestAccess.make(IDBRequest, source, tx.object);
            tx.requests.push({ request, operation });
            schedulePump();
            return request;
          };
          const usable = (tx, what, writes) => {
            if (tx.state !== "active" || tx.commitAsked) {
              throw idbError("TransactionInactiveError", `Failed to execute '${what}': The transaction is inactive or finished.`);
            }
            if (writes && tx.mode === "readonly") throw idbError("ReadOnlyError", `Failed to execute '${what}': The transaction is read-only.`);
          };

          let transactionAccess, allowTransaction = false;
          class IDBTransaction extends EventTarget {
            #tx;
            constructor() {
              if (!allowTransaction) throw new TypeError("Illegal constructor");
              super();
            }
            get objectStoreNames() {
              const tx = this.#tx;
              return makeStringList(tx.mode === "versionchange" ? [...tx.base.stores.keys()] : tx.scope);
            }
            get mode() { return this.#tx.mode; }
            get durability() { return this.#tx.durability; }
            get db() { return this.#tx.connection.object; }
            get error() { return this.#tx.error; }
            objectStore(name) {
              if (arguments.length < 1) throw notEnough("IDBTransaction.objectStore", 1);
              const tx = this.#tx, key = String(name);
              if (tx.finished || tx.aborting !== null) throw idbError("InvalidStateError", "Failed to execute 'objectStore' on 'IDBTransaction': The transaction has finished.");
              const store = tx.base.stores.get(key);
              if (store === undefined || store.deleted || (tx.mode !== "versionchange" && !tx.scope.includes(key))) {
                throw idbError("NotFoundError", "Failed to execute 'objectStore' on 'IDBTransaction': The specified object store was not found.");
              }
              return storeObject(tx, store);
            }
            abort() {
              const tx = this.#tx;
              if (tx.finished || tx.aborting !== null || tx.state === "committing") {
                throw idbError("InvalidStateError", "Failed to execute 'abort' on 'IDBTransaction': The transaction has finished.");
              }
              abort(tx, null);
            }
            commit() {
              const tx = this.#tx;
              if (tx.state !== "active") throw idbError("InvalidStateError", "Failed to execute 'commit' on 'IDBTransaction': The transaction is inactive or finished.");
              tx.commitAsked = true;
              tx.state = "inactive";
              schedulePump();
            }
            static {
              transactionAccess = tx => {
                allowTransaction = true;
                try { const object = new IDBTransaction(); object.#tx = tx; return object; } finally { allowTransaction = false; }
              };
            }
          }
          handlerAttributes(IDBTransaction.prototype, "abort", "complete", "error");
          const makeTransaction = (connection, scope, mode) => {
            const tx = {
              name: connection.name, connection, scope, mode, state: "active", started: false, finished: false, aborting: null, commitAsked: false,
              waitingForPages: false, holdsStores: false,
              requests: [], next: 0, error: null, failure: null, log: [], base: null, durability: "default", changed: false, saved: null, made: [], stores: new Map(), onFinished: null, object: null,
            };
            tx.object = transactionAccess(tx);
            tx.base = copies.get(connection.name).state;
            live.push(tx);
            connection.transactions.add(tx);
            schedulePump();
            return tx;
          };

          // Object stores and indexes: one script object per transaction and store.
          const storeObject = (tx, store) => {
            let object = tx.stores.get(store);
            if (object === undefined) { object = storeAccess(tx, store); tx.stores.set(store, object); }
            return object;
          };
          const liveStore = (tx, store, what) => {
            if (store.deleted) throw idbError("InvalidStateError", `Failed to execute '${what}' on 'IDBObjectStore': The object store has been deleted.`);
          };
          // The keys each index has for `value` (none where its key path gives no valid key).
          const indexKeys = (index, value) => {
            const raw = evaluatePath(value, index.keyPath);
            if (raw === undefined) return [];
            if (index.multiEntry && Array.isArray(raw) && !Array.isArray(index.keyPath)) {
              const keys = [], codes = new Set();
              for (const element of raw) {
                const key = toKey(element);
                if (key === undefined) continue;
                const code = keyCode(key);
                if (!codes.has(code)) { codes.add(code); keys.push({ key, code }); }
              }
              return keys;
            }
            const key = toKey(raw);
            return key === undefined ? [] : [{ key, code: keyCode(key) }];
          };
          const removeRecords = (store, codes) => {
            store.records = store.records.filter(record => !codes.has(record.code));
            for (const index of store.indexes.values()) index.entries = index.entries.filter(entry => !codes.has(entry.primary));
          };
          // Stores a record (the standard's "store a record into an object store"); `tree` is
          // the clone as stored, when the caller made it already.
          const storeRecord = (tx, store, key, clone, overwrite, tree = null) => {
            const stored = writeRecord(store, key, clone, overwrite, () => touch(tx), tree);
            changed(tx, ["put", store.name, key, clone, overwrite]);
            return stored;
          };
          // A change as a transaction made it, to make again on a newer state (``commit``).
          const changed = (tx, change) => { if (tx.mode === "readwrite") tx.log.push(change); };
          const writeRecord = (store, key, clone, overwrite, before, tree = null) => {
            const code = keyCode(key);
            const at = position(store.records, code, byCode);
            const exists = at < store.records.length && store.records[at].code === code;
            if (exists && !overwrite) throw idbError("ConstraintError", "Unable to add key to index: at least one key does not satisfy the uniqueness requirements.");
            const added = [];
            for (const index of store.indexes.values()) {
              const keys = indexKeys(index, clone);
              if (index.unique) {
                for (const { code: indexCode } of keys) {
                  const first = position(index.entries, indexCode, byCode);
                  if (first < index.entries.length && index.entries[first].code === indexCode && index.entries[first].primary !== code) {
                    throw idbError("ConstraintError", "Unable to add key to index: at least one key does not satisfy the uniqueness requirements.");
                  }
                }
              }
              added.push([index, keys]);
            }
            before();
            if (typeof key === "number" && store.autoIncrement && key >= store.current) store.current = Math.min(Math.floor(key) + 1, 2 ** 53);
            if (exists) removeRecords(store, new Set([code]));
            const records = store.records.slice();
            records.splice(position(records, code, byCode), 0, { code, key, value: tree ?? serialize(clone) });
            store.records = records;
            for (const [index, keys] of added) {
              const entries = index.entries.slice();
              for (const { key: indexKey, code: indexCode } of keys) {
                const entry = { code: indexCode, key: indexKey, primary: code, primaryKey: key };
                entries.splice(position(entries, entry, compareEntry), 0, entry);
              }
              index.entries = entries;
            }
            return keyValue(key);
          };
          const primaryKeyOf = (index, entry, store) => {
            if (entry.primaryKey !== undefined) return entry.primaryKey;
            const at = position(store.records, entry.primary, byCode);
            return entry.primaryKey = store.records[at].key;
          };
          const recordValue = (store, code) => {
            const at = position(store.records, code, byCode);
            return at < store.records.length && store.records[at].code === code ? deserialize(store.records[at].value) : undefined;
          };
          const inRange = (list, range) => {
            const start = range.lower === null ? 0 : position(list, range.lower, byCode, range.lowerOpen);
            const out = [];
            for (let at = start; at < list.length && rangeIncludes(range, list[at].code); at++) out.push(list[at]);
            return out;
          };
          const countOption = (count, what) => {
            if (count === undefined) return Infinity;
            const number = Number(count);
            if (!Number.isFinite(number) || number < 0 || number > 4294967295) throw new TypeError(`Failed to execute '${what}': Value is outside the 'unsigned long' value range.`);
            return Math.floor(number) === 0 ? Infinity : Math.floor(number);
          };

          // A store's or an index's deletion and rename: the map of their names without `name`,
          // or with `record` under `name` (a new map: the transaction's saved one stays as it
          // was, to revert to).
          const without = (map, name) => {
            const out = new Map(map);
            out.delete(name);
            return out;
          };
          const renamed = (map, record, name) => {
            const out = without(map, record.name);
            out.set(name, record);
            record.name = name;
            return out;
          };
          let storeAccess, allowStore = false;
          class IDBObjectStore {
            #tx; #store;
            constructor() { if (!allowStore) throw new TypeError("Illegal constructor"); }
            get name() { return this.#store.name; }
            // Renamed in an upgrade only (reverted with it when it aborts).
            set name(value) {
              const tx = this.#tx, store = this.#store, key = String(value);
              liveStore(tx, store, "name");
              if (tx.mode !== "versionchange") throw idbError("InvalidStateError", "Failed to set the 'name' property on 'IDBObjectStore': The object store is not in a version change transaction.");
              usable(tx, "name", false);
              if (key === store.name) return;
              const state = tx.base;
              if (state.stores.has(key) && !state.stores.get(key).deleted) {
                throw idbError("ConstraintError", "Failed to set the 'name' property on 'IDBObjectStore': An object store with the specified name already exists.");
              }
              touch(tx);
              state.stores = renamed(state.stores, store, key);
            }
            get keyPath() { return copyPath(this.#store.keyPath); }
            get indexNames() { return makeStringList([...this.#store.indexes.values()].filter(index => !index.deleted).map(index => index.name)); }
            get transaction() { return this.#tx.object; }
            get autoIncrement() { return this.#store.autoIncrement; }
            #check(what, writes) { liveStore(this.#tx, this.#store, what); usable(this.#tx, what, writes); }
            #write(value, key, overwrite, what) {
              this.#check(what, true);
              const store = this.#store, tx = this.#tx;
              if (store.keyPath !== null && key !== undefined) {
                throw idbError("DataError", `Failed to execute '${what}' on 'IDBObjectStore': The object store uses in-line keys and the key parameter was provided.`);
              }
              if (store.keyPath === null && !store.autoIncrement && key === undefined) {
                throw idbError("DataError", `Failed to execute '${what}' on 'IDBObjectStore': The object store uses out-of-line keys and has no key generator and the key parameter was not provided.`);
              }
              let given = key === undefined ? undefined : validKey(key, what);
              const clone = structuredClone(value);
              // Made now, so that what cannot be stored throws here; stored as it is unless a
              // generated key goes into the value.
              let tree = serialize(clone);
              if (store.keyPath !== null) {
                given = pathKey(clone, store.keyPath);
                if (given === undefined) {
                  if (evaluatePath(clone, store.keyPath) !== undefined || !store.autoIncrement) {
                    throw idbError("DataError", `Failed to execute '${what}' on 'IDBObjectStore': Evaluating the object store's key path did not yield a value.`);
                  }
                  if (!injectable(clone, store.keyPath)) throw idbError("DataError", `Failed to execute '${what}' on 'IDBObjectStore': A generated key could not be inserted into the value.`);
                }
              }
              return place(tx, this, () => {
                let recordKey = given;
                if (recordKey === undefined) {
                  if (store.current > 2 ** 53) throw idbError("ConstraintError", "The key generator has reached its maximum.");
                  touch(tx);
                  recordKey = store.current++;
                  if (store.keyPath !== null) { inject(clone, store.keyPath, recordKey); tree = null; }
                }
                return storeRecord(tx, store, recordKey, clone, overwrite, tree);
              });
            }
            put(value, key = undefined) {
              if (arguments.length < 1) throw notEnough("IDBObjectStore.put", 1);
              return this.#write(value, key, true, "put");
            }
            add(value, key = undefined) {
              if (arguments.length < 1) throw notEnough("IDBObjectStore.add", 1);
              return this.#write(value, key, false, "add");
            }
            delete(query) {
              if (arguments.length < 1) throw notEnough("IDBObjectStore.delete", 1);
              this.#check("delete", true);
              const range = queryRange(query, false, "delete"), store = this.#store, tx = this.#tx;
              return place(tx, this, () => {
                const codes = new Set(inRange(store.records, range).map(record => record.code));
                if (codes.size > 0) { touch(tx); removeRecords(store, codes); changed(tx, ["delete", store.name, codes]); }
                return undefined;
              });
            }
            clear() {
              this.#check("clear", true);
              const store = this.#store, tx = this.#tx;
              return place(tx, this, () => {
                touch(tx);
                store.records = [];
                for (const index of store.indexes.values()) index.entries = [];
                changed(tx, ["clear", store.name]);
                return undefined;
              });
            }
            get(query) {
              if (arguments.length < 1) throw notEnough("IDBObjectStore.get", 1);
              this.#check("get", false);
              const range = queryRange(query, false, "get"), store = this.#store;
              return place(this.#tx, this, () => { const [record] = inRange(store.records, range); return record === undefined ? undefined : deserialize(record.value); });
            }
            getKey(query) {
              if (arguments.length < 1) throw notEnough("IDBObjectStore.getKey", 1);
              this.#check("getKey", false);
              const range = queryRange(query, false, "getKey"), store = this.#store;
              return place(this.#tx, this, () => { const [record] = inRange(store.records, range); return record === undefined ? undefined : keyValue(record.key); });
            }
            getAll(query = undefined, count = undefined) {
              this.#check("getAll", false);
              const range = queryRange(query, true, "getAll"), limit = countOption(count, "getAll"), store = this.#store;
              return place(this.#tx, this, () => inRange(store.records, range).slice(0, limit).map(record => deserialize(record.value)));
            }
            getAllKeys(query = undefined, count = undefined) {
              this.#check("getAllKeys", false);
              const range = queryRange(query, true, "getAllKeys"), limit = countOption(count, "getAllKeys"), store = this.#store;
              return place(this.#tx, this, () => inRange(store.records, range).slice(0, limit).map(record => keyValue(record.key)));
            }
            count(query = undefined) {
              this.#check("count", false);
              const range = queryRange(query, true, "count"), store = this.#store;
              return place(this.#tx, this, () => inRange(store.records, range).length);
            }
            openCursor(query = undefined, direction = "next") {
              this.#check("openCursor", false);
              return openCursor(this.#tx, this, this.#store, null, queryRange(query, true, "openCursor"), cursorDirection(direction), true);
            }
            openKeyCursor(query = undefined, direction = "next") {
              this.#check("openKeyCursor", false);
              return openCursor(this.#tx, this, this.#store, null, queryRange(query, true, "openKeyCursor"), cursorDirection(direction), false);
            }
            createIndex(name, keyPath, options = undefined) {
              if (arguments.length < 2) throw notEnough("IDBObjectStore.createIndex", 2);
              const tx = this.#tx, store = this.#store, key = String(name);
              if (tx.mode !== "versionchange") throw idbError("InvalidStateError", "Failed to execute 'createIndex' on 'IDBObjectStore': The database is not running a version change transaction.");
              liveStore(tx, store, "createIndex");
              usable(tx, "createIndex", false);
              if (store.indexes.has(key) && !store.indexes.get(key).deleted) {
                throw idbError("ConstraintError", "Failed to execute 'createIndex' on 'IDBObjectStore': An index with the specified name already exists.");
              }
              const path = keyPathOption(keyPath, "createIndex");
              const multiEntry = !!(options && options.multiEntry), unique = !!(options && options.unique);
              if (Array.isArray(path) && multiEntry) {
                throw idbError("InvalidAccessError", "Failed to execute 'createIndex' on 'IDBObjectStore': The keyPath argument was an array and the multiEntry option is true.");
              }
              touch(tx);
              const index = { name: key, keyPath: path, unique, multiEntry, entries: [], deleted: false };
              let violated = false;
              for (const record of store.records) {
                const value = deserialize(record.value);
                for (const { key: indexKey, code } of indexKeys(index, value)) {
                  const entry = { code, key: indexKey, primary: record.code, primaryKey: record.key };
                  const at = position(index.entries, code, byCode);
                  if (unique && at < index.entries.length && index.entries[at].code === code) violated = true;
                  index.entries.splice(position(index.entries, entry, compareEntry), 0, entry);
                }
              }
              const indexes = new Map(store.indexes);
              indexes.set(key, index);
              store.indexes = indexes;
              if (violated && tx.failure === null) {
                tx.failure = idbError("ConstraintError", "Unable to add key to index: at least one key does not satisfy the uniqueness requirements.");
              }
              return indexObject(tx, this, index);
            }
            index(name) {
              if (arguments.length < 1) throw notEnough("IDBObjectStore.index", 1);
              const tx = this.#tx, store = this.#store;
              liveStore(tx, store, "index");
              if (tx.finished || tx.aborting !== null) throw idbError("InvalidStateError", "Failed to execute 'index' on 'IDBObjectStore': The transaction has finished.");
              const index = store.indexes.get(String(name));
              if (index === undefined || index.deleted) throw idbError("NotFoundError", "Failed to execute 'index' on 'IDBObjectStore': The specified index was not found.");
              return indexObject(tx, this, index);
            }
            deleteIndex(name) {
              if (arguments.length < 1) throw notEnough("IDBObjectStore.deleteIndex", 1);
              const tx = this.#tx, store = this.#store, key = String(name);
              if (tx.mode !== "versionchange") throw idbError("InvalidStateError", "Failed to execute 'deleteIndex' on 'IDBObjectStore': The database is not running a version change transaction.");
              liveStore(tx, store, "deleteIndex");
              usable(tx, "deleteIndex", false);
              const index = store.indexes.get(key);
              if (index === undefined || index.deleted) throw idbError("NotFoundError", "Failed to execute 'deleteIndex' on 'IDBObjectStore': The specified index was not found.");
              touch(tx);
              index.deleted = true;
              store.indexes = without(store.indexes, key);
            }
            static {
              storeAccess = (tx, store) => {
                allowStore = true;
                try { const object = new IDBObjectStore(); object.#tx = tx; object.#store = store; return object; } finally { allowStore = false; }
              };
            }
          }

          const indexObjects = new WeakMap();
          const indexObject = (tx, storeObjectOf, index) => {
            let byIndex = indexObjects.get(storeObjectOf);
            if (byIndex === undefined) indexObjects.set(storeObjectOf, byIndex = new Map());
            let object = byIndex.get(index);
            if (object === undefined) { object = indexAccess(tx, storeObjectOf, index); byIndex.set(index, object); }
            return object;
          };
          let indexAccess, allowIndex = false;
          class IDBIndex {
            #tx; #storeObject; #index;
            constructor() { if (!allowIndex) throw new TypeError("Illegal constructor"); }
            get name() { return this.#index.name; }
            // Renamed in an upgrade only (reverted with it when it aborts).
            set name(value) {
              const tx = this.#tx, index = this.#index, key = String(value);
              if (index.deleted || this.#store() === undefined || this.#store().deleted) {
                throw idbError("InvalidStateError", "Failed to set the 'name' property on 'IDBIndex': The index or its object store has been deleted.");
              }
              if (tx.mode !== "versionchange") throw idbError("InvalidStateError", "Failed to set the 'name' property on 'IDBIndex': The index is not in a version change transaction.");
              usable(tx, "name", false);
              if (key === index.name) return;
              const store = this.#store();
              if (store.indexes.has(key) && !store.indexes.get(key).deleted) {
                throw idbError("ConstraintError", "Failed to set the 'name' property on 'IDBIndex': An index with the specified name already exists.");
              }
              touch(tx);
              store.indexes = renamed(store.indexes, index, key);
            }
            get objectStore() { return this.#storeObject; }
            get keyPath() { return copyPath(this.#index.keyPath); }
            get multiEntry() { return this.#index.multiEntry; }
            get unique() { return this.#index.unique; }
            #store() { return this.#tx.base.stores.get(this.#storeObject.name); }
            #check(what) {
              if (this.#index.deleted || this.#store() === undefined || this.#store().deleted) {
                throw idbError("InvalidStateError", `Failed to execute '${what}' on 'IDBIndex': The index or its object store has been deleted.`);
              }
              usable(this.#tx, what, false);
            }
            #range(query, nullable, what) { this.#check(what); return queryRange(query, nullable, what); }
            get(query) {
              if (arguments.length < 1) throw notEnough("IDBIndex.get", 1);
              const range = this.#range(query, false, "get"), index = this.#index, store = this.#store();
              return place(this.#tx, this, () => { const [entry] = inRange(index.entries, range); return entry === undefined ? undefined : recordValue(store, entry.primary); });
            }
            getKey(query) {
              if (arguments.length < 1) throw notEnough("IDBIndex.getKey", 1);
              const range = this.#range(query, false, "getKey"), index = this.#index, store = this.#store();
              return place(this.#tx, this, () => { const [entry] = inRange(index.entries, range); return entry === undefined ? undefined : keyValue(primaryKeyOf(index, entry, store)); });
            }
            getAll(query = undefined, count = undefined) {
              const range = this.#range(query, true, "getAll"), limit = countOption(count, "getAll"), index = this.#index, store = this.#store();
              return place(this.#tx, this, () => inRange(index.entries, range).slice(0, limit).map(entry => recordValue(store, entry.primary)));
            }
            getAllKeys(query = undefined, count = undefined) {
              const range = this.#range(query, true, "getAllKeys"), limit = countOption(count, "getAllKeys"), index = this.#index, store = this.#store();
              return place(this.#tx, this, () => inRange(index.entries, range).slice(0, limit).map(entry => keyValue(primaryKeyOf(index, entry, store))));
            }
            count(query = undefined) {
              const range = this.#range(query, true, "count"), index = this.#index;
              return place(this.#tx, this, () => inRange(index.entries, range).length);
            }
            openCursor(query = undefined, direction = "next") {
              const range = this.#range(query, true, "openCursor");
              return openCursor(this.#tx, this, this.#store(), this.#index, range, cursorDirection(direction), true);
            }
            openKeyCursor(query = undefined, direction = "next") {
              const range = this.#range(query, true, "openKeyCursor");
              return openCursor(this.#tx, this, this.#store(), this.#index, range, cursorDirection(direction), false);
            }
            static {
              indexAccess = (tx, storeObjectOf, index) => {
                allowIndex = true;
                try { const object = new IDBIndex(); object.#tx = tx; object.#storeObject = storeObjectOf; object.#index = index; return object; } finally { allowIndex = false; }
              };
            }
          }

          // Cursors.
          const directions = ["next", "nextunique", "prev", "prevunique"];
          const cursorDirection = direction => {
            const text = String(direction);
            if (!directions.includes(text)) throw new TypeError(`The provided value '${text}' is not a valid enum value of type IDBCursorDirection.`);
            return text;
          };
          // The next item of `list` for a cursor at `at` ({code, primary}; null before its
          // first), within `range`, past `key` (a code) when given, or null.
          const step = (list, direction, range, at, key, primaryKey) => {
            const forward = direction === "next" || direction === "nextunique", unique = direction.endsWith("unique");
            if (forward) {
              let from = 0;
              if (range.lower !== null) from = position(list, range.lower, byCode, range.lowerOpen);
              if (at !== null) {
                const past = unique || at.primary === undefined ? position(list, at.code, byCode, true) : position(list, at, compareEntry, true);
                from = Math.max(from, past);
              }
              if (key !== null) {
                const target = primaryKey !== null ? position(list, { code: key, primary: primaryKey }, compareEntry) : position(list, key, byCode);
                from = Math.max(from, target);
              }
              return from < list.length && rangeIncludes(range, list[from].code) ? list[from] : null;
            }
            let to = list.length - 1;
            if (range.upper !== null) to = position(list, range.upper, byCode, !range.upperOpen) - 1;
            if (at !== null) {
              const before = unique || at.primary === undefined ? position(list, at.code, byCode) - 1 : position(list, at, compareEntry) - 1;
              to = Math.min(to, before);
            }
            if (key !== null) {
              const target = primaryKey !== null ? position(list, { code: key, primary: primaryKey }, compareEntry, true) - 1 : position(list, key, byCode, true) - 1;
              to = Math.min(to, target);
            }
            if (to < 0 || !rangeIncludes(range, list[to].code)) return null;
            // `prevunique`: of the items with that key, the first.
            if (unique) to = position(list, list[to].code, byCode);
            return list[to];
          };
          let cursorAccess, allowCursor = false;
          class IDBCursor {
            #c;
            constructor() { if (!allowCursor) throw new TypeError("Illegal constructor"); }
            get source() { return this.#c.source; }
            get direction() { return this.#c.direction; }
            get key() { return this.#c.item === null ? undefined : keyValue(this.#c.item.key); }
            get primaryKey() {
              const c = this.#c;
              if (c.item === null) return undefined;
              return keyValue(c.index === null ? c.item.key : primaryKeyOf(c.index, c.item, c.store));
            }
            get request() { return this.#c.request; }
            #ready(what) {
              const c = this.#c;
              if (c.store.deleted || (c.index !== null && c.index.deleted)) throw idbError("InvalidStateError", `Failed to execute '${what}' on 'IDBCursor': The cursor's source has been deleted.`);
              usable(c.tx, what, false);
              if (!c.gotValue) throw idbError("InvalidStateError", `Failed to execute '${what}' on 'IDBCursor': The cursor is being iterated or has iterated past its end.`);
            }
            #iterate(key, primaryKey, count) {
              const c = this.#c;
              c.gotValue = false;
              requestAccess.reopen(c.request);
              place(c.tx, c.source, () => iterate(c, key, primaryKey, count), c.request);
            }
            advance(count) {
              if (arguments.length < 1) throw notEnough("IDBCursor.advance", 1);
              const number = Number(count);
              if (!(number >= 1) || number > 4294967295) throw new TypeError("Failed to execute 'advance' on 'IDBCursor': A count argument with value 0 (zero) was supplied, must be greater than 0.");
              this.#ready("advance");
              this.#iterate(null, null, Math.floor(number));
            }
            continue(key = undefined) {
              this.#ready("continue");
              const c = this.#c;
              let code = null;
              if (key !== undefined) {
                code = keyCode(validKey(key, "continue"));
                const forward = c.direction.startsWith("next");
                if (c.item !== null && (forward ? code <= c.item.code : code >= c.item.code)) {
                  throw idbError("DataError", "Failed to execute 'continue' on 'IDBCursor': The parameter is less than or equal to this cursor's position.");
                }
              }
              this.#iterate(code, null, 1);
            }
            continuePrimaryKey(key, primaryKey) {
              if (arguments.length < 2) throw notEnough("IDBCursor.continuePrimaryKey", 2);
              this.#ready("continuePrimaryKey");
              const c = this.#c;
              if (c.index === null) throw idbError("InvalidAccessError", "Failed to execute 'continuePrimaryKey' on 'IDBCursor': The cursor's source is not an index.");
              if (c.direction.endsWith("unique")) throw idbError("InvalidAccessError", "Failed to execute 'continuePrimaryKey' on 'IDBCursor': The cursor's direction is not 'next' or 'prev'.");
              const code = keyCode(validKey(key, "continuePrimaryKey")), primary = keyCode(validKey(primaryKey, "continuePrimaryKey"));
              const forward = c.direction === "next", here = c.item;
              if (here !== null) {
                const order = compareEntry({ code, primary }, here);
                if (forward ? order <= 0 : order >= 0) throw idbError("DataError", "Failed to execute 'continuePrimaryKey' on 'IDBCursor': The parameter is less than or equal to this cursor's position.");
              }
              this.#iterate(code, primary, 1);
            }
            update(value) {
              if (arguments.length < 1) throw notEnough("IDBCursor.update", 1);
              const c = this.#c;
              usable(c.tx, "update", true);
              this.#ready("update");
              if (!c.withValue) throw idbError("InvalidStateError", "Failed to execute 'update' on 'IDBCursor': The cursor is a key cursor.");
              const store = c.store, key = c.index === null ? c.item.key : primaryKeyOf(c.index, c.item, store);
              const clone = structuredClone(value);
              const tree = serialize(clone);
              if (store.keyPath !== null) {
                const inline = pathKey(clone, store.keyPath);
                if (inline === undefined || keyCode(inline) !== keyCode(key)) {
                  throw idbError("DataError", "Failed to execute 'update' on 'IDBCursor': The effective object store of this cursor uses in-line keys and evaluating the key path of the value parameter results in a different value than the cursor's effective key.");
                }
              }
              return place(c.tx, this, () => storeRecord(c.tx, store, key, clone, true, tree));
            }
            delete() {
              const c = this.#c;
              usable(c.tx, "delete", true);
              this.#ready("delete");
              if (!c.withValue) throw idbError("InvalidStateError", "Failed to execute 'delete' on 'IDBCursor': The cursor is a key cursor.");
              const store = c.store, code = c.index === null ? c.item.code : c.item.primary;
              return place(c.tx, this, () => {
                touch(c.tx);
                removeRecords(store, new Set([code]));
                changed(c.tx, ["delete", store.name, new Set([code])]);
                return undefined;
              });
            }
            static {
              cursorAccess = (c, withValue) => {
                allowCursor = true;
                try { const object = new (withValue ? IDBCursorWithValue : IDBCursor)(); object.#c = c; return object; } finally { allowCursor = false; }
              };
            }
          }
          class IDBCursorWithValue extends IDBCursor {
            get value() { return cursorValue(this); }
          }
          const cursorRecords = new WeakMap();
          const cursorValue = cursor => cursorRecords.get(cursor);
          // Moves a cursor `count` steps (or to `key`), its request's result the cursor or null.
          const iterate = (c, key, primaryKey, count) => {
            const list = c.index === null ? c.store.records : c.index.entries;
            let item = c.item;
            for (let turn = 0; turn < count; turn++) {
              item = step(list, c.direction, c.range, item === null ? null : { code: item.code, primary: c.index === null ? undefined : item.primary }, turn === 0 ? key : null, turn === 0 ? primaryKey : null);
              if (item === null) break;
            }
            c.item = item;
            if (item === null) return null;
            c.gotValue = true;
            if (c.withValue) cursorRecords.set(c.object, recordValue(c.store, c.index === null ? item.code : item.primary));
            return c.object;
          };
          const openCursor = (tx, source, store, index, range, direction, withValue) => {
            const c = { tx, source, store, index, range, direction, withValue, item: null, gotValue: false, request: null, object: null };
            c.object = cursorAccess(c, withValue);
            c.request = place(tx, source, () => iterate(c, null, null, 1));
            return c.request;
          };

          // Connections.
          let databaseAccess, allowDatabase = false;
          class IDBDatabase extends EventTarget {
            #connection;
            constructor() {
              if (!allowDatabase) throw new TypeError("Illegal constructor");
              super();
            }
            get name() { return this.#connection.name; }
            get version() { return this.#connection.version; }
            get objectStoreNames() {
              const connection = this.#connection;
              if (connection.closed) return makeStringList(connection.storeNames);
              return makeStringList([...copies.get(connection.name).state.stores.values()].filter(store => !store.deleted).map(store => store.name));
            }
            #upgrade(what) {
              const tx = this.#connection.upgrade;
              if (tx === null || tx.finished) throw idbError("InvalidStateError", `Failed to execute '${what}' on 'IDBDatabase': The database is not running a version change transaction.`);
              usable(tx, what, false);
              return tx;
            }
            createObjectStore(name, options = undefined) {
              if (arguments.length < 1) throw notEnough("IDBDatabase.createObjectStore", 1);
              const tx = this.#upgrade("createObjectStore"), key = String(name), state = tx.base;
              const keyPath = keyPathOption(options ? options.keyPath : null, "createObjectStore"), autoIncrement = !!(options && options.autoIncrement);
              const existing = state.stores.get(key);
              if (existing !== undefined && !existing.deleted) {
                throw idbError("ConstraintError", "Failed to execute 'createObjectStore' on 'IDBDatabase': An object store with the specified name already exists.");
              }
              if (autoIncrement && (keyPath === "" || Array.isArray(keyPath))) {
                throw idbError("InvalidAccessError", "Failed to execute 'createObjectStore' on 'IDBDatabase': The autoIncrement option was set but the keyPath option was empty or an array.");
              }
              touch(tx);
              const store = { name: key, keyPath, autoIncrement, current: 1, records: [], indexes: new Map(), deleted: false };
              const stores = new Map(state.stores);
              stores.set(key, store);
              state.stores = stores;
              tx.made.push(store);
              return storeObject(tx, store);
            }
            deleteObjectStore(name) {
              if (arguments.length < 1) throw notEnough("IDBDatabase.deleteObjectStore", 1);
              const tx = this.#upgrade("deleteObjectStore"), key = String(name), state = tx.base;
              const store = state.stores.get(key);
              if (store === undefined || store.deleted) throw idbError("NotFoundError", "Failed to execute 'deleteObjectStore' on 'IDBDatabase': The specified object store was not found.");
              touch(tx);
              store.deleted = true;
              state.stores = without(state.stores, key);
            }
            transaction(storeNames, mode = "readonly", options = undefined) {
              if (arguments.length < 1) throw notEnough("IDBDatabase.transaction", 1);
              const connection = this.#connection;
              if (connection.upgrade !== null && !connection.upgrade.finished) {
                throw idbError("InvalidStateError", "Failed to execute 'transaction' on 'IDBDatabase': A version change transaction is running.");
              }
              // A database the app deleted since the connection opened: it closes now.
              if (!connection.closePending && ended(connection)) forceClose(connection);
              if (connection.closePending) throw idbError("InvalidStateError", "Failed to execute 'transaction' on 'IDBDatabase': The database connection is closing.");
              const names = typeof storeNames === "string" ? [storeNames] : [...storeNames].map(String);
              const scope = [...new Set(names)].sort();
              // Read again if another document committed since (and none of this document's
              // transactions is using the copy).
              const state = copyOf(connection.name).state;
              for (const name of scope) {
                const store = state.stores.get(name);
                if (store === undefined || store.deleted) throw idbError("NotFoundError", "Failed to execute 'transaction' on 'IDBDatabase': One of the specified object stores was not found.");
              }
              if (scope.length === 0) throw idbError("InvalidAccessError", "Failed to execute 'transaction' on 'IDBDatabase': The storeNames parameter was empty.");
              const kind = String(mode);
              if (kind !== "readonly" && kind !== "readwrite") throw new TypeError(`The provided value '${kind}' is not a valid enum value of type IDBTransactionMode.`);
              const durability = options !== undefined && options !== null && options.durability !== undefined ? String(options.durability) : "default";
              if (!["default", "strict", "relaxed"].includes(durability)) {
                throw new TypeError(`The provided value '${durability}' is not a valid enum value of type IDBTransactionDurability.`);
              }
              const tx = makeTransaction(connection, scope, kind);
              tx.durability = durability;
              return tx.object;
            }
            close() {
              const connection = this.#connection;
              connection.closePending = true;
              connectionDone(connection);
            }
            static {
              databaseAccess = connection => {
                allowDatabase = true;
                try { const object = new IDBDatabase(); object.#connection = connection; return object; } finally { allowDatabase = false; }
              };
            }
          }
          handlerAttributes(IDBDatabase.prototype, "abort", "close", "error", "versionchange");
          // A connection closes once it was asked to and its transactions have finished.
          const connectionDone = connection => {
            for (const tx of connection.transactions) if (tx.finished) connection.transactions.delete(tx);
            if (!connection.closePending || connection.closed || connection.transactions.size > 0) return;
            connection.closed = true;
            idbNative("disconnect", connection.name);
            const copy = copies.get(connection.name);
            connection.storeNames = copy ? [...copy.state.stores.values()].filter(store => !store.deleted).map(store => store.name) : [];
            connectionsOf.get(connection.name).delete(connection);
            const waiting = closeWaiters.get(connection.name);
            if (waiting !== undefined && connectionsOf.get(connection.name).size === 0) hooks.schedule(waiting, 0);
            schedulePump();
          };
          const closeWaiters = new Map();
          const openConnections = name => {
            if (!connectionsOf.has(name)) connectionsOf.set(name, new Set());
            return connectionsOf.get(name);
          };
          // Other documents of the origin sharing the data store hear of an upgrade or a deletion
          // through a broadcast channel of the platform's own, made with the first connection.
          let otherDocuments = null;
          const channel = () => {
            if (otherDocuments !== null) return otherDocuments;
            otherDocuments = new BroadcastChannel("\u0000indexedDB");
            otherDocuments.onmessage = event => {
              if (event.data.released !== undefined) return schedulePump();
              if (event.data.cleared === true) return closeEveryConnection();
              const { name, oldVersion, newVersion } = event.data;
              for (const open of [...openConnections(String(name))]) {
                if (!open.closePending) open.object.dispatchEvent(versionEvent("versionchange", oldVersion, newVersion));
              }
            };
            return otherDocuments;
          };
          const connected = (name, connection) => {
            openConnections(name).add(connection);
            connection.epoch = idbNative("connect", name);
            channel();
          };
          // The store's data was cleared (`removeAllData()`): as in WebKit, the connection closes
          // with a `close` event, its transactions abort, and the document reads its databases
          // again when it opens them.
          const forceClose = connection => {
            if (connection.closed || connection.forced) return;
            connection.forced = true;
            connection.closePending = true;
            copies.delete(connection.name);
            for (const tx of connection.transactions) {
              if (!tx.finished && tx.state !== "committing") abort(tx, idbError("AbortError", "The database connection was closed."));
            }
            connection.object.dispatchEvent(trusted(new Event("close")));
            connectionDone(connection);
          };
          const closeEveryConnection = () => {
            for (const connections of connectionsOf.values()) for (const connection of [...connections]) forceClose(connection);
          };

          // Opening and deleting: one request at a time per name, in the order asked.
          const runOpen = (name, queue) => {
            const entry = queue[0];
            entry.running = true;
            const done = () => { queue.shift(); schedulePump(); };
            // A database that cannot be read (a damaged profile): the request fails, the page goes
            // on, and so do the requests after it (here, or once other connections closed).
            const guarded = body => () => {
              try { body(); } catch (error) {
                if (!(error instanceof DOMException)) native.report(error);
                if (entry.request.readyState === "pending") {
                  requestAccess.settle(entry.request, undefined, idbError("UnknownError", "The database could not be read."));
                  entry.request.dispatchEvent(trusted(new Event("error", { bubbles: true, cancelable: true })));
                }
                done();
              }
            };
            guarded(() => entry.run(done, guarded))();
          };
          // Asks the other connections to `name`, this document's and other documents', to close;
          // `then` runs once they have.
          const awaitClosed = (name, request, oldVersion, newVersion, then) => {
            const others = [...openConnections(name)].filter(connection => !connection.closePending);
            for (const connection of others) {
              if (!connection.closePending) connection.object.dispatchEvent(versionEvent("versionchange", oldVersion, newVersion));
            }
            if (idbNative("others", name) > 0) {
              channel().postMessage({ name, oldVersion, newVersion });
            }
            const open = () => openConnections(name).size > 0 || idbNative("others", name) > 0;
            if (!open()) return then();
            request.dispatchEvent(versionEvent("blocked", oldVersion, newVersion));
            if (!open()) return then();
            // Once the last closes: this document's say so (`connectionDone`); another
            // document's, or its going away, is looked for every 20 ms.
            let ran = false;
            const check = () => {
              if (ran || open()) return;
              ran = true;
              closeWaiters.delete(name);
              then();
            };
            closeWaiters.set(name, check);
            const poll = () => { check(); if (!ran) hooks.schedule(poll, 20); };
            hooks.schedule(poll, 20);
          };
          const openDatabase = (name, version, request) => (done, guarded) => {
            const copy = copyOf(name), current = copy.state.version;
            const requested = version === undefined ? Math.max(current, 1) : version;
            if (requested < current) {
              requestAccess.settle(request, undefined, idbError("VersionError", `The requested version (${requested}) is less than the existing version (${current}).`));
              request.dispatchEvent(trusted(new Event("error", { bubbles: true, cancelable: true })));
              done();
              return;
            }
            const connection = {
              name, version: requested, object: null, transactions: new Set(), closePending: false, closed: false, forced: false, epoch: null, storeNames: [], upgrade: null,
            };
            connection.object = databaseAccess(connection);
            if (requested === current) {
              connected(name, connection);
              requestAccess.settle(request, connection.object, null);
              request.dispatchEvent(trusted(new Event("success")));
              done();
              return;
            }
            awaitClosed(name, request, current, requested, guarded(() => {
              const copy = copyOf(name);
              connected(name, connection);
              const tx = makeTransaction(connection, [], "versionchange");
              connection.upgrade = tx;
              touch(tx);
              copy.state.version = requested;
              requestAccess.settle(request, connection.object, null);
              requestAccess.setTransaction(request, tx.object);
              tx.started = true;
              tx.onFinished = committed => {
                requestAccess.setTransaction(request, null);
                if (committed) {
                  request.dispatchEvent(trusted(new Event("success")));
                } else {
                  connection.version = current;
                  connection.closePending = true;
                  connectionDone(connection);
                  if (copies.get(name).generation === -1) copies.delete(name);
                  requestAccess.settle(request, undefined, idbError("AbortError", "The version change transaction was aborted."));
                  request.dispatchEvent(trusted(new Event("error", { bubbles: true, cancelable: true })));
                }
                done();
              };
              const along = hooks.bubble(versionEvent("upgradeneeded", current, requested), [request]);
              if (along.threw) abort(tx, idbError("AbortError", "The version change transaction was aborted."));
            }));
          };
          const deleteDatabase = (name, request) => (done, guarded) => {
            const copy = copyOf(name), current = copy.state.version;
            awaitClosed(name, request, current, null, guarded(() => {
              idbNative("delete", name);
              copies.delete(name);
              requestAccess.settle(request, undefined, null);
              request.dispatchEvent(versionEvent("success", current, null));
              done();
            }));
          };
          const queueOpen = (name, run, request) => {
            if (!opens.has(name)) opens.set(name, []);
            opens.get(name).push({ run, request, running: false });
            schedulePump();
          };

          class IDBFactory {
            constructor() { throw new TypeError("Illegal constructor"); }
            open(name, version = undefined) {
              if (arguments.length < 1) throw notEnough("IDBFactory.open", 1);
              let asked;
              if (version !== undefined) {
                asked = Number(version);
                if (!Number.isFinite(asked) || asked < 0 || asked > Number.MAX_SAFE_INTEGER) throw new TypeError("Failed to execute 'open' on 'IDBFactory': Value is outside the 'unsigned long long' value range.");
                asked = Math.trunc(asked);
                if (asked === 0) throw new TypeError("Failed to execute 'open' on 'IDBFactory': The version provided must not be 0.");
              }
              const key = String(name);
              idbNative("generation", key);
              const request = requestAccess.make(IDBOpenDBRequest, null, null);
              queueOpen(key, openDatabase(key, asked, request), request);
              return request;
            }
            deleteDatabase(name) {
              if (arguments.length < 1) throw notEnough("IDBFactory.deleteDatabase", 1);
              const key = String(name);
              idbNative("generation", key);
              const request = requestAccess.make(IDBOpenDBRequest, null, null);
              queueOpen(key, deleteDatabase(key, request), request);
              return request;
            }
            databases() {
              try { return Promise.resolve(idbNative("names", "").map(([name, version]) => ({ name, version }))); }
              catch (error) { return Promise.reject(error); }
            }
            cmp(first, second) {
              if (arguments.length < 2) throw notEnough("IDBFactory.cmp", 2);
              const a = keyCode(validKey(first, "cmp")), b = keyCode(validKey(second, "cmp"));
              return a < b ? -1 : a > b ? 1 : 0;
            }
          }
          const indexedDB = Object.create(IDBFactory.prototype);
          for (const [made, tag] of [[IDBFactory, "IDBFactory"], [IDBDatabase, "IDBDatabase"], [IDBTransaction, "IDBTransaction"], [IDBObjectStore, "IDBObjectStore"],
            [IDBIndex, "IDBIndex"], [IDBCursor, "IDBCursor"], [IDBCursorWithValue, "IDBCursorWithValue"], [IDBKeyRange, "IDBKeyRange"], [IDBRequest, "IDBRequest"],
            [IDBOpenDBRequest, "IDBOpenDBRequest"], [IDBVersionChangeEvent, "IDBVersionChangeEvent"], [DOMStringList, "DOMStringList"]]) {
            define(made.prototype, Symbol.toStringTag, { value: tag, configurable: true });
            platformClones.set(made.prototype, null);
          }
          // `makeStringList` is no global: `location.ancestorOrigins` is made with it.
          return { indexedDB, IDBFactory, IDBDatabase, IDBTransaction, IDBObjectStore, IDBIndex, IDBCursor, IDBCursorWithValue, IDBKeyRange,
            IDBRequest, IDBOpenDBRequest, IDBVersionChangeEvent, DOMStringList, makeStringList };
        })
        """#
}
