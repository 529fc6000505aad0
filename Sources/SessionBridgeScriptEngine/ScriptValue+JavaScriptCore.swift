import CJavaScriptCore
import OrderedCollections

/// Bounds on a value converted from JavaScript, so a hostile value ends with an error, not a
/// crash, a stack overflow or unbounded memory.
public struct ConversionLimits: Sendable, Hashable {
    /// Deepest nesting of arrays and objects.
    public var maxDepth: Int
    /// Most values in total (each array element and object member counts one).
    public var maxNodes: Int
    /// Most bytes of strings, keys and byte arrays in total (strings count 2 bytes a code unit).
    public var maxBytes: Int
    /// Whether `NaN` and the infinities may cross.
    public var allowsNonFiniteNumbers: Bool

    public init(maxDepth: Int = 64, maxNodes: Int = 100_000, maxBytes: Int = 16 << 20, allowsNonFiniteNumbers: Bool = true) {
        self.maxDepth = maxDepth
        self.maxNodes = maxNodes
        self.maxBytes = maxBytes
        self.allowsNonFiniteNumbers = allowsNonFiniteNumbers
    }

    /// The defaults: depth 64, 100,000 values, 16 MiB.
    public static let `default` = ConversionLimits()
}

/// Reads a JavaScript value into a ``ScriptValue`` through the C API.
@safe  // its JavaScriptCore references are used only on its context's engine thread, while the context lives
struct ValueReader {
    let ctx: JSContextRef
    let limits: ConversionLimits
    /// The pristine `Object.keys`, so that only own enumerable properties are read (the C API's
    /// property-name list also walks the prototype chain, which a page can pollute).
    let ownKeys: JSObjectRef?
    /// The pristine `Object.prototype` and `ArrayBuffer.isView`, which tell a `DataView` apart.
    let objectPrototype: JSObjectRef?
    let isView: JSObjectRef?
    /// The pristine `Object.getPrototypeOf`, which tells a `Proxy` apart.
    let prototypeOf: JSObjectRef?
    private var nodes = 0
    /// The values read so far, as ``ConversionLimits/maxNodes`` counts them (an object, each
    /// of its keys and members, an array and each of its elements).
    var nodesRead: Int { nodes }
    private var bytes = 0
    private var ancestors: [JSObjectRef] = unsafe []

    init(
        ctx: JSContextRef, limits: ConversionLimits, ownKeys: JSObjectRef? = nil, objectPrototype: JSObjectRef? = nil,
        isView: JSObjectRef? = nil, prototypeOf: JSObjectRef? = nil
    ) {
        unsafe self.ctx = unsafe ctx
        self.limits = limits
        unsafe self.ownKeys = unsafe ownKeys
        unsafe self.objectPrototype = unsafe objectPrototype
        unsafe self.isView = unsafe isView
        unsafe self.prototypeOf = unsafe prototypeOf
    }

    /// How a `Proxy` is refused, on either reader, as WebKit's structured clone refuses one.
    static var proxyRefusal: ScriptError { .conversion("a Proxy cannot be cloned") }

    mutating func read(_ value: JSValueRef?) throws(ScriptError) -> ScriptValue {
        try unsafe read(value, depth: 0)
    }

    /// Continues the counts of a walk that handed an object over (``ValueWalker``).
    mutating func startCounts(nodes: Int, bytes: Int) {
        self.nodes = nodes
        self.bytes = bytes
    }

    private mutating func count(bytes extra: Int) throws(ScriptError) {
        nodes += 1
        bytes += extra
        if nodes > limits.maxNodes { throw .conversion("value has more than \(limits.maxNodes) elements") }
        if bytes > limits.maxBytes { throw .conversion("value is larger than \(limits.maxBytes) bytes") }
    }

