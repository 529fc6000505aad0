import CJavaScriptCore
import OrderedCollections

/// Reads a structured value in one call into JavaScript instead of one C API call per part.
///
/// Every C API call costs a lock count, an API shim and a cross into the engine (about 40 ns
/// here); a body like `{action, id, meta: {a, b}}` took some 65 of them, three quarters of the
/// bridge's cost for it. The walker, made from functions captured before any page script ran,
/// reads the value as ``ValueReader`` does — own enumerable keys through `Object.keys`, members
/// through `[[Get]]` (so getters run once, in the same order), the same limits, checks and
/// messages — and hands back text that ``ValueReader`` parses in one pass. It calls nothing a
/// page can replace: no prototype methods, only captured functions, string concatenation and
/// null-prototype records.
///
/// Only plain objects (`Object.prototype` or `null` prototype) and arrays with
/// `Array.prototype` are read in JavaScript; any other object (typed arrays, `Date`, class
/// instances) is handed back as it is and read by ``ValueReader`` through the C API, where it
/// stands, with the counts so far.
///
/// A `Proxy` is refused, as WebKit's structured clone refuses it (`DataCloneError`): a proxy
/// answers `Object.getPrototypeOf` through its handler, so JavaScript cannot tell it from its
/// target, but its own prototype as the C API reads it is always `null`. The walker keeps each
/// object it read whose prototype it was told is not `null` (in a null-prototype record shared
/// by its walks, ``ValueReader/walkedObjects``), and the reader refuses the value if one of
/// them has none of its own (``ValueReader/refuseProxies(in:from:count:)``). The proxy's traps
/// have run by then, as its getters would; a value holding a proxy and another fault may be
/// refused for the other.
enum ValueWalker {
    /// A function of the captured ``PristineBuiltins`` (it refers to nothing global), evaluated on a
    /// context's first object read; returns `(limits...) => walk(value)`. The walkers it makes
    /// stay referenced from it: protecting it keeps them alive.
    ///
    /// The walk returns the text, or a null-prototype record: `{text, blobs, nodes, bytes}` when
    /// objects were left to the C API, `{message}` for a refusal, `{what, thrown}` when reading
    /// a member threw, `{number}` for a non-finite number that may not cross.
    ///
    /// Text: `<first>;<count>;` (where the walk's objects to check for proxies are in the shared
    /// record), then the value: `u` `n` `t` `f`; a number as JavaScript prints it (`-0` kept); a
    /// string as `"`, its length in UTF-16 code units, `;` and its code units as they are
    /// (nothing to escape or unescape); `[<count>;a,b]`; `{<count>;"<length>;key:value}`;
    /// `o<index>;` for a handed-back object. It is read as UTF-16 straight from the engine's
    /// string.
    ///
    /// The shared record is a stack: a walk started while another runs puts its objects above
    /// the other's. A walk clears what lies above its own objects when it ends; its own stay
    /// until the reader has checked them, and are cleared or replaced by the next walk.
    /// ``source``, kept parsed by each engine thread that evaluates it.
    static let script = ScriptSource(source, sourceURL: "sessionbridge://prelude/clone.js")

