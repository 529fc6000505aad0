import CWebKitGTK
import SessionBridgeScriptEngine

/// A message body as the handlers see it on both engines.
///
/// WebKit hands a body over as a value it made in the app's process, which keeps some of what
/// JSON cannot carry: non-finite numbers, `Date`s, cycles. Read as JSON text, those would
/// arrive changed (`NaN` as `null`, a `Date` as a string) or as nothing at all (a cycle). The
/// body is serialized by a checked `JSON.stringify` instead, which refuses them with the
/// headless engine's messages (the page gets a `DataCloneError`, the handler never runs).
/// Numbers and strings are read directly. A non-finite number is refused even where
/// ``ConversionLimits/allowsNonFiniteNumbers`` allows it: the page's side cannot tell, and
/// JSON cannot carry one.
///
/// WebKit carries a body as plain values, as `WKWebView` does: a typed array would arrive as an
/// object of numbered members, an `ArrayBuffer` as an empty object, and no key order is kept.
/// So the page's `postMessage` wrapper (``WebKitWebView/wrapperSource(names:)``) sends each
/// typed array's or `ArrayBuffer`'s bytes as an object holding their base64 text under
/// ``bytesMarker``, which is read back as ``ScriptValue/bytes(_:)``, as the headless engine
/// reads them. Replies holding bytes cross the same way (``ReplyValue``).
@WebKitActor
enum MessageBody {
    /// The serializer of the context WebKit gives bodies in (one shared context), made once.
    private static var cached: (context: GPointer, function: GPointer)?

    /// The key of an object that stands for bytes, in bodies and in replies (see above).
    static let bytesMarker = "\u{1}sessionbridge-bytes"

    static let serializerSource = """
        (function () {
          "use strict";
          const stringify = JSON.stringify, finite = Number.isFinite, DateType = Date;
          const refuse = (message) => { const error = new Error(message); error.name = "DataCloneError"; throw error; };
          const check = function (key, value) {
            const raw = this[key];
            switch (typeof raw) {
            case "number":
              if (!finite(raw)) refuse((raw !== raw ? "nan" : raw > 0 ? "inf" : "-inf") + " cannot be sent; only finite numbers can");
              return value;
            case "bigint": refuse("a BigInt cannot be cloned");
            case "symbol": refuse("a Symbol cannot be cloned");
            case "function": refuse("a function cannot be cloned");
            case "object":
              // Typed arrays and `ArrayBuffer`s never get here: the page's wrapper sent their bytes
              // as base64 objects, and WebKit turns any other into a plain object.
              if (raw instanceof DateType) refuse("a Date cannot be sent; send date.getTime() or date.toISOString()");
              return value;
            default: return value;
            }
          };
          return (value) => {
            try {
              return stringify(value, check);
            } catch (error) {
              if (error && error.name === "DataCloneError") throw error;
              // JSON.stringify's own refusals: a cycle (the only one a clone can carry here).
              refuse("value contains a cycle");
            }
          };
        })()
        """

    /// The body as a ``ScriptValue`` within `limits`; a body that cannot cross is refused
    /// with a message for the page.
    static func scriptValue(of value: UnsafeMutablePointer<JSCValue>, limits: ConversionLimits) throws(WebKitError) -> ScriptValue {
        // The common kinds are asked first (each question is a call into JavaScriptCore):
        // objects go to JSON text, numbers and strings are read directly.
        if unsafe jsc_value_is_object(value) == 0 {
            if unsafe jsc_value_is_number(value) != 0 {
                let number = unsafe jsc_value_to_double(value)
                guard number.isFinite else { throw WebKitError(.conversion, "\(number) cannot be sent; only finite numbers can") }
                return .number(number == 0 ? 0 : number)
            }
            if unsafe jsc_value_is_string(value) != 0, let bytes = unsafe jsc_value_to_string_as_bytes(value) {
                defer { unsafe g_bytes_unref(bytes) }
                var size = 0
                let data = unsafe g_bytes_get_data(bytes, &size)
                guard size <= limits.maxBytes else { throw WebKitError(.conversion, "the value is larger than \(limits.maxBytes) bytes") }
                guard let data = unsafe data else { return .string("") }
                return unsafe .string(String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self))
            }
            if unsafe jsc_value_is_undefined(value) != 0 { return .undefined }
            if unsafe jsc_value_is_null(value) != 0 { return .null }
            if unsafe jsc_value_is_boolean(value) != 0 { return unsafe .bool(jsc_value_to_boolean(value) != 0) }
        }
        guard let context = unsafe jsc_value_get_context(value), let function = unsafe serializer(in: context) else {
            throw WebKitError(.conversion, "the body could not be read")
        }
        var argument: UnsafeMutablePointer<JSCValue>? = unsafe value
        guard let text = unsafe jsc_value_function_callv(function, 1, &argument) else {
            throw WebKitError(.conversion, "the body could not be read")
        }
        defer { unsafe g_object_unref(text) }
        if let exception = unsafe jsc_context_get_exception(context) {
            let message = unsafe jsc_exception_get_message(exception).map { unsafe String(cString: $0) } ?? "the body cannot be cloned"
            unsafe jsc_context_clear_exception(context)
            throw WebKitError(.conversion, message)
        }
        guard unsafe jsc_value_is_string(text) != 0, let json = unsafe jsc_value_to_string(text) else { return .undefined }
        defer { unsafe g_free(json) }
        return try unsafe ScriptValue(json: String(cString: json), limits: limits, bytesKey: bytesMarker)
    }

    private static func serializer(in context: UnsafeMutablePointer<JSCContext>) -> UnsafeMutablePointer<JSCValue>? {
        if let cached, unsafe cached.context.raw == UnsafeMutableRawPointer(context) {
            return unsafe cached.function.typed()
        }
        guard let function = unsafe jsc_context_evaluate(context, serializerSource, -1) else { return nil }
        if unsafe jsc_context_get_exception(context) != nil || jsc_value_is_function(function) == 0 {
            unsafe jsc_context_clear_exception(context)
            unsafe g_object_unref(function)
            return nil
        }
        // Kept with a reference to its context; the one before, if any, is let go.
        unsafe g_object_ref(context)
        if let old = cached {
            unsafe g_object_unref(old.function.raw)
            unsafe g_object_unref(old.context.raw)
        }
        cached = unsafe (GPointer(context), GPointer(function))
        return unsafe function
    }
}