    mutating func read(_ value: JSValueRef?, depth: Int) throws(ScriptError) -> ScriptValue {
        guard let value = unsafe value else { return .undefined }
        switch unsafe JSValueGetType(ctx, value) {
        case kJSTypeUndefined:
            try count(bytes: 0)
            return .undefined
        case kJSTypeNull:
            try count(bytes: 0)
            return .null
        case kJSTypeBoolean:
            try count(bytes: 0)
            return unsafe .bool(JSValueToBoolean(ctx, value))
        case kJSTypeNumber:
            try count(bytes: 8)
            let number = unsafe JSValueToNumber(ctx, value, nil)
            if !number.isFinite && !limits.allowsNonFiniteNumbers {
                throw .conversion("\(number) cannot be sent; only finite numbers can")
            }
            return .number(number)
        case kJSTypeString:
            // Counted before the copy: a rope of a gigabyte costs the page a few concatenations
            // and would cost the copy all of it.
            try unsafe count(bytes: stringLength(ctx, value) * 2)
            var exception: JSValueRef? = nil
            guard let string = unsafe JSValueToStringCopy(ctx, value, &exception) else { throw .conversion("unreadable string") }
            defer { unsafe JSStringRelease(string) }
            return unsafe .string(swiftString(string))
        case kJSTypeSymbol:
            throw .conversion("a Symbol cannot be cloned")
        case kJSTypeBigInt:
            throw .conversion("a BigInt cannot be cloned")
        case kJSTypeObject:
            return try unsafe readObject(JSValueToObject(ctx, value, nil), depth: depth)
        default:
            throw .conversion("a value of unknown type cannot be cloned")
        }
    }

