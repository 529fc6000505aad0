/// HTML's character references (`&amp;`, `&#38;`, `&#x26;`) in attribute values and a title's
/// text, as the tokenizer decodes them: numeric ones in full, and the named ones pages write in
/// URLs and titles. A name the table does not hold stays as it was written.
package enum HTMLCharacterReferences {
    /// `text` with its character references decoded. In an attribute, a name without its `;`
    /// that is followed by `=` or a letter or digit stays as written (`?a=1&copy=2`), as in HTML.
    package static func decode(_ text: String, inAttribute: Bool) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "&", let (decoded, length) = reference(in: scalars, at: index, inAttribute: inAttribute) else {
                out.append(scalars[index])
                index += 1
                continue
            }
            out.append(contentsOf: decoded)
            index += length
        }
        return String(out)
    }

    /// The reference at `start` (its `&`): what it stands for and how many scalars it takes.
    private static func reference(
        in scalars: [Unicode.Scalar], at start: Int, inAttribute: Bool
    ) -> ([Unicode.Scalar], Int)? {
        var index = start + 1
        if index < scalars.count, scalars[index] == "#" {
            index += 1
            let hex = index < scalars.count && (scalars[index] == "x" || scalars[index] == "X")
            if hex { index += 1 }
            let digitsStart = index
            var value: UInt32 = 0
            while index < scalars.count, let digit = hex ? hexValue(scalars[index]) : decimalValue(scalars[index]) {
                value = min(value &* (hex ? 16 : 10) &+ digit, 0x11_0000)
                index += 1
            }
            guard index > digitsStart else { return nil }
            if index < scalars.count, scalars[index] == ";" { index += 1 }
            return ([numeric(value)], index - start)
        }
        let nameStart = index
        while index < scalars.count, index - nameStart < 32, isASCIILetter(scalars[index]) || decimalValue(scalars[index]) != nil {
            index += 1
        }
        let name = String(String.UnicodeScalarView(scalars[nameStart..<index]))
        if let decoded = named[name], index < scalars.count, scalars[index] == ";" { return ([decoded], index + 1 - start) }
        // Without its `;`: the longest legacy name the run starts with (`&ampx` is `&x`), and in
        // an attribute not before `=` or a letter or digit.
        guard let prefix = legacy.filter({ name.hasPrefix($0) }).max(by: { $0.count < $1.count }), let decoded = named[prefix] else {
            return nil
        }
        index = nameStart + prefix.unicodeScalars.count
        if inAttribute, index < scalars.count, scalars[index] == "=" || isASCIILetter(scalars[index]) || decimalValue(scalars[index]) != nil
        {
            return nil
        }
        return ([decoded], index - start)
    }

    private static func decimalValue(_ scalar: Unicode.Scalar) -> UInt32? {
        scalar.value >= 0x30 && scalar.value <= 0x39 ? scalar.value - 0x30 : nil
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: scalar.value - 0x30
        case 0x41...0x46: scalar.value - 0x37
        case 0x61...0x66: scalar.value - 0x57
        default: nil
        }
    }

    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        (0x41...0x5A).contains(scalar.value) || (0x61...0x7A).contains(scalar.value)
    }

    /// A numeric reference's character: U+FFFD for none, a surrogate or NUL; the windows-1252
    /// character for 0x80–0x9F, as HTML has it.
    private static func numeric(_ value: UInt32) -> Unicode.Scalar {
        if let mapped = DocumentEncoding.windows1252High[value] { return mapped }
        guard value != 0, let scalar = Unicode.Scalar(value) else { return "\u{FFFD}" }
        return scalar
    }

    /// The named references pages write in URLs and titles.
    private static let named: [String: Unicode.Scalar] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "copy": "\u{A9}", "reg": "\u{AE}",
        "trade": "\u{2122}", "hellip": "\u{2026}", "mdash": "\u{2014}", "ndash": "\u{2013}", "laquo": "\u{AB}", "raquo": "\u{BB}",
        "middot": "\u{B7}", "bull": "\u{2022}", "times": "\u{D7}", "euro": "\u{20AC}", "lsquo": "\u{2018}", "rsquo": "\u{2019}",
        "ldquo": "\u{201C}", "rdquo": "\u{201D}", "shy": "\u{AD}", "deg": "\u{B0}",
    ]

    /// Names HTML decodes without their `;` too.
    private static let legacy: Set<String> = [
        "amp", "lt", "gt", "quot", "nbsp", "copy", "reg", "laquo", "raquo", "middot", "times", "shy", "deg",
    ]
}
