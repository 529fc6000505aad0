import Foundation
import OrderedCollections
import SessionBridgeScriptEngine

/// Evaluation results, message bodies and error replies cross between WebKit's JavaScript and
/// Swift as JSON text (`jsc_value_to_json` and `jsc_value_new_from_json`), so `undefined`
/// inside arrays becomes `null`, members holding `undefined` or functions disappear, and bytes
/// become arrays of numbers, as with `JSON.stringify`. Replies are made as JavaScript values
/// (``ReplyValue``).
extension ScriptValue {
    /// The value as JSON text; `undefined` at the top level is `null`.
    var jsonText: String {
        var output = ""
        writeJSON(to: &output)
        return output
    }

    private func writeJSON(to output: inout String) {
        switch self {
        case .undefined, .null: output += "null"
        case .bool(let bool): output += bool ? "true" : "false"
        case .number(let number):
            if !number.isFinite {
                output += "null"
            } else if number.rounded() == number, abs(number) < 1e15 {
                output += String(Int64(number))
            } else {
                output += "\(number)"
            }
        case .string(let string): Self.writeString(string, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.writeJSON(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            var first = true
            for (key, value) in members where value != .undefined {
                if !first { output += "," }
                first = false
                Self.writeString(key, to: &output)
                output += ":"
                value.writeJSON(to: &output)
            }
            output += "}"
        case .bytes(let bytes):
            output += "[" + bytes.map(String.init).joined(separator: ",") + "]"
        }
    }

    private static func writeString(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{2028}": output += "\\u2028"
            case "\u{2029}": output += "\\u2029"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    /// Parses JSON text within `limits` (depth, nodes, bytes), keeping object key order. With
    /// `bytesKey`, an object whose one member is that key holding base64 text is read as
    /// ``bytes(_:)``.
    init(json text: String, limits: ConversionLimits, bytesKey: String? = nil) throws(WebKitError) {
        guard text.utf8.count <= limits.maxBytes else {
            throw WebKitError(.conversion, "the value is larger than \(limits.maxBytes) bytes")
        }
        var parser = JSONParser(bytes: Array(text.utf8), limits: limits, bytesKey: bytesKey)
        self = try parser.parseDocument()
    }
}

/// A JSON parser over UTF-8 bytes with the bridge's limits.
private struct JSONParser {
    let bytes: [UInt8]
    let limits: ConversionLimits
    let bytesKey: String?
    var index = 0
    var nodes = 0

    init(bytes: [UInt8], limits: ConversionLimits, bytesKey: String?) {
        self.bytes = bytes
        self.limits = limits
        self.bytesKey = bytesKey
    }

    mutating func parseDocument() throws(WebKitError) -> ScriptValue {
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw error("trailing characters") }
        return value
    }

    /// The object, or the bytes it marks (see ``ScriptValue/init(json:limits:bytesKey:)``).
    private func revivingBytes(_ members: OrderedDictionary<String, ScriptValue>) -> ScriptValue {
        guard let bytesKey, members.count == 1, members.keys[0] == bytesKey, case .string(let text) = members.values[0],
            let data = Data(base64Encoded: text)
        else { return .object(members) }
        return .bytes(Array(data))
    }

    private func error(_ what: String) -> WebKitError {
        WebKitError(.conversion, "malformed JSON at offset \(index): \(what)")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func parseValue(depth: Int) throws(WebKitError) -> ScriptValue {
        guard depth <= limits.maxDepth else { throw WebKitError(.conversion, "the value is nested deeper than \(limits.maxDepth)") }
        nodes += 1
        guard nodes <= limits.maxNodes else { throw WebKitError(.conversion, "the value has more than \(limits.maxNodes) parts") }
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var members = OrderedDictionary<String, ScriptValue>()
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                let key = try parseString()
                skipWhitespace()
                try expect(":")
                members[key] = try parseValue(depth: depth + 1)
                skipWhitespace()
                if try consumeSeparator(closing: "}") { return revivingBytes(members) }
            }
        case UInt8(ascii: "["):
            index += 1
            var elements: [ScriptValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                elements.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                if try consumeSeparator(closing: "]") { return .array(elements) }
            }
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            return .number(try parseNumber())
        }
    }

    private mutating func expect(_ character: Unicode.Scalar) throws(WebKitError) {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { throw error("expected \(character)") }
        index += 1
    }

    /// Consumes `,` (returns false) or `closing` (returns true).
    private mutating func consumeSeparator(closing: Unicode.Scalar) throws(WebKitError) -> Bool {
        guard index < bytes.count else { throw error("unexpected end") }
        if bytes[index] == UInt8(ascii: ",") {
            index += 1
            return false
        }
        try expect(closing)
        return true
    }

    private mutating func literal(_ word: String) throws(WebKitError) {
        let utf8 = Array(word.utf8)
        guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else { throw error("bad literal") }
        index += utf8.count
    }

    private mutating func parseNumber() throws(WebKitError) -> Double {
        let start = index
        while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
        guard let number = Double(String(decoding: bytes[start..<index], as: UTF8.self)), number.isFinite else {
            throw error("bad number")
        }
        return number
    }

    private mutating func parseString() throws(WebKitError) -> String {
        try expect("\"")
        var scalars = String.UnicodeScalarView()
        var run = index
        func flush(_ end: Int) { scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars) }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                flush(index)
                index += 1
                return String(scalars)
            }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            flush(index)
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code), index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                {
                    index += 2
                    let low = try hex4()
                    if (0xDC00..<0xE000).contains(low) {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        scalars.append("\u{FFFD}")
                        code = low
                    }
                }
                scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
            default: scalars.append(Unicode.Scalar(escape))
            }
            run = index
        }
        throw error("unterminated string")
    }

    private mutating func hex4() throws(WebKitError) -> UInt32 {
        guard index + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
            throw error("bad \\u escape")
        }
        index += 4
        return code
    }
}