    private mutating func readObject(_ object: JSObjectRef?, depth: Int) throws(ScriptError) -> ScriptValue {
        guard let object = unsafe object else { throw .conversion("unreadable object") }
        if unsafe JSObjectIsFunction(ctx, object) { throw .conversion("a function cannot be cloned") }
        if depth >= limits.maxDepth { throw .conversion("value is nested deeper than \(limits.maxDepth) levels") }
        if unsafe ancestors.contains(object) { throw .conversion("value contains a cycle") }
        var exception: JSValueRef? = nil
        let typedArrayType = unsafe JSValueGetTypedArrayType(ctx, object, &exception)
        if typedArrayType != kJSTypedArrayTypeNone {
            return try unsafe readBytes(object, type: typedArrayType)
        }
        if unsafe JSValueIsDate(ctx, object) {
            throw .conversion("a Date cannot be sent; send date.getTime() or date.toISOString()")
        }
        let prototype = unsafe JSObjectGetPrototype(ctx, object)
        if unsafe prototype != objectPrototype, unsafe !JSValueIsArray(ctx, object) {
            // A `Proxy` is refused, as WebKit's structured clone refuses one (the C API's
            // `JSValueIsArray` is false for a proxy of an array too). Its own prototype is
            // always `null`, where `Object.getPrototypeOf` asks its handler: a prototype that
            // way, or a handler that throws, gives it away. (A proxy whose handler answers
            // `null` reads as the null-prototype object it shows.)
            if unsafe JSValueIsNull(ctx, prototype), let prototypeOf = unsafe prototypeOf,
                unsafe isProxyWithoutOwnPrototype(object, prototypeOf: prototypeOf, in: ctx)
            {
                throw Self.proxyRefusal
            }
            // A `DataView` crosses as the bytes it shows, as in WebKit: an array buffer view that
            // is no typed array. The C API has no `DataView`, so its `buffer`, `byteOffset` and
            // `byteLength` are read as the page sees them (the page's own data either way), and
            // checked against the buffer.
            if let isView = unsafe isView {
                var argument: JSValueRef? = unsafe object
                if let answer = unsafe JSObjectCallAsFunction(ctx, isView, nil, 1, &argument, nil), unsafe JSValueToBoolean(ctx, answer) {
                    return try unsafe readDataView(object)
                }
            }
        }
        try count(bytes: 0)
        unsafe ancestors.append(object)
        defer { unsafe ancestors.removeLast() }
        if unsafe JSValueIsArray(ctx, object) {
            let lengthValue = unsafe JSObjectGetProperty(ctx, object, PropertyName.length.ref, &exception)
            if let exception = unsafe exception { throw unsafe thrownWhileReading(exception, what: "length") }
            let length = unsafe JSValueToNumber(ctx, lengthValue, nil)
            guard length.isFinite, length >= 0, length <= Double(limits.maxNodes - nodes) else {
                throw .conversion("array has more than \(limits.maxNodes) elements")
            }
            var elements: [ScriptValue] = []
            elements.reserveCapacity(Int(length))
            for index in 0..<UInt32(length) {
                let element = unsafe JSObjectGetPropertyAtIndex(ctx, object, index, &exception)
                if let exception = unsafe exception { throw unsafe thrownWhileReading(exception, what: "[\(index)]") }
                unsafe elements.append(try read(element, depth: depth + 1))
            }
            return .array(elements)
        }
        if let ownKeys = unsafe ownKeys {
            var argument: JSValueRef? = unsafe object
            let keysValue = unsafe JSObjectCallAsFunction(ctx, ownKeys, nil, 1, &argument, &exception)
            if let exception = unsafe exception { throw unsafe thrownWhileReading(exception, what: "keys") }
            guard let keysValue = unsafe keysValue, let keys = unsafe JSValueToObject(ctx, keysValue, nil) else {
                throw .conversion("unreadable keys")
            }
            let keysLength = unsafe JSValueToNumber(ctx, JSObjectGetProperty(ctx, keys, PropertyName.length.ref, nil), nil)
            let keyCount = max(0, Int(javaScriptNumber: keysLength) ?? 0)
            var members = OrderedDictionary<String, ScriptValue>(minimumCapacity: keyCount)
            for index in 0..<keyCount {
                let keyValue = unsafe JSObjectGetPropertyAtIndex(ctx, keys, UInt32(index), nil)
                guard let keyString = unsafe JSValueToStringCopy(ctx, keyValue, nil) else { continue }
                defer { unsafe JSStringRelease(keyString) }
                let key = unsafe swiftString(keyString)
                try count(bytes: key.utf16.count * 2)
                let member = unsafe JSObjectGetProperty(ctx, object, keyString, &exception)
                if let exception = unsafe exception { throw unsafe thrownWhileReading(exception, what: key) }
                members[key] = unsafe try read(member, depth: depth + 1)
            }
            return .object(members)
        }
        let names = unsafe JSObjectCopyPropertyNames(ctx, object)
        defer { unsafe JSPropertyNameArrayRelease(names) }
        let memberCount = unsafe JSPropertyNameArrayGetCount(names)
        var members = OrderedDictionary<String, ScriptValue>(minimumCapacity: memberCount)
        for index in 0..<memberCount {
            let name = unsafe JSPropertyNameArrayGetNameAtIndex(names, index)!
            let key = unsafe swiftString(name)
            try count(bytes: key.utf16.count * 2)
            let member = unsafe JSObjectGetProperty(ctx, object, name, &exception)
            if let exception = unsafe exception { throw unsafe thrownWhileReading(exception, what: key) }
            members[key] = unsafe try read(member, depth: depth + 1)
        }
        return .object(members)
    }

