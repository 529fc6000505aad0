/// The start tags of an HTML document and the raw text of the elements whose content is not
/// markup, found by the HTML standard's tokenizer rules (§13.2.5) for the parts a headless page
/// needs: markup declarations and comments, quoted and unquoted attribute values, script data
/// (with its escaped and double-escaped states), RCDATA (`title`, `textarea`), RAWTEXT
/// (`style`, `xmp`, `iframe`, `noembed`, `noframes`, and `noscript`, as scripting is on) and
/// PLAINTEXT, and `template` contents, which are inert.
///
/// Tree construction is not done: an element is a start tag, its content what the tokenizer
/// reads as its text.
struct HTMLTokenizer {
    /// A start tag.
    struct Element: Equatable {
        /// The tag name, lower-cased.
        var name: String
        /// The attributes, names lower-cased, values with their character references decoded
        /// (``HTMLCharacterReferences``); the first of a repeated name wins, as in HTML.
        var attributes: [String: String]
        /// Where the element's raw text lies, for elements whose content is text.
        var content: Range<Int>?
        /// Whether the element sits in a `template`'s contents (inert: never run or shown).
        var isInTemplate: Bool
    }

    private enum ContentModel {
        case scriptData, rcdata, rawtext, plaintext
    }

    private static let contentModels: [String: ContentModel] = [
        "script": .scriptData, "title": .rcdata, "textarea": .rcdata,
        "style": .rawtext, "xmp": .rawtext, "iframe": .rawtext, "noembed": .rawtext, "noframes": .rawtext,
        "noscript": .rawtext, "plaintext": .plaintext,
    ]

    /// Every start tag of `bytes` (UTF-8), in document order.
    static func elements(in bytes: [UInt8]) -> [Element] {
        var tokenizer = HTMLTokenizer(bytes: bytes)
        return tokenizer.run()
    }

    private let bytes: [UInt8]
    private var position = 0
    private var templateDepth = 0
    private var elements: [Element] = []

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: Data state

    private mutating func run() -> [Element] {
        while position < bytes.count {
            guard bytes[position] == UInt8(ascii: "<") else { position += 1; continue }
            let next = byte(at: position + 1)
            if next.map(Self.isAlpha) == true {
                position += 1
                startTag()
            } else if next == UInt8(ascii: "/") {
                position += 2
                if byte(at: position).map(Self.isAlpha) == true {
                    endTag()
                } else if byte(at: position) == UInt8(ascii: ">") {
                    position += 1
                } else {
                    bogusComment()
                }
            } else if next == UInt8(ascii: "!") {
                position += 2
                markupDeclaration()
            } else if next == UInt8(ascii: "?") {
                position += 1
                bogusComment()
            } else {
                position += 1
            }
        }
        return elements
    }

    // MARK: Comments

    private mutating func markupDeclaration() {
        if matches("--", at: position) {
            position += 2
            comment()
        } else {
            bogusComment()  // <!DOCTYPE …> and <![CDATA[ … ]]> (in HTML content) end at the next `>`
        }
    }

    /// A comment: it ends at `-->`, `--!>`, or at once with `<!-->` and `<!--->`.
    private mutating func comment() {
        if byte(at: position) == UInt8(ascii: ">") { position += 1; return }
        if matches("->", at: position) { position += 2; return }
        while position < bytes.count {
            if matches("-->", at: position) { position += 3; return }
            if matches("--!>", at: position) { position += 4; return }
            position += 1
        }
    }

    /// Everything up to the next `>`.
    private mutating func bogusComment() {
        while position < bytes.count, bytes[position] != UInt8(ascii: ">") { position += 1 }
        position += 1
    }

    // MARK: Tags

    private mutating func startTag() {
        let name = tagName()
        var attributes: [String: String] = [:]
        let selfClosing = attributeList(into: &attributes)
        guard position <= bytes.count else { return }  // end of file in a tag: no tag
        var element = Element(name: name, attributes: attributes, content: nil, isInTemplate: templateDepth > 0)
        if name == "template" && !selfClosing { templateDepth += 1 }
        if let model = Self.contentModels[name] {
            let start = position
            let end: Int
            switch model {
            case .scriptData: end = scriptData()
            case .rcdata, .rawtext: end = rawText(until: name)
            case .plaintext: end = bytes.count; position = bytes.count
            }
            element.content = start..<end
        }
        elements.append(element)
    }

    private mutating func endTag() {
        let name = tagName()
        var ignored: [String: String] = [:]
        _ = attributeList(into: &ignored)
        if name == "template", templateDepth > 0 { templateDepth -= 1 }
    }

    private mutating func tagName() -> String {
        let start = position
        while position < bytes.count, !Self.isSpace(bytes[position]), bytes[position] != UInt8(ascii: "/"),
            bytes[position] != UInt8(ascii: ">")
        {
            position += 1
        }
        return String(decoding: bytes[start..<position].map(Self.lower), as: UTF8.self)
    }

