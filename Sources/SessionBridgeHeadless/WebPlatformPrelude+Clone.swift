extension WebPlatformPrelude {
    /// `structuredClone` (HTML), part of ``source``: primitives; `Boolean`, `Number`, `BigInt`
    /// and `String` objects; `Date`; `RegExp` (without its `lastIndex`); `ArrayBuffer`s, typed
    /// arrays and `DataView`s (views of one buffer stay views of one copy); `Map` and `Set`;
    /// errors (their `name`, one of the standard seven, their own `message`, and as WebKit,
    /// their own `cause` as its text); `DOMException`s
    /// and `CryptoKey`s (a key's material copied natively); arrays and
    /// other objects (their own enumerable string-keyed members, as data). Shared references and
    /// cycles are kept. A function, a symbol, a weak collection, a promise, an `arguments` object or another of these
    /// members' objects (`URL`, `Event`, `Storage`, ...) or a `Proxy` throws a
    /// `DataCloneError` `DOMException`. `transfer` moves `ArrayBuffer`s
    /// (`ArrayBuffer.prototype.transfer`) and `MessagePort`s (a new port takes the original's
    /// partner and the messages waiting for it), once the value is cloned: the originals are
    /// detached. `cloneWithTransfer` is the same for the page APIs that post messages, with the
    /// ports moved (a message within the context) or kept for the sender to export (to another
    /// context).
    static let cloneSource = #"""
          const dataCloneError = what => new DOMException(`${what} could not be cloned.`, "DataCloneError");
          const getter = (prototype, name) => Object.getOwnPropertyDescriptor(prototype, name).get;
          const has = (check, value) => { try { check.call(value); return true; } catch { return false; } };
          const dateValue = Date.prototype.getTime, regExpSource = getter(RegExp.prototype, "source"), regExpFlags = getter(RegExp.prototype, "flags");
          const bufferLength = getter(ArrayBuffer.prototype, "byteLength"), bufferSlice = ArrayBuffer.prototype.slice;
          const bufferDetached = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "detached");
          const viewPrototype = Object.getPrototypeOf(Uint8Array.prototype);
          const viewBuffer = getter(viewPrototype, "buffer"), viewOffset = getter(viewPrototype, "byteOffset"), viewLength = getter(viewPrototype, "length");
          const dataViewBuffer = getter(DataView.prototype, "buffer"), dataViewOffset = getter(DataView.prototype, "byteOffset"), dataViewLength = getter(DataView.prototype, "byteLength");
          const mapSize = getter(Map.prototype, "size"), mapEntries = Map.prototype.entries, setSize = getter(Set.prototype, "size"), setValues = Set.prototype.values;
          const wrappers = [Boolean.prototype.valueOf, Number.prototype.valueOf, String.prototype.valueOf, BigInt.prototype.valueOf];
          const unclonable = [WeakMap.prototype.has, WeakSet.prototype.has, typeof WeakRef === "function" ? WeakRef.prototype.deref : null].filter(check => check !== null);
          const typedArrays = { __proto__: null };
          for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array",
            "Float16Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"]) if (typeof g[name] === "function") typedArrays[name] = g[name];
          const errors = { __proto__: null, Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
          const member = value => ({ __proto__: null, value, writable: true, enumerable: true, configurable: true });
          const builtinTag = Object.prototype.toString, ownDescriptor = Object.getOwnPropertyDescriptor, toStringTag = Symbol.toStringTag;
          // This prelude's own classes, by prototype (filled once all are made): how one of their
          // objects is cloned (DOMException, CryptoKey), or null for those HTML does not
          // serialize (a DataCloneError).
          const platformClones = new Map();
          const platformClone = value => {
            for (let prototype = Object.getPrototypeOf(value); prototype !== null; prototype = Object.getPrototypeOf(prototype)) {
              if (platformClones.has(prototype)) return platformClones.get(prototype) || (() => { throw dataCloneError("A " + Object.prototype.toString.call(value).slice(8, -1)); });
            }
            return undefined;
          };
          function structuredClone(value, options = undefined) {
            if (arguments.length < 1) throw notEnough("structuredClone", 1);
            const transfer = options !== undefined && options !== null && options.transfer !== undefined ? [...options.transfer] : [];
            return cloneWithTransfer(value, transfer, true).data;
          }
          // The clone of `value` (`data`) and the ports `transfer` lists (`ports`): new ones
          // that took the originals' places when `movePorts`, else the originals, which the
          // sender exports to another context.
          function cloneWithTransfer(value, transfer, movePorts) {
            const memory = new Map(), ports = [];
            for (const buffer of transfer) {
              if (buffer instanceof MessagePort) {
                if (memory.has(buffer)) throw dataCloneError("A MessagePort listed twice for transfer");
                if (makePort.detached(buffer)) throw dataCloneError("A MessagePort already transferred");
                // The clone refers to a new port, which takes the original's place once the
                // whole value is cloned (nothing moves when the clone fails).
                memory.set(buffer, movePorts ? makePort() : buffer);
                ports.push(buffer);
                continue;
              }
              if (!has(bufferLength, buffer)) throw dataCloneError("A value in the transfer list that is not an ArrayBuffer or a MessagePort");
              if (memory.has(buffer)) throw dataCloneError("An ArrayBuffer listed twice for transfer");
              memory.set(buffer, null);
            }
            const clone = value => {
              if (typeof value === "symbol") throw dataCloneError("A symbol");
              if (value === null || (typeof value !== "object" && typeof value !== "function")) return value;
              const seen = memory.get(value);
              if (seen !== undefined && seen !== null) return seen;
              if (typeof value === "function") throw dataCloneError("A function");
              // Before anything of it is read: a proxy's traps do not run.
              if (native.platform("isProxy", value) === true) throw dataCloneError("A Proxy");
              let out, unbox;
              if (has(dateValue, value)) out = new Date(dateValue.call(value));
              else if (value !== RegExp.prototype && has(regExpSource, value)) out = new RegExp(regExpSource.call(value), regExpFlags.call(value));
              else if (has(bufferLength, value)) {
                if (bufferDetached && bufferDetached.get.call(value)) throw dataCloneError("A detached ArrayBuffer");
                out = memory.has(value) ? value.transfer() : bufferSlice.call(value, 0);
              } else if (isView(value)) {
                const name = typedArrayName.call(value);
                if (name === undefined) out = new DataView(clone(dataViewBuffer.call(value)), dataViewOffset.call(value), dataViewLength.call(value));
                else out = new typedArrays[name](clone(viewBuffer.call(value)), viewOffset.call(value), viewLength.call(value));
              } else if (has(mapSize, value)) {
                out = new Map();
                memory.set(value, out);
                for (const [key, entry] of [...mapEntries.call(value)]) out.set(clone(key), clone(entry));
                return out;
              } else if (has(setSize, value)) {
                out = new Set();
                memory.set(value, out);
                for (const entry of [...setValues.call(value)]) out.add(clone(entry));
                return out;
              } else if ((unbox = wrappers.find(check => has(check, value))) !== undefined) out = Object(unbox.call(value));
              else if (unclonable.some(check => has(check, value)) || value instanceof Promise) throw dataCloneError("A " + Object.prototype.toString.call(value).slice(8, -1));
              else if ((unbox = platformClone(value)) !== undefined) out = unbox(value);
              else if (Object.prototype.toString.call(value) === "[object Error]") {
                const name = String(value.name), own = Object.getOwnPropertyDescriptor(value, "message");
                const make = errors[name] || Error;
                out = own !== undefined && "value" in own ? new make(String(own.value)) : new make();
                // As WebKit: an own data property `cause` crosses as its text.
                const cause = ownDescriptor(value, "cause");
                if (cause !== undefined && "value" in cause) {
                  let text;
                  try { text = String(cause.value); } catch { text = undefined; }
                  if (text !== undefined) define(out, "cause", { __proto__: null, value: text, writable: true, enumerable: false, configurable: true });
                }
              } else if (builtinTag.call(value) === "[object Arguments]" && !(toStringTag in value)) {
                // An arguments object has an internal slot HTML does not serialize (WebKit refuses it).
                throw dataCloneError("An Arguments object");
              } else {
                out = Array.isArray(value) ? new Array(value.length) : {};
                memory.set(value, out);
                for (const key of Object.keys(value)) define(out, key, member(clone(value[key])));
                return out;
              }
              memory.set(value, out);
              return out;
            };
            const data = clone(value);
            for (const buffer of transfer) if (memory.get(buffer) === null) buffer.transfer();
            if (!movePorts) return { data, ports };
            return { data, ports: ports.map(port => makePort.move(port, memory.get(port))) };
          }
        """#
}
