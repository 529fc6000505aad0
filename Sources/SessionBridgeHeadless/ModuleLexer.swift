/// A token of JavaScript, as far as ``ModuleSource`` reads it.
struct ModuleToken {
    enum Kind: Equatable {
        /// An identifier or keyword (also a `#private` name, with its `#`).
        case name
        case string
        case number
        /// A whole template literal, or the part of one up to a substitution (`${`).
        case template
        case regex
        /// One punctuator character, or `=>`, `...` or `?.`.
        case punctuator
    }

    var kind: Kind
    var range: Range<Int>
    /// Whether a line break comes before it (automatic semicolon insertion).
    var newlineBefore: Bool
    /// How many brackets (`(`, `[`, `{`, and template substitutions) are open before it.
    var depth: Int
}

/// JavaScript's lexical grammar, as far as finding a module's declarations needs it.
enum ModuleLexer {
    /// Keywords after which a `/` starts a regular expression.
    private static let regexAfter: Set<String> = [
        "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "yield",
        "await", "extends",
    ]
    /// Keywords whose parenthesized part is followed by a statement (a `/` after its `)` starts a
    /// regular expression).
    private static let statementHeads: Set<String> = ["if", "while", "for", "with"]

    private enum Bracket {
        case paren(beforeStatement: Bool)
        case square
        case brace
        case substitution
    }