    /// Reads attributes up to and past the tag's `>`; returns whether the tag was self-closing.
    /// Leaves `position` past the end of input when the tag never ends.
    private mutating func attributeList(into attributes: inout [String: String]) -> Bool {
        var selfClosing = false
        while position < bytes.count {
            let current = bytes[position]
            if Self.isSpace(current) { position += 1; continue }
            if current == UInt8(ascii: ">") { position += 1; return selfClosing }
            if current == UInt8(ascii: "/") {
                position += 1
                selfClosing = byte(at: position) == UInt8(ascii: ">")
                continue
            }
            selfClosing = false
            // Attribute name: a leading `=` belongs to the name.
            let nameStart = position
            position += 1
            while position < bytes.count, !Self.isSpace(bytes[position]),
                ![UInt8(ascii: "/"), UInt8(ascii: ">"), UInt8(ascii: "=")].contains(bytes[position])
            {
                position += 1
            }
            let name = String(decoding: bytes[nameStart..<position].map(Self.lower), as: UTF8.self)
            var lookahead = position
            while lookahead < bytes.count, Self.isSpace(bytes[lookahead]) { lookahead += 1 }
            var value = ""
            if byte(at: lookahead) == UInt8(ascii: "=") {
                position = lookahead + 1
                while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
                if let quote = byte(at: position), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                    let valueStart = position + 1
                    position = valueStart
                    while position < bytes.count, bytes[position] != quote { position += 1 }
                    value = String(decoding: bytes[valueStart..<min(position, bytes.count)], as: UTF8.self)
                    position += 1
                } else {
                    let valueStart = position
                    while position < bytes.count, !Self.isSpace(bytes[position]), bytes[position] != UInt8(ascii: ">") {
                        position += 1
                    }
                    value = String(decoding: bytes[valueStart..<position], as: UTF8.self)
                }
            }
            if attributes[name] == nil { attributes[name] = HTMLCharacterReferences.decode(value, inAttribute: true) }
        }
        position = bytes.count + 1
        return selfClosing
    }

    // MARK: Text content

    /// RCDATA and RAWTEXT: the text up to the appropriate end tag; returns where it ends.
    private mutating func rawText(until name: String) -> Int {
        while position < bytes.count {
            // Only a `<` can start the end tag.
            guard bytes[position] == UInt8(ascii: "<") else { position += 1; continue }
            if let end = appropriateEndTag(name, at: position) {
                let contentEnd = position
                position = end
                endTagRest()
                return contentEnd
            }
            position += 1
        }
        return bytes.count
    }

    /// Script data with its escaped (`<!--`) and double-escaped (`<!-- <script>`) states: in
    /// the double-escaped state `</script>` does not end the script.
    private mutating func scriptData() -> Int {
        enum State { case data, escaped, doubleEscaped }
        var state = State.data
        while position < bytes.count {
            // Only a `<` (`<!--`, `<script`, `</script`) or a `-` (`-->`) changes the state or
            // ends the script: every other byte is skipped without a comparison of text.
            let current = bytes[position]
            guard current == UInt8(ascii: "<") || current == UInt8(ascii: "-") else { position += 1; continue }
            switch state {
            case .data:
                if matches("<!--", at: position) {
                    state = .escaped
                    position += 4
                    continue
                }
            case .escaped:
                if matches("-->", at: position) { state = .data; position += 3; continue }
                if isScriptTag(at: position, closing: false) { state = .doubleEscaped; position += 7; continue }
            case .doubleEscaped:
                if matches("-->", at: position) { state = .data; position += 3; continue }
                if isScriptTag(at: position, closing: true) { state = .escaped; position += 8; continue }
                position += 1
                continue
            }
            if let end = appropriateEndTag("script", at: position) {
                let contentEnd = position
                position = end
                endTagRest()
                return contentEnd
            }
            position += 1
        }
        return bytes.count
    }

    /// `<script` or `</script` followed by a space, `/` or `>`.
    private func isScriptTag(at index: Int, closing: Bool) -> Bool {
        let text = closing ? "</script" : "<script"
        guard matchesIgnoringCase(text, at: index), let after = byte(at: index + text.utf8.count) else { return false }
        return Self.isSpace(after) || after == UInt8(ascii: "/") || after == UInt8(ascii: ">")
    }

    /// The index just past `</name` when an appropriate end tag starts at `index`.
    private func appropriateEndTag(_ name: String, at index: Int) -> Int? {
        guard byte(at: index) == UInt8(ascii: "<"), byte(at: index + 1) == UInt8(ascii: "/"),
            matchesIgnoringCase(name, at: index + 2), let after = byte(at: index + 2 + name.utf8.count),
            Self.isSpace(after) || after == UInt8(ascii: "/") || after == UInt8(ascii: ">")
        else { return nil }
        return index + 2 + name.utf8.count
    }

    /// The attributes and `>` of an end tag whose name was read.
    private mutating func endTagRest() {
        var ignored: [String: String] = [:]
        _ = attributeList(into: &ignored)
    }

    // MARK: Bytes

    private func byte(at index: Int) -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private func matches(_ text: String, at index: Int) -> Bool {
        var offset = index
        for expected in text.utf8 {
            guard offset < bytes.count, bytes[offset] == expected else { return false }
            offset += 1
        }
        return true
    }

    private func matchesIgnoringCase(_ text: String, at index: Int) -> Bool {
        var offset = index
        for expected in text.utf8 {
            guard offset < bytes.count, Self.lower(bytes[offset]) == expected else { return false }
            offset += 1
        }
        return true
    }

    private static func isAlpha(_ byte: UInt8) -> Bool {
        (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte + 32 : byte
    }
}