    static let source = """
        (function (keys, isArray, prototypeOf, isView, create, objectPrototype, arrayPrototype, walked) {
          "use strict";
          // Every walker made stays referenced from here, so the protected factory keeps it alive.
          const made = create(null);
          // Thrown to end a walk; the walk's own record says why.
          const stop = create(null);
          let madeCount = 0;
          // The top of the walked objects' stack, and how far it may hold objects of walks that ended.
          let walkedTop = 0, walkedHigh = 0;
          return function (maxDepth, maxNodes, maxBytes, allowsNonFinite) {
            // One walk's state and functions, made once and reused by the walks that follow (a
            // walk allocates nothing but its text); a walk started while another runs (a getter
            // that posts again) gets an instance of its own.
            const instance = () => {
              let nodes = 0, bytes = 0, out = "", blobs = null, blobCount = 0, failure = null, deepest = 0;
              // The objects above the one being read, by depth (a null-prototype object: no
              // page-defined setter is reachable from it); cleared after each walk.
              const path = create(null);
              const fail = (record) => { failure = record; throw stop; };
              const count = (extra) => {
                nodes++; bytes += extra;
                if (nodes > maxNodes) fail({ __proto__: null, message: "value has more than " + maxNodes + " elements" });
                if (bytes > maxBytes) fail({ __proto__: null, message: "value is larger than " + maxBytes + " bytes" });
              };
              const read = (value, depth) => {
                switch (typeof value) {
                case "undefined": count(0); out += "u"; return;
                case "boolean": count(0); out += value ? "t" : "f"; return;
                case "number":
                  count(8);
                  if (value - value !== 0 && !allowsNonFinite) fail({ __proto__: null, number: value });
                  out += value === 0 && 1 / value < 0 ? "-0" : "" + value;
                  return;
                case "string": count(value.length * 2); out += '"' + value.length + ";" + value; return;
                case "symbol": fail({ __proto__: null, message: "a Symbol cannot be cloned" });
                case "bigint": fail({ __proto__: null, message: "a BigInt cannot be cloned" });
                case "function": fail({ __proto__: null, message: "a function cannot be cloned" });
                }
                if (value === null) { count(0); out += "n"; return; }
                if (depth >= maxDepth) fail({ __proto__: null, message: "value is nested deeper than " + maxDepth + " levels" });
                for (let above = 0; above < depth; above++) {
                  if (path[above] === value) fail({ __proto__: null, message: "value contains a cycle" });
                }
                let prototype;
                // Only a Proxy's handler can throw here.
                try { prototype = prototypeOf(value); } catch (e) { fail({ __proto__: null, message: "a Proxy cannot be cloned" }); }
                const array = prototype === arrayPrototype && isArray(value);
                if (!array && ((prototype !== objectPrototype && prototype !== null) || isView(value))) {
                  if (blobs === null) blobs = create(null);
                  blobs[blobCount] = value;
                  out += "o" + blobCount + ";";
                  blobCount++;
                  return;
                }
                count(0);
                if (prototype !== null) walked[walkedTop++] = value;
                path[depth] = value;
                if (depth >= deepest) deepest = depth + 1;
                if (array) {
                  let length;
                  try { length = +value.length; } catch (e) { fail({ __proto__: null, what: "length", thrown: e }); }
                  // As JSON.stringify reads an array-like (a Proxy's length may be anything, and an
                  // object's may read one way as a number and another as text): a number, NaN and
                  // negatives 0, fractions cut.
                  length = length > 0 ? (length < 9007199254740992 ? length - length % 1 : 9007199254740991) : 0;
                  if (length > maxNodes - nodes) fail({ __proto__: null, message: "array has more than " + maxNodes + " elements" });
                  out += "[" + length + ";";
                  for (let i = 0; i < length; i++) {
                    let element;
                    try { element = value[i]; } catch (e) { fail({ __proto__: null, what: "[" + i + "]", thrown: e }); }
                    if (i > 0) out += ",";
                    read(element, depth + 1);
                  }
                  out += "]";
                  return;
                }
                let names;
                try { names = keys(value); } catch (e) { fail({ __proto__: null, what: "keys", thrown: e }); }
                out += "{" + names.length + ";";
                for (let i = 0; i < names.length; i++) {
                  const name = names[i];
                  count(name.length * 2);
                  let member;
                  try { member = value[name]; } catch (e) { fail({ __proto__: null, what: name, thrown: e }); }
                  if (i > 0) out += ",";
                  out += '"' + name.length + ";" + name + ":";
                  read(member, depth + 1);
                }
                out += "}";
              };
              return (root) => {
                nodes = 0; bytes = 0; out = ""; blobs = null; blobCount = 0; failure = null;
                const first = walkedTop;
                try {
                  read(root, 0);
                  const text = first + ";" + (walkedTop - first) + ";" + out;
                  return blobs === null ? text : { __proto__: null, text, blobs, nodes, bytes };
                } catch (e) {
                  if (e === stop) return failure;
                  throw e;
                } finally {
                  for (let depth = 0; depth < deepest; depth++) path[depth] = undefined;
                  for (let i = walkedTop; i < walkedHigh; i++) walked[i] = undefined;
                  walkedHigh = walkedTop; walkedTop = first;
                  deepest = 0; out = ""; blobs = null; failure = null;
                }
              };
            };
            let idle = instance();
            return made[madeCount++] = function (root) {
              const walk = idle !== null ? idle : instance();
              idle = null;
              try { return walk(root); } finally { idle = walk; }
            };
          };
        })
        """
}

