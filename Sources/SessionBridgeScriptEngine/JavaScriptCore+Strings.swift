package import CJavaScriptCore
import Glibc
import Synchronization

/// Creates a JavaScriptCore string from a Swift string (embedded NULs kept). The caller releases it.
@inline(__always)
func makeJSString(_ string: String) -> JSStringRef {
    unsafe string.withCString { cString -> JSStringRef in
        if unsafe strlen(cString) == string.utf8.count { return unsafe JSStringCreateWithUTF8CString(cString) }
        let utf16 = Array(string.utf16)
        return unsafe utf16.withUnsafeBufferPointer { unsafe JSStringCreateWithCharacters($0.baseAddress, $0.count) }
    }
}

/// Calls a JavaScript function with raw arguments; `exception` receives what it throws.
@inline(__always)
func callFunction(
    _ ctx: JSContextRef, _ function: JSObjectRef, this: JSObjectRef?, _ arguments: [JSValueRef?],
    exception: inout JSValueRef?
) -> JSValueRef? {
    var arguments = unsafe arguments
    let count = unsafe arguments.count
    return unsafe arguments.withUnsafeMutableBufferPointer { buffer in
        unsafe JSObjectCallAsFunction(ctx, function, this, count, buffer.baseAddress, &exception)
    }
}

/// The Swift string for a JavaScriptCore string (one copy).
///
/// Names and most values are ASCII: those are narrowed straight into the string's UTF-8
/// storage, which costs a fraction of the general UTF-16 transcoding (half of a structured
/// body's conversion went there). Anything else is transcoded, lone surrogates repaired.
@inline(__always)
func swiftString(_ string: JSStringRef) -> String {
    let length = unsafe JSStringGetLength(string)
    guard length > 0, let characters = unsafe JSStringGetCharactersPtr(string) else { return "" }
    return unsafe swiftString(UnsafeBufferPointer(start: characters, count: length))
}

/// The Swift string for UTF-16 code units (ASCII narrowed directly, anything else transcoded).
@inline(__always)
func swiftString(_ units: UnsafeBufferPointer<UInt16>) -> String {
    let length = units.count
    guard length > 0 else { return "" }
    if unsafe isASCII(units) {
        return unsafe String(unsafeUninitializedCapacity: length) { bytes in
            for index in 0..<length { unsafe bytes[index] = UInt8(truncatingIfNeeded: units[index]) }
            return length
        }
    }
    return unsafe String(decoding: units, as: UTF16.self)
}

/// Whether every code unit is below 0x80.
@inline(__always)
private func isASCII(_ units: UnsafeBufferPointer<UInt16>) -> Bool {
    var combined: UInt16 = 0
    for index in 0..<units.count { combined |= unsafe units[index] }
    return combined < 0x80
}

/// `String(value)` in JavaScript, or `nil` when that throws.
func stringOf(_ ctx: JSContextRef, _ value: JSValueRef?) -> String? {
    guard let value = unsafe value else { return nil }
    var exception: JSValueRef? = nil
    guard let string = unsafe JSValueToStringCopy(ctx, value, &exception) else { return nil }
    defer { unsafe JSStringRelease(string) }
    return unsafe swiftString(string)
}

/// The length in UTF-16 code units of a JavaScript string value, read from the engine without
/// copying or flattening it (a string built by concatenation stays a rope until copied).
func stringLength(_ ctx: JSContextRef, _ value: JSValueRef) -> Int {
    guard unsafe JSValueIsString(ctx, value), let wrapper = unsafe JSValueToObject(ctx, value, nil),
        let length = unsafe JSObjectGetProperty(ctx, wrapper, PropertyName.length.ref, nil)
    else { return 0 }
    let number = unsafe JSValueToNumber(ctx, length, nil)
    return number.isFinite && number > 0 ? Int(number) : 0
}

/// Reads `object[name]`; `nil` when the read throws.
func property(_ ctx: JSContextRef, _ object: JSObjectRef, _ name: PropertyName) -> JSValueRef? {
    var exception: JSValueRef? = nil
    let value = unsafe JSObjectGetProperty(ctx, object, name.ref, &exception)
    return unsafe exception == nil ? value : nil
}

/// A property name created once and reused, so that reading a property on a hot path makes
/// and releases no string.
///
/// `@unchecked Sendable` is safe: a `JSStringRef` is immutable after creation and its reference
/// count is atomic, so one may be shared by every thread.
@safe  // its string is immutable and never released while the name is in use (kept names never are)
package struct PropertyName: @unchecked Sendable {
    package let ref: JSStringRef
    package init(_ name: String) { unsafe ref = unsafe makeJSString(name) }

    static let length = PropertyName("length")
    static let name = PropertyName("name")
    static let message = PropertyName("message")
    static let line = PropertyName("line")
    static let column = PropertyName("column")
    static let sourceURL = PropertyName("sourceURL")
    static let stack = PropertyName("stack")
    static let prototype = PropertyName("prototype")
    static let buffer = PropertyName("buffer")
    static let byteOffset = PropertyName("byteOffset")
    static let byteLength = PropertyName("byteLength")
}

/// The property names of the objects the package makes, each made once per process and kept.
///
/// A reply's `ok` and `expiresAt`, an error's `code`, a location's `href` recur call after
/// call, and making a JavaScriptCore string for a name costs two allocations, a conversion and
/// a release: about 170 ns with the C API alone, against a lookup here of a few tens (a
/// reply `{ok, expiresAt}` set through fresh names took 850 ns in C, through kept ones 485 ns).
/// Names are kept up to ``capacity``, each at most ``maxLength`` bytes; past that a name is
/// made and released as before. Kept names are never released, so a name handed out stays
/// valid on any thread (a `JSStringRef` is immutable and shared across VMs).
enum PropertyNames {
    /// How many names are kept at most.
    static let capacity = 1024
    /// The longest name kept, in UTF-8 bytes.
    static let maxLength = 64

    private static let kept = Mutex<[String: PropertyName]>([:])

    /// Calls `body` with the JavaScriptCore string for `name`.
    @inline(__always)
    static func with<Result>(_ name: String, _ body: (JSStringRef) -> Result) -> Result {
        let (known, isFull) = kept.withLock { kept in (kept[name], kept.count >= capacity) }
        if let known { return unsafe body(known.ref) }
        guard !isFull, name.utf8.count <= maxLength else {
            let made = unsafe makeJSString(name)
            defer { unsafe JSStringRelease(made) }
            return unsafe body(made)
        }
        let made = PropertyName(name)
        // Another thread may have kept the same name meanwhile: then this one is released.
        let isKept = kept.withLock { kept -> Bool in
            guard kept.count < capacity, kept[name] == nil else { return false }
            kept[name] = made
            return true
        }
        defer { if !isKept { unsafe JSStringRelease(made.ref) } }
        return unsafe body(made.ref)
    }
}
