import SessionBridgeScriptEngine

extension WebPlatformPrelude {
    /// A structured clone's wire form (HTML's serialization, as plain data): what crosses to
    /// another document — a `BroadcastChannel`'s message, another window's `postMessage` —
    /// and what IndexedDB keeps. Primitives (`undefined`, `-0`, `NaN`, infinities, `BigInt`s
    /// as text); `Date`, `RegExp`, `ArrayBuffer`s and views, `Map`, `Set`, wrapped primitives,
    /// errors, `DOMException`s, `Blob`s and `File`s with their bytes; `CryptoKey`s by an id,
    /// their material and description (type, `extractable`, algorithm, usages) kept natively
    /// together (``StoredCryptoKey``), so that no text a page could shape makes a key other
    /// than the one given; arrays and objects with their own enumerable members. Shared
    /// references and cycles are kept as references back.
    ///
    /// `toWire(value, keyID, portIndex)` takes a value already cloned (`structuredClone`
    /// refused what may not cross); `keyID(parts)` keeps a key natively (with the databases, or
    /// for the data store's other documents) and gives its id; `portIndex(value)` gives a
    /// transferred `MessagePort`'s place in the message's ports (-1 for none).
    /// `fromWire(tree, keyParts, ports)` makes the value again in the reading document;
    /// `keyParts(id)` gives `[handle, type, extractable, algorithm as JSON, usages]`, `ports`
    /// the ports that came with it.
    ///
    /// Evaluated apart, on a document's first use (`native.platform("wireForm")`), with the
    /// platform's members it uses: most documents never send a value to another.
    /// ``wireFormSource``, kept parsed by each engine thread that evaluates it.
    static let wireFormScript = ScriptSource(wireFormSource, sourceURL: "sessionbridge://prelude/wire.js")