extension ValueReader {
    /// Reads `value` (an object) with `walker`, a function made by ``ValueWalker/source`` for
    /// this reader's limits.
    mutating func read(
        _ value: JSValueRef, walkingWith walker: JSObjectRef, walked: JSObjectRef
    ) throws(ScriptError) -> ScriptValue {
        var exception: JSValueRef? = nil
        var argument: JSValueRef? = unsafe value
        guard let result = unsafe JSObjectCallAsFunction(ctx, walker, nil, 1, &argument, &exception) else {
            // Only the time limit's termination (or an engine failure) leaves the walk.
            let detail = unsafe exception.flatMap { unsafe stringOf(ctx, $0) } ?? "an exception"
            throw .conversion("reading the value threw: \(detail)")
        }
        if unsafe JSValueIsString(ctx, result) { return try unsafe parseWalked(result, blobs: nil, walked: walked) }
        guard let record = unsafe JSValueToObject(ctx, result, nil) else { throw .conversion("unreadable value") }
        if let text = unsafe member(record, .text), unsafe JSValueIsString(ctx, text) {
            unsafe startCounts(
                nodes: Int(javaScriptNumber: JSValueToNumber(ctx, member(record, .nodes), nil)) ?? 0,
                bytes: Int(javaScriptNumber: JSValueToNumber(ctx, member(record, .bytes), nil)) ?? 0
            )
            let blobs = unsafe member(record, .blobs).flatMap { unsafe JSValueToObject(ctx, $0, nil) }
            return try unsafe parseWalked(text, blobs: blobs, walked: walked)
        }
        if let message = unsafe member(record, .message) {
            throw .conversion(unsafe stringOf(ctx, message) ?? "unreadable value")
        }
        if let number = unsafe member(record, .number) {
            throw .conversion("\(unsafe JSValueToNumber(ctx, number, nil)) cannot be sent; only finite numbers can")
        }
        let what = unsafe member(record, .what).flatMap { unsafe stringOf(ctx, $0) } ?? "a member"
        let thrown = unsafe member(record, .thrown).flatMap { unsafe stringOf(ctx, $0) } ?? "an exception"
        throw .conversion("reading \(what) threw: \(thrown)")
    }

    /// Refuses the walk's value if one of the objects it read as plain objects or arrays, each
    /// with a prototype by `Object.getPrototypeOf`, has no prototype of its own: a `Proxy`.
    private func refuseProxies(in walked: JSObjectRef, from first: Int, count: Int) throws(ScriptError) {
        for index in first..<first + count {
            // The record holds only objects here (the walker put them there).
            guard let object = unsafe JSObjectGetPropertyAtIndex(ctx, walked, UInt32(index), nil), unsafe JSValueIsObject(ctx, object)
            else { throw .conversion("unreadable value") }
            if unsafe JSValueIsNull(ctx, JSObjectGetPrototype(ctx, object)) { throw Self.proxyRefusal }
        }
    }

    private func member(_ record: JSObjectRef, _ name: PropertyName) -> JSValueRef? {
        guard let value = unsafe JSObjectGetProperty(ctx, record, name.ref, nil) else { return nil }
        return unsafe JSValueIsUndefined(ctx, value) ? nil : value
    }

    private mutating func parseWalked(_ text: JSValueRef, blobs: JSObjectRef?, walked: JSObjectRef) throws(ScriptError) -> ScriptValue {
        guard let string = unsafe JSValueToStringCopy(ctx, text, nil) else { throw .conversion("unreadable value") }
        defer { unsafe JSStringRelease(string) }
        let length = unsafe JSStringGetLength(string)
        guard length > 0, let characters = unsafe JSStringGetCharactersPtr(string) else { throw .conversion("unreadable value") }
        var parser = unsafe WalkedText(units: UnsafeBufferPointer(start: characters, count: length))
        let first = try parser.counted()
        try unsafe refuseProxies(in: walked, from: first, count: parser.counted())
        let value = try parser.value(depth: 0) { index, depth throws(ScriptError) in
            guard let blobs = unsafe blobs, let blob = unsafe JSObjectGetPropertyAtIndex(ctx, blobs, UInt32(index), nil) else {
                throw .conversion("unreadable value")
            }
            return try unsafe read(blob, depth: depth)
        }
        guard parser.atEnd else { throw .conversion("unreadable value") }
        return value
    }
}

extension PropertyName {
    fileprivate static let text = PropertyName("text")
    fileprivate static let blobs = PropertyName("blobs")
    fileprivate static let nodes = PropertyName("nodes")
    fileprivate static let bytes = PropertyName("bytes")
    fileprivate static let number = PropertyName("number")
    fileprivate static let what = PropertyName("what")
    fileprivate static let thrown = PropertyName("thrown")
}

