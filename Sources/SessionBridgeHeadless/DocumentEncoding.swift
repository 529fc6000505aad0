import Foundation

/// The encoding a document's bytes are read in, as WebKit chooses it: a byte order mark, else
/// its `Content-Type`'s `charset`, else a `<meta charset>` (or `http-equiv="Content-Type"`) in
/// its first 1,024 bytes or in its head after them, else windows-1252, WebKit's default (its settings' `default-charset`,
/// `iso-8859-1`): a UTF-8 page that declares nothing reads `cafÃ©` there, and here too. The
/// Encoding Standard's labels for UTF-8, windows-1252
/// (which `iso-8859-1`, `latin1` and `us-ascii` name) and UTF-16 are read; any other is read
/// as UTF-8.
enum DocumentEncoding: String, Sendable {
    case utf8 = "UTF-8"
    case windows1252 = "windows-1252"
    case utf16LE = "UTF-16LE"
    case utf16BE = "UTF-16BE"

    /// The encoding an Encoding Standard label names, when it is one read here.
    init?(label: String) {
        let label = label.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        switch label {
        case "utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8": self = .utf8
        case "ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100", "iso8859-1",
            "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252", "x-cp1252":
            self = .windows1252
        case "utf-16", "utf-16le", "csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff": self = .utf16LE
        case "utf-16be", "unicodefffe": self = .utf16BE
        default: return nil
        }
    }

    /// The encoding of a document whose bytes are `body`, served with `contentType`.
    static func of(_ body: [UInt8], contentType: String?) -> DocumentEncoding {
        if let declared = declared(body, contentType: contentType) { return declared }
        // A `<meta>` in the first 1,024 bytes, or after them while the head goes on: WebKit's
        // scan reads on until an element that cannot be in a head.
        if let named = metaEncoding(in: HTMLTokenizer.elements(in: Array(body.prefix(1024))), headOnly: false) { return named }
        if body.count > 1024, let named = metaEncoding(in: HTMLTokenizer.elements(in: Array(body.prefix(65_536))), headOnly: true) {
            return named
        }
        return .windows1252
    }

    /// The elements a document's head may hold, before which a late `<meta>` is still read.
    static let headElements: Set<String> = ["html", "head", "meta", "title", "link", "style", "script", "base", "noscript", "template"]

    /// What the first `<meta charset>` (or `http-equiv="Content-Type"`) of `elements` names; with
    /// `headOnly`, none after the first element a head cannot hold.
    private static func metaEncoding(in elements: [HTMLTokenizer.Element], headOnly: Bool) -> DocumentEncoding? {
        for element in elements {
            if headOnly, !headElements.contains(element.name) { return nil }
            guard element.name == "meta" else { continue }
            let label =
                element.attributes["charset"]
                ?? (element.attributes["http-equiv"]?.lowercased() == "content-type"
                    ? element.attributes["content"].flatMap(charset(in:)) : nil)
            guard let label else { continue }
            // An encoding not read here (`shift_jis`) is read as UTF-8, the nearest for text of
            // today; a `<meta>` naming UTF-16 too, the bytes it was found in being ASCII.
            guard let encoding = DocumentEncoding(label: label) else { return .utf8 }
            return encoding == .utf16LE || encoding == .utf16BE ? .utf8 : encoding
        }
        return nil
    }

    /// The encoding of a classic script: its byte order mark, its `charset`, or its
    /// document's encoding.
    static func ofScript(_ body: [UInt8], contentType: String?, document: DocumentEncoding) -> DocumentEncoding {
        declared(body, contentType: contentType) ?? document
    }

    /// What a byte order mark or a `charset` says.
    private static func declared(_ body: [UInt8], contentType: String?) -> DocumentEncoding? {
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { return .utf8 }
        if body.starts(with: [0xFF, 0xFE]) { return .utf16LE }
        if body.starts(with: [0xFE, 0xFF]) { return .utf16BE }
        return contentType.flatMap(charset(in:)).flatMap(DocumentEncoding.init(label:))
    }

    /// `bytes` as text in this encoding: a byte order mark dropped, each malformed sequence a
    /// U+FFFD.
    func decode(_ bytes: [UInt8]) -> String {
        switch self {
        case .utf8:
            return String(decoding: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...], as: UTF8.self)
        case .windows1252:
            var scalars = String.UnicodeScalarView()
            scalars.reserveCapacity(bytes.count)
            for byte in bytes {
                scalars.append(Self.windows1252High[UInt32(byte)] ?? Unicode.Scalar(byte))
            }
            return String(scalars)
        case .utf16LE, .utf16BE:
            var units: [UInt16] = []
            units.reserveCapacity(bytes.count / 2)
            var index = 0
            while index + 1 < bytes.count {
                let (first, second) = (UInt16(bytes[index]), UInt16(bytes[index + 1]))
                units.append(self == .utf16LE ? first | second << 8 : first << 8 | second)
                index += 2
            }
            if units.first == 0xFEFF { units.removeFirst() }
            return String(decoding: units, as: UTF16.self) + (bytes.count % 2 == 1 ? "\u{FFFD}" : "")
        }
    }

    /// A `Content-Type`'s `charset` parameter, unquoted.
    static func charset(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
            return pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["\"", "'"])
        }
        return nil
    }

    /// windows-1252's characters for the bytes 0x80–0x9F that are not their own code points.
    static let windows1252High: [UInt32: Unicode.Scalar] = [
        0x80: "\u{20AC}", 0x82: "\u{201A}", 0x83: "\u{0192}", 0x84: "\u{201E}", 0x85: "\u{2026}", 0x86: "\u{2020}",
        0x87: "\u{2021}", 0x88: "\u{02C6}", 0x89: "\u{2030}", 0x8A: "\u{0160}", 0x8B: "\u{2039}", 0x8C: "\u{0152}",
        0x8E: "\u{017D}", 0x91: "\u{2018}", 0x92: "\u{2019}", 0x93: "\u{201C}", 0x94: "\u{201D}", 0x95: "\u{2022}",
        0x96: "\u{2013}", 0x97: "\u{2014}", 0x98: "\u{02DC}", 0x99: "\u{2122}", 0x9A: "\u{0161}", 0x9B: "\u{203A}",
        0x9C: "\u{0153}", 0x9E: "\u{017E}", 0x9F: "\u{0178}",
    ]
}
