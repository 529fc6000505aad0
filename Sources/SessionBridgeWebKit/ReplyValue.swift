import CWebKitGTK
import Foundation
import OrderedCollections
import SessionBridgeScriptEngine

/// A handler's reply as the page receives it on both engines.
///
/// The reply is built as JavaScript values in the context WebKit gave the message in, and
/// WebKit carries those to the page: a non-finite number arrives as itself and a member or
/// element holding `undefined` is kept, as on the headless engine (read from JSON text, `NaN`
/// arrived as `null` and `undefined` members were dropped).
///
/// WebKit carries a reply as `WKWebView` does, as plain values: an object's key order is not
/// kept, and a typed array arrives as an empty object. It also makes each object in the page
/// by setting its members, not defining them: a member named like a method of a page's frozen
/// `Object.prototype` (hardened pages freeze it), such as `toString`, is dropped, and an own
/// `__proto__` key is lost. So a reply holding ``ScriptValue/bytes(_:)`` or such a member
/// crosses in an envelope, ``MessageBody/bytesMarker`` set to `true` beside the value: each
/// byte string as an object holding its base64 text under that key, and each object with such
/// a member as its entries under ``entriesMarker``. The page's `postMessage` wrapper
/// (``WebKitWebView/wrapperSource(names:)``) opens it: a `Uint8Array` for each byte string, and
/// for each object of entries an object that owns every member (`Object.fromEntries`), as the
/// headless engine makes them.
@WebKitActor
enum ReplyValue {
    private static let bytesMarker = MessageBody.bytesMarker

    /// The key under which an object in an envelope crosses as its entries (see above).
    static let entriesMarker = "\u{1}sessionbridge-entries"

    /// The JavaScript value of a reply in `context`, with one reference for the caller.
    static func reply(_ value: ScriptValue, in context: UnsafeMutablePointer<JSCContext>) -> UnsafeMutablePointer<JSCValue>? {
        guard value.needsEnvelope else { return unsafe make(value, in: context) }
        return unsafe make(.object([bytesMarker: .bool(true), "value": enveloped(value)]), in: context)
    }

    /// `value` as it crosses inside an envelope: each object that has a member WebKit would
    /// drop, or a marker's key (a page's own object, echoed), as `{entriesMarker: [[key,
    /// value], ...]}`.
    private static func enveloped(_ value: ScriptValue) -> ScriptValue {
        switch value {
        case .array(let elements):
            return .array(elements.map(enveloped))
        case .object(let members):
            let made = members.mapValues(enveloped)
            guard members.keys.contains(where: Self.needsDefining) else { return .object(made) }
            return .object([entriesMarker: .array(made.map { .array([.string($0.key), $0.value]) })])
        default:
            return value
        }
    }

    /// Whether WebKit would drop a member named `key` from an object it makes in a page (or
    /// the wrapper would read it as one of its markers).
    fileprivate static func needsDefining(_ key: String) -> Bool {
        isObjectPrototypeMemberName(key) || key == bytesMarker || key == entriesMarker
    }

    /// The JavaScript value of `value` in `context`, with one reference for the caller; bytes
    /// become an object holding their base64 text.
    private static func make(_ value: ScriptValue, in context: UnsafeMutablePointer<JSCContext>) -> UnsafeMutablePointer<JSCValue>? {
        switch value {
        case .undefined: return unsafe jsc_value_new_undefined(context)
        case .null: return unsafe jsc_value_new_null(context)
        case .bool(let bool): return unsafe jsc_value_new_boolean(context, bool ? 1 : 0)
        case .number(let number): return unsafe jsc_value_new_number(context, number)
        case .string(let string): return unsafe makeString(string, in: context)
        case .array(let elements):
            guard let array = unsafe g_ptr_array_new_full(UInt32(elements.count), g_object_unref) else { return nil }
            defer { unsafe g_ptr_array_unref(array) }
            for element in elements {
                guard let made = unsafe make(element, in: context) else { return nil }
                unsafe g_ptr_array_add(array, made)
            }
            return unsafe jsc_value_new_array_from_garray(context, array)
        case .object(let members):
            // A key the C API cannot name (it holds a NUL) goes through JSON text, as before.
            if members.keys.contains(where: { $0.utf8.contains(0) }) { return unsafe jsc_value_new_from_json(context, value.jsonText) }
            // A `__proto__` key must not set the object's prototype (WebKit then drops the key):
            // an object made by JSON parsing already owns one, so setting it cannot reach the setter.
            let object =
                unsafe members["__proto__"] == nil
                ? jsc_value_new_object(context, nil, nil) : jsc_value_new_from_json(context, #"{"__proto__":null}"#)
            guard let object = unsafe object else { return nil }
            for (key, member) in members {
                guard let made = unsafe make(member, in: context) else {
                    unsafe g_object_unref(object)
                    return nil
                }
                unsafe jsc_value_object_set_property(object, key, made)
                unsafe g_object_unref(made)
            }
            return unsafe object
        case .bytes(let bytes):
            return unsafe make(.object([bytesMarker: .string(Data(bytes).base64EncodedString())]), in: context)
        }
    }

    /// A string made from its UTF-8 bytes, so that a NUL inside it is kept.
    private static func makeString(_ string: String, in context: UnsafeMutablePointer<JSCContext>) -> UnsafeMutablePointer<JSCValue>? {
        guard string.utf8.contains(0) else { return unsafe jsc_value_new_string(context, string) }
        let utf8 = Array(string.utf8)
        guard let bytes = unsafe utf8.withUnsafeBytes({ unsafe g_bytes_new($0.baseAddress, gsize($0.count)) }) else { return nil }
        defer { unsafe g_bytes_unref(bytes) }
        return unsafe jsc_value_new_string_from_bytes(context, bytes)
    }
}

extension ScriptValue {
    /// Whether the value must cross in an envelope: it holds ``ScriptValue/bytes(_:)`` or an
    /// object with a member WebKit would drop.
    @WebKitActor fileprivate var needsEnvelope: Bool {
        switch self {
        case .bytes: true
        case .array(let elements): elements.contains { $0.needsEnvelope }
        case .object(let members):
            members.keys.contains(where: ReplyValue.needsDefining) || members.values.contains { $0.needsEnvelope }
        default: false
        }
    }
}