/// The walker's text, parsed in one pass over its UTF-16 code units (it is well formed by
/// construction: anything else is refused, never guessed at).
@safe  // reads only `units`, which outlives it (the engine's string, released after the parse)
private struct WalkedText {
    let units: UnsafeBufferPointer<UInt16>
    var index = 0

    init(units: UnsafeBufferPointer<UInt16>) {
        unsafe self.units = unsafe units
    }

    var atEnd: Bool { unsafe index == units.count }

    private var current: UInt16? { unsafe index < units.count ? units[index] : nil }

    private static var malformed: ScriptError { .conversion("unreadable value") }

    private static func ascii(_ character: Unicode.Scalar) -> UInt16 { UInt16(character.value) }

    mutating func value(
        depth: Int, blob: (_ index: Int, _ depth: Int) throws(ScriptError) -> ScriptValue
    ) throws(ScriptError) -> ScriptValue {
        guard let unit = current else { throw Self.malformed }
        switch unit {
        case Self.ascii("u"):
            index += 1
            return .undefined
        case Self.ascii("n"):
            index += 1
            return .null
        case Self.ascii("t"):
            index += 1
            return .bool(true)
        case Self.ascii("f"):
            index += 1
            return .bool(false)
        case Self.ascii("\""):
            return .string(try string())
        case Self.ascii("["):
            index += 1
            let count = try counted()
            var elements: [ScriptValue] = []
            // Each element takes at least a code unit: the text bounds what is reserved.
            elements.reserveCapacity(min(count, unsafe units.count - index))
            for position in 0..<count {
                if position > 0 { try expect(",") }
                elements.append(try value(depth: depth + 1, blob: blob))
            }
            try expect("]")
            return .array(elements)
        case Self.ascii("{"):
            index += 1
            let count = try counted()
            // Distinct JavaScript keys can be one Swift key (lone surrogates become U+FFFD, and
            // Swift compares canonically): the last value wins, as in the C API reader.
            var members = OrderedDictionary<String, ScriptValue>(minimumCapacity: min(count, unsafe units.count - index))
            for position in 0..<count {
                if position > 0 { try expect(",") }
                let key = try string()
                try expect(":")
                members[key] = try value(depth: depth + 1, blob: blob)
            }
            try expect("}")
            return .object(members)
        case Self.ascii("o"):
            index += 1
            return try blob(try counted(), depth)
        default:
            return .number(try number())
        }
    }

    private mutating func expect(_ character: Unicode.Scalar) throws(ScriptError) {
        guard current == Self.ascii(character) else { throw Self.malformed }
        index += 1
    }

    /// A count, length or index written as decimal digits and `;`.
    mutating func counted() throws(ScriptError) -> Int {
        var number = 0
        while let digit = current, digit >= Self.ascii("0"), digit <= Self.ascii("9") {
            number = number * 10 + Int(digit - Self.ascii("0"))
            guard number <= Int(UInt32.max) else { throw Self.malformed }
            index += 1
        }
        try expect(";")
        return number
    }

    /// A number as JavaScript prints it: integers below 2^53 are summed digit by digit, the
    /// rest parsed as Swift parses a `Double`.
    private mutating func number() throws(ScriptError) -> Double {
        let start = index
        let negative = current == Self.ascii("-")
        if negative { index += 1 }
        var integer = 0
        var digits = 0
        while let digit = current, digit >= Self.ascii("0"), digit <= Self.ascii("9"), digits < 15 {
            integer = integer * 10 + Int(digit - Self.ascii("0"))
            digits += 1
            index += 1
        }
        if digits > 0, current == nil || current == Self.ascii(",") || current == Self.ascii("]") || current == Self.ascii("}") {
            return negative ? -Double(integer) : Double(integer)
        }
        index = start
        while let unit = current, unit != Self.ascii(","), unit != Self.ascii("]"), unit != Self.ascii("}") { index += 1 }
        let text = unsafe String(decoding: UnsafeBufferPointer(rebasing: units[start..<index]), as: UTF16.self)
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default:
            guard let number = Double(text) else { throw Self.malformed }
            return number
        }
    }

    /// `"<length>;` and that many code units, as the engine's string had them (ASCII narrowed
    /// directly; a lone surrogate becomes U+FFFD, as everywhere else).
    private mutating func string() throws(ScriptError) -> String {
        try expect("\"")
        let length = try counted()
        guard unsafe length <= units.count - index else { throw Self.malformed }
        let slice = unsafe UnsafeBufferPointer(rebasing: units[index..<index + length])
        index += length
        return unsafe swiftString(slice)
    }
}