    static func tokens(of bytes: [UInt8]) throws(ModuleSource.SyntaxError) -> [ModuleToken] {
        var tokens: [ModuleToken] = []
        tokens.reserveCapacity(bytes.count / 4)
        var stack: [Bracket] = []
        var position = 0
        var newline = false
        var lastParenWasStatementHead = false
        func text(_ token: ModuleToken) -> String { String(decoding: bytes[token.range], as: UTF8.self) }
        func add(_ kind: ModuleToken.Kind, _ start: Int, _ end: Int) {
            tokens.append(ModuleToken(kind: kind, range: start..<end, newlineBefore: newline, depth: stack.count))
            newline = false
        }
        /// Whether a `/` here starts a regular expression, by the token before it.
        func slashStartsRegex() -> Bool {
            guard let last = tokens.last else { return true }
            switch last.kind {
            case .number, .string, .regex: return false
            case .template: return bytes[last.range.upperBound - 1] != UInt8(ascii: "`")
            case .name:
                if tokens.count >= 2, tokens[tokens.count - 2].kind == .punctuator,
                    bytes[tokens[tokens.count - 2].range.lowerBound] == UInt8(ascii: ".")
                {
                    return false
                }
                return regexAfter.contains(text(last))
            case .punctuator:
                let byte = bytes[last.range.lowerBound]
                if last.range.count == 1 && (byte == UInt8(ascii: ")") || byte == UInt8(ascii: "]")) {
                    return byte == UInt8(ascii: ")") && lastParenWasStatementHead
                }
                return true
            }
        }
        /// Scans a template literal's characters from `position` (after a backtick or a
        /// substitution's `}`) to its end or next substitution.
        func scanTemplate(from start: Int) throws(ModuleSource.SyntaxError) {
            var index = position
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\\") {
                    index += 2
                } else if byte == UInt8(ascii: "`") {
                    position = index + 1
                    add(.template, start, position)
                    return
                } else if byte == UInt8(ascii: "$"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "{") {
                    position = index + 2
                    add(.template, start, position)
                    stack.append(.substitution)
                    return
                } else {
                    index += 1
                }
            }
            throw ModuleSource.SyntaxError(message: "unterminated template literal")
        }

        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                newline = true
                position += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"), 0x0B, 0x0C:
                position += 1
            case UInt8(ascii: "/") where position + 1 < bytes.count && bytes[position + 1] == UInt8(ascii: "/"):
                while position < bytes.count, bytes[position] != UInt8(ascii: "\n"), bytes[position] != UInt8(ascii: "\r") { position += 1 }
            case UInt8(ascii: "/") where position + 1 < bytes.count && bytes[position + 1] == UInt8(ascii: "*"):
                var index = position + 2
                while index + 1 < bytes.count, !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) {
                    if bytes[index] == UInt8(ascii: "\n") { newline = true }
                    index += 1
                }
                guard index + 1 < bytes.count else { throw ModuleSource.SyntaxError(message: "unterminated comment") }
                position = index + 2
            case UInt8(ascii: "/") where slashStartsRegex():
                let start = position
                var index = position + 1
                var inClass = false
                while true {
                    guard index < bytes.count, bytes[index] != UInt8(ascii: "\n") else {
                        throw ModuleSource.SyntaxError(message: "unterminated regular expression")
                    }
                    let c = bytes[index]
                    if c == UInt8(ascii: "\\") {
                        index += 2
                        continue
                    }
                    if c == UInt8(ascii: "[") { inClass = true }
                    if c == UInt8(ascii: "]") { inClass = false }
                    index += 1
                    if c == UInt8(ascii: "/") && !inClass { break }
                }
                while index < bytes.count, isNamePart(bytes[index]) { index += 1 }
                position = index
                add(.regex, start, position)
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let start = position
                var index = position + 1
                while index < bytes.count, bytes[index] != byte {
                    if bytes[index] == UInt8(ascii: "\\") {
                        // An escape, a line continuation (`\` and a line break, CRLF included) among them.
                        index += 1
                        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\r"), bytes[index + 1] == UInt8(ascii: "\n") {
                            index += 1
                        }
                    } else if bytes[index] == UInt8(ascii: "\n") || bytes[index] == UInt8(ascii: "\r") {
                        throw ModuleSource.SyntaxError(message: "unterminated string")
                    }
                    index += 1
                }
                guard index < bytes.count else { throw ModuleSource.SyntaxError(message: "unterminated string") }
                position = index + 1
                add(.string, start, position)
            case UInt8(ascii: "`"):
                let start = position
                position += 1
                try scanTemplate(from: start)
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = position
                while position < bytes.count, isNamePart(bytes[position]) || bytes[position] == UInt8(ascii: ".") { position += 1 }
                add(.number, start, position)
            case UInt8(ascii: ".")
            where position + 1 < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position + 1]):
                let start = position
                position += 1
                while position < bytes.count, isNamePart(bytes[position]) { position += 1 }
                add(.number, start, position)
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"):
                if byte == UInt8(ascii: "(") {
                    let head = tokens.last.map { $0.kind == .name && statementHeads.contains(text($0)) } ?? false
                    add(.punctuator, position, position + 1)
                    stack.append(.paren(beforeStatement: head))
                } else {
                    add(.punctuator, position, position + 1)
                    stack.append(byte == UInt8(ascii: "[") ? .square : .brace)
                }
                position += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                guard let open = stack.popLast() else {
                    throw ModuleSource.SyntaxError(message: "unbalanced '\(Character(UnicodeScalar(byte)))'")
                }
                if case .substitution = open {
                    guard byte == UInt8(ascii: "}") else { throw ModuleSource.SyntaxError(message: "unbalanced template substitution") }
                    let start = position
                    position += 1
                    try scanTemplate(from: start)
                    continue
                }
                switch (open, byte) {
                case (.paren(let head), UInt8(ascii: ")")): lastParenWasStatementHead = head
                case (.square, UInt8(ascii: "]")), (.brace, UInt8(ascii: "}")): break
                default: throw ModuleSource.SyntaxError(message: "unbalanced '\(Character(UnicodeScalar(byte)))'")
                }
                // The closing bracket counts at its opening's depth.
                add(.punctuator, position, position + 1)
                position += 1
            case UInt8(ascii: "="), UInt8(ascii: "?"):
                let next = position + 1 < bytes.count ? bytes[position + 1] : 0
                if byte == UInt8(ascii: "=") && next == UInt8(ascii: ">") {
                    add(.punctuator, position, position + 2)
                    position += 2
                } else if byte == UInt8(ascii: "?") && next == UInt8(ascii: ".")
                    && !(position + 2 < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position + 2]))
                {
                    add(.punctuator, position, position + 2)
                    position += 2
                } else {
                    add(.punctuator, position, position + 1)
                    position += 1
                }
            case UInt8(ascii: "."):
                let length = bytes[position...].starts(with: [UInt8(ascii: "."), UInt8(ascii: "."), UInt8(ascii: ".")]) ? 3 : 1
                add(.punctuator, position, position + length)
                position += length
            case UInt8(ascii: "#"):
                // A private name: one name with its `#` (it is never a binding's reference).
                let start = position
                position += 1
                while position < bytes.count, isNamePart(bytes[position]) { position += 1 }
                add(.name, start, position)
            default:
                if isNamePart(byte) || byte == UInt8(ascii: "\\") {
                    let start = position
                    while position < bytes.count, isNamePart(bytes[position]) || bytes[position] == UInt8(ascii: "\\") {
                        position += 1
                    }
                    // Line and paragraph separators (U+2028, U+2029) end a name and break a line.
                    add(.name, start, position)
                } else {
                    add(.punctuator, position, position + 1)
                    position += 1
                }
            }
        }
        guard stack.isEmpty else { throw ModuleSource.SyntaxError(message: "unbalanced brackets") }
        return tokens
    }

    static func isNamePart(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "$"), 0x80...0xFF:
            true
        default: false
        }
    }
}