    private mutating func readBytes(_ object: JSObjectRef, type: JSTypedArrayType) throws(ScriptError) -> ScriptValue {
        var exception: JSValueRef? = nil
        let pointer: UnsafeMutableRawPointer?
        let length: Int
        if type == kJSTypedArrayTypeArrayBuffer {
            unsafe pointer = unsafe arrayBufferBytes(object)
            length = unsafe JSObjectGetArrayBufferByteLength(ctx, object, &exception)
        } else {
            unsafe pointer = unsafe JSObjectGetTypedArrayBytesPtr(ctx, object, &exception)
                .map { unsafe $0 + JSObjectGetTypedArrayByteOffset(ctx, object, nil) }
            length = unsafe JSObjectGetTypedArrayByteLength(ctx, object, &exception)
        }
        try count(bytes: length)
        guard let pointer = unsafe pointer, length > 0 else { return .bytes([]) }
        return unsafe .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: length)))
    }

    private mutating func readDataView(_ view: JSObjectRef) throws(ScriptError) -> ScriptValue {
        var exception: JSValueRef? = nil
        func member(_ name: PropertyName, _ what: String) throws(ScriptError) -> JSValueRef? {
            let value = unsafe JSObjectGetProperty(ctx, view, name.ref, &exception)
            if let exception = unsafe exception { throw unsafe thrownWhileReading(exception, what: what) }
            return unsafe value
        }
        let buffer = try unsafe member(.buffer, "buffer")
        let offset = try unsafe JSValueToNumber(ctx, member(.byteOffset, "byteOffset"), nil)
        let length = try unsafe JSValueToNumber(ctx, member(.byteLength, "byteLength"), nil)
        guard let bufferObject = unsafe buffer.flatMap({ unsafe JSValueToObject(ctx, $0, nil) }),
            unsafe JSValueGetTypedArrayType(ctx, bufferObject, nil) == kJSTypedArrayTypeArrayBuffer,
            offset >= 0, length >= 0, offset.rounded() == offset, length.rounded() == length,
            offset + length <= Double(unsafe JSObjectGetArrayBufferByteLength(ctx, bufferObject, nil))
        else { throw .conversion("a DataView whose buffer, byteOffset or byteLength is not its own cannot be cloned") }
        try count(bytes: Int(length))
        guard length > 0, let base = unsafe arrayBufferBytes(bufferObject) else { return .bytes([]) }
        return unsafe .bytes(Array(UnsafeRawBufferPointer(start: base + Int(offset), count: Int(length))))
    }

    /// The bytes of an `ArrayBuffer`. JavaScriptCore refuses a `WebAssembly.Memory`'s buffer to
    /// `JSObjectGetArrayBufferBytesPtr` (its body then crossed as no bytes at all); a typed
    /// array over it gives them.
    private func arrayBufferBytes(_ buffer: JSObjectRef) -> UnsafeMutableRawPointer? {
        var exception: JSValueRef? = nil
        if let bytes = unsafe JSObjectGetArrayBufferBytesPtr(ctx, buffer, &exception) { return unsafe bytes }
        guard let view = unsafe JSObjectMakeTypedArrayWithArrayBuffer(ctx, kJSTypedArrayTypeUint8Array, buffer, nil) else { return nil }
        return unsafe JSObjectGetTypedArrayBytesPtr(ctx, view, nil)
    }

    private func thrownWhileReading(_ exception: JSValueRef, what: String) -> ScriptError {
        let detail = unsafe stringOf(ctx, exception) ?? "an exception"
        return .conversion("reading \(what) threw: \(detail)")
    }
}

