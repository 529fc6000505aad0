public import OrderedCollections

/// A value that crosses between Swift and JavaScript.
///
/// Conversion never goes through JSON text: a value is made through the JavaScriptCore C API,
/// and an object is read in one call into JavaScript, by a walker made from built-ins captured
/// before any page script ran (own enumerable keys, getters run once, in order).
/// Objects keep their key order. Values that cannot cross (functions, symbols, BigInt, cycles,
/// `Date`, values nested deeper than a limit) are refused with a ``ScriptError`` of kind
/// ``ScriptError/Kind/conversion``.
public enum ScriptValue: Sendable, Hashable {
    case undefined
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ScriptValue])
    /// A plain object: its own enumerable string-keyed properties, in order.
    case object(OrderedDictionary<String, ScriptValue>)
    /// The bytes of a typed array or `ArrayBuffer`; becomes a `Uint8Array` in JavaScript.
    case bytes([UInt8])

    /// The member `key` of an object, or `nil`.
    public subscript(key: String) -> ScriptValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The number, if this is a number.
    public var numberValue: Double? {
        if case .number(let number) = self { return number }
        return nil
    }

    /// The Boolean, if this is a Boolean.
    public var boolValue: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }

    /// Every string in this value, keys included: what a leak search must look through.
    public func forEachString(_ body: (String) -> Void) {
        switch self {
        case .string(let string): body(string)
        case .array(let elements): for element in elements { element.forEachString(body) }
        case .object(let members):
            for (key, value) in members {
                body(key)
                value.forEachString(body)
            }
        default: break
        }
    }
}

extension ScriptValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: ScriptValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, ScriptValue)...) {
        var members = OrderedDictionary<String, ScriptValue>(minimumCapacity: elements.count)
        for (key, value) in elements { members[key] = value }  // a repeated key keeps its place and takes the last value
        self = .object(members)
    }
}

extension ScriptValue: CustomStringConvertible {
    /// A JavaScript-like rendering, for logs and transcripts.
    public var description: String {
        switch self {
        case .undefined: return "undefined"
        case .null: return "null"
        case .bool(let bool): return bool ? "true" : "false"
        case .number(let number):
            if number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
            return String(number)
        case .string(let string): return Self.quoted(string)
        case .array(let elements): return "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .object(let members):
            return "{" + members.map { "\(Self.quoted($0.key)): \($0.value.description)" }.joined(separator: ", ") + "}"
        case .bytes(let bytes): return "Uint8Array(\(bytes.count))"
        }
    }

    package static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