    static let wireFormSource = #"""
        (function (scope) {
          "use strict";
          const { define, DOMException, has, dateValue, regExpSource, regExpFlags, bufferLength, isView, typedArrayName, viewBuffer, viewOffset, viewLength,
            dataViewBuffer, dataViewOffset, dataViewLength, mapSize, mapEntries, setSize, setValues, wrappers, typedArrays, errors, member, platformClone,
            dataCloneError, builtinTag, ownDescriptor, text, Blob, File, isBlob, blobBytes, storedKey, restoredKey } = scope;
          const isBuffer = value => has(bufferLength, value);
          const bytesText = bytes => text(bytes);
          const textBytes = source => {
            const bytes = new Uint8Array(source.length);
            for (let index = 0; index < source.length; index++) bytes[index] = source.charCodeAt(index);
            return bytes;
          };
          const toWire = (value, keyID, portIndex = () => -1) => {
            const references = new Map();
            const write = value => {
              switch (typeof value) {
              case "string": case "boolean": return value;
              case "undefined": return ["u"];
              case "number": return Number.isFinite(value) && !(value === 0 && 1 / value < 0) ? value : ["n", value === 0 ? "-0" : String(value)];
              case "bigint": return ["b", String(value)];
              }
              if (value === null) return null;
              const seen = references.get(value);
              if (seen !== undefined) return ["r", seen];
              references.set(value, references.size);
              if (has(dateValue, value)) return ["D", write(dateValue.call(value))];
              if (value !== RegExp.prototype && has(regExpSource, value)) return ["R", regExpSource.call(value), regExpFlags.call(value)];
              if (isBuffer(value)) return ["A", bytesText(new Uint8Array(value))];
              if (isView(value)) {
                const name = typedArrayName.call(value);
                if (name === undefined) return ["V", "DataView", write(dataViewBuffer.call(value)), dataViewOffset.call(value), dataViewLength.call(value)];
                return ["V", name, write(viewBuffer.call(value)), viewOffset.call(value), viewLength.call(value)];
              }
              if (has(mapSize, value)) return ["M", [...mapEntries.call(value)].map(([key, entry]) => [write(key), write(entry)])];
              if (has(setSize, value)) return ["T", [...setValues.call(value)].map(write)];
              const unbox = wrappers.find(check => has(check, value));
              if (unbox !== undefined) return ["W", write(unbox.call(value))];
              if (value instanceof DOMException) return ["X", value.name, value.message];
              if (isBlob(value)) {
                const bytes = bytesText(blobBytes(value));
                return value instanceof File ? ["F", value.name, value.lastModified, value.type, bytes] : ["B", value.type, bytes];
              }
              // A CryptoKey: its material stays native; the tree holds the id `keyID` gives it.
              const key = storedKey === undefined ? undefined : storedKey(value);
              if (key !== undefined) return ["K", keyID(key)];
              // A port the message transfers: its place in the message's ports.
              const port = portIndex(value);
              if (port >= 0) return ["P", port];
              if (platformClone(value) !== undefined) throw dataCloneError("A " + builtinTag.call(value).slice(8, -1));
              if (builtinTag.call(value) === "[object Error]") {
                const message = ownDescriptor(value, "message");
                return ["E", value.name, message !== undefined ? String(message.value) : null];
              }
              const members = Object.keys(value).map(key => [key, write(value[key])]);
              return Array.isArray(value) ? ["a", value.length, members] : ["o", members];
            };
            return write(value);
          };
          const fromWire = (tree, keyHandle, ports = []) => {
            const made = [];
            const read = node => {
              if (node === null || typeof node !== "object") return node;
              switch (node[0]) {
              case "u": return undefined;
              case "n": return node[1] === "-0" ? -0 : Number(node[1]);
              case "b": return BigInt(node[1]);
              case "r": return made[node[1]];
              }
              const id = made.length;
              made.push(undefined);
              let out;
              switch (node[0]) {
              case "D": out = new Date(read(node[1])); break;
              case "R": out = new RegExp(node[1], node[2]); break;
              case "A": out = textBytes(node[1]).buffer; break;
              case "V": {
                const buffer = read(node[2]);
                out = node[1] === "DataView" ? new DataView(buffer, node[3], node[4]) : new typedArrays[node[1]](buffer, node[3], node[4]);
                break;
              }
              case "W": out = Object(read(node[1])); break;
              case "X": out = new DOMException(node[2], node[1]); break;
              case "B": out = new Blob([textBytes(node[2])], { type: node[1] }); break;
              case "F": out = new File([textBytes(node[4])], node[1], { type: node[3], lastModified: node[2] }); break;
              case "K": {
                if (restoredKey === undefined) throw dataCloneError("A CryptoKey outside a secure context");
                const [handle, type, extractable, algorithm, usages] = keyHandle(node[1]);
                const shown = JSON.parse(algorithm);
                if (Array.isArray(shown.publicExponent)) shown.publicExponent = new Uint8Array(shown.publicExponent);
                out = restoredKey(type, extractable, shown, usages, handle);
                break;
              }
              case "P":
                if (ports[node[1]] === undefined) throw dataCloneError("A MessagePort not transferred");
                out = ports[node[1]];
                break;
              case "E": {
                out = new (errors[node[1]] || Error)();
                if (node[2] !== null) define(out, "message", { value: node[2], writable: true, configurable: true });
                break;
              }
              case "M": made[id] = out = new Map(); for (const [key, entry] of node[1]) out.set(read(key), read(entry)); return out;
              case "T": made[id] = out = new Set(); for (const entry of node[1]) out.add(read(entry)); return out;
              case "a": made[id] = out = new Array(node[1]); for (const [key, entry] of node[2]) define(out, key, member(read(entry))); return out;
              default: made[id] = out = {}; for (const [key, entry] of node[1]) define(out, key, member(read(entry))); return out;
              }
              made[id] = out;
              return out;
            };
            return read(tree);
          };
          return { toWire, fromWire };
        })
        """#
}