/// Makes the JavaScript value for a ``ScriptValue``.
func makeJSValue(_ value: ScriptValue, in ctx: JSContextRef) -> JSValueRef {
    switch value {
    case .undefined: return unsafe JSValueMakeUndefined(ctx)
    case .null: return unsafe JSValueMakeNull(ctx)
    case .bool(let bool): return unsafe JSValueMakeBoolean(ctx, bool)
    case .number(let number): return unsafe JSValueMakeNumber(ctx, number)
    case .string(let string):
        let jsString = unsafe makeJSString(string)
        defer { unsafe JSStringRelease(jsString) }
        return unsafe JSValueMakeString(ctx, jsString)
    case .array(let elements):
        // Made with its elements at once, as WebKit's deserializer makes an array: each is the
        // array's own, even where a page gave `Array.prototype` an accessor of an index (a
        // `put` would call it and keep nothing). Each element is protected from the moment it is
        // made until the array has it: gathered in a Swift array, the elements are on the heap,
        // where JavaScriptCore's conservative scan does not look, and making the next one may
        // collect garbage.
        var made = unsafe [JSValueRef?]()
        unsafe made.reserveCapacity(elements.count)
        for element in elements {
            let value = unsafe makeJSValue(element, in: ctx)
            unsafe JSValueProtect(ctx, value)
            unsafe made.append(value)
        }
        defer { unsafe made.forEach { unsafe JSValueUnprotect(ctx, $0) } }
        return unsafe made.withUnsafeBufferPointer { unsafe JSObjectMakeArray(ctx, $0.count, $0.baseAddress, nil)! }
    case .object(let members):
        // Members are set with `put` (the C API has no define), which would reach
        // `Object.prototype` for a name it has: the `__proto__` setter, or a built-in method
        // made read-only by a page that froze `Object.prototype` (hardened pages do), where the
        // member would be dropped (WebKit's own replies drop them too; the WebKit engine sends
        // such objects as their entries). For those names only, the object has no prototype
        // while its members are set, so every member is the object's own. (An accessor a page
        // added to `Object.prototype` under a member's name is met by `put`: its setter runs,
        // in the page's entry, and the member is dropped. Looking each name up first, to set
        // it as the object's own, cost a two-member reply 130 ns, a sixth of its making, for a
        // page that could only break its own replies.)
        let object = unsafe JSObjectMake(ctx, nil, nil)!
        if members.keys.contains(where: isObjectPrototypeMemberName) {
            unsafe settingOwnMembers(of: object, in: ctx) { unsafe setMembers(members, on: object, in: ctx) }
        } else {
            unsafe setMembers(members, on: object, in: ctx)
        }
        return unsafe object
    case .bytes(let bytes):
        let array = unsafe JSObjectMakeTypedArray(ctx, kJSTypedArrayTypeUint8Array, bytes.count, nil)!
        if !bytes.isEmpty, let pointer = unsafe JSObjectGetTypedArrayBytesPtr(ctx, array, nil) {
            unsafe bytes.withUnsafeBytes { unsafe pointer.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        return unsafe array
    }
}

/// Sets each of `members` on `object`, made as it is set: a value kept in a Swift collection
/// until the end would be on the heap, where JavaScriptCore's conservative scan does not look,
/// and making the next could collect it.
func setMembers(
    _ members: some Sequence<(key: String, value: ScriptValue)>, on object: JSObjectRef, in ctx: JSContextRef
) {
    for (key, member) in members {
        let value = unsafe makeJSValue(member, in: ctx)
        unsafe PropertyNames.with(key) { name in
            unsafe JSObjectSetProperty(ctx, object, name, value, JSPropertyAttributes(kJSPropertyAttributeNone), nil)
        }
    }
}

/// Runs `body`, which sets members of `object` (through the C API, which sets them as
/// `object.name = value` does), with `object`'s prototype detached: each member becomes the
/// object's own even where a page froze the prototype or gave it an accessor of that name.
func settingOwnMembers(of object: JSObjectRef, in ctx: JSContextRef, _ body: () -> Void) {
    let prototype = unsafe JSObjectGetPrototype(ctx, object)
    unsafe JSObjectSetPrototype(ctx, object, JSValueMakeNull(ctx))
    body()
    unsafe JSObjectSetPrototype(ctx, object, prototype)
}

/// Whether `object`, whose own prototype (`JSObjectGetPrototype`) is `null`, is a `Proxy`: a
/// proxy's own prototype is always `null`, where `Object.getPrototypeOf` (`prototypeOf`, the
/// pristine one) asks its handler, which gives a prototype or throws. (A proxy whose handler
/// answers `null` cannot be told from a null-prototype object this way.)
func isProxyWithoutOwnPrototype(_ object: JSObjectRef, prototypeOf: JSObjectRef, in ctx: JSContextRef) -> Bool {
    var argument: JSValueRef? = unsafe object
    var thrown: JSValueRef? = nil
    let answer = unsafe JSObjectCallAsFunction(ctx, prototypeOf, nil, 1, &argument, &thrown)
    return unsafe thrown != nil || answer.map { unsafe !JSValueIsNull(ctx, $0) } ?? true
}

/// Whether `name` names a member of a fresh `Object.prototype` (setting a member of that name
/// through `put` would reach it). Most names are told apart by their length alone.
package func isObjectPrototypeMemberName(_ name: String) -> Bool {
    switch name.utf8.count {
    case 7: name == "valueOf"
    case 8: name == "toString"
    case 9: name == "__proto__"
    case 11: name == "constructor"
    case 13: name == "isPrototypeOf"
    case 14: name == "hasOwnProperty" || name == "toLocaleString"
    case 16: name == "__defineGetter__" || name == "__defineSetter__" || name == "__lookupGetter__" || name == "__lookupSetter__"
    case 20: name == "propertyIsEnumerable"
    default: false
    }
}
