/// Reads a module's top-level import and export declarations from its tokens
/// (``ModuleLexer``), and the edits that turn its source into a function body
/// (``ModuleSource``).
struct DeclarationReader: ModuleTokenReading {
    typealias Request = ModuleSource.Request
    typealias SyntaxError = ModuleSource.SyntaxError

    let bytes: [UInt8]
    let tokens: [ModuleToken]
    var requests: [Request] = []
    var imports: [ModuleSource.Import] = []
    var localExports: [(name: String, local: String)] = []
    var indirectExports: [ModuleSource.IndirectExport] = []
    var starExports: [Request] = []
    /// Not overlapping; sorted by ``ModuleSource``.
    var edits: [ModuleSource.Edit] = []
    /// Where each `await` starts (bytes), but a `for await`'s.
    var awaits: [Int] = []
    /// How many `for await` loops there are.
    var forAwaits = 0

    init(bytes: [UInt8], tokens: [ModuleToken]) {
        self.bytes = bytes
        self.tokens = tokens
    }

    mutating func read() throws(SyntaxError) {
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            guard token.kind == .name else {
                index += 1
                continue
            }
            // Only `await`, `import` and `export` matter here.
            let first = bytes[token.range.lowerBound]
            guard first == UInt8(ascii: "a") || first == UInt8(ascii: "i") || first == UInt8(ascii: "e"), token.range.count <= 6 else {
                index += 1
                continue
            }
            let afterDot = isPunctuator(index - 1, ".") || isPunctuator(index - 1, "?.")
            switch text(index) {
            // `for await` is counted, not doubled: doubled, it would fail in an async function too.
            case "await" where !afterDot && !isPunctuator(index + 1, ":"):
                if isWord(index - 1, "for") {
                    forAwaits += 1
                } else {
                    awaits.append(token.range.lowerBound)
                }
            case "import" where !afterDot:
                if isPunctuator(index + 1, "(") {
                    // A method named `import` (`import(value) { … }`) is no call.
                    if let close = closing(of: index + 1), isPunctuator(close + 1, "{") { break }
                    edits.append(.init(range: token.range, text: "__sbModule.import"))
                } else if isPunctuator(index + 1, "."), isWord(index + 2, "meta") {
                    edits.append(.init(range: token.range.lowerBound..<tokens[index + 2].range.upperBound, text: "__sbModule.meta"))
                    index += 3
                    continue
                } else if token.depth == 0 && !isPunctuator(index + 1, ":") {
                    index = try readImport(at: index)
                    continue
                }
            case "export" where !afterDot && token.depth == 0:
                index = try readExport(at: index)
                continue
            default:
                break
            }
            index += 1
        }
    }

    // MARK: Imports

    /// `import "m"`, `import d from "m"`, `import * as ns from "m"`, `import { a, b as c } from "m"`,
    /// and their combinations, with import attributes.
    private mutating func readImport(at start: Int) throws(SyntaxError) -> Int {
        var index = start + 1
        var bindings: [(local: String, name: String)] = []
        let specifier: String
        if let literal = string(index) {
            specifier = literal
            index += 1
        } else {
            if kind(index) == .name && !isWord(index, "from") || kind(index) == .name && isWord(index + 1, "from") {
                bindings.append((text(index), "default"))
                index += 1
                if isPunctuator(index, ",") { index += 1 }
            }
            if isPunctuator(index, "*") {
                guard isWord(index + 1, "as"), kind(index + 2) == .name else {
                    throw SyntaxError(message: "expected 'as' after 'import *'")
                }
                bindings.append((text(index + 2), "*"))
                index += 3
            } else if isPunctuator(index, "{") {
                index = try readSpecifiers(at: index) { imported, _, local, localIsString throws(SyntaxError) in
                    guard !localIsString else { throw SyntaxError(message: "an imported binding needs a name") }
                    bindings.append((local, imported))
                }
            }
            guard isWord(index, "from"), let literal = string(index + 1) else {
                throw SyntaxError(message: "expected 'from' and a module specifier")
            }
            specifier = literal
            index += 2
        }
        let (type, end) = try readAttributes(at: index)
        let request = add(Request(specifier: specifier, type: type))
        imports += bindings.map { ModuleSource.Import(local: $0.local, request: request, name: $0.name) }
        remove(from: start, to: end)
        return end
    }

    // MARK: Exports

    private mutating func readExport(at start: Int) throws(SyntaxError) -> Int {
        let index = start + 1
        guard tokens.indices.contains(index) else { throw SyntaxError(message: "unexpected end after 'export'") }
        if isPunctuator(index, "*") {
            var next = index + 1
            var alias: String?
            if isWord(next, "as") {
                alias = name(orString: next + 1)
                guard alias != nil else { throw SyntaxError(message: "expected a name after 'export * as'") }
                next += 2
            }
            guard isWord(next, "from"), let specifier = string(next + 1) else {
                throw SyntaxError(message: "expected 'from' and a module specifier")
            }
            let (type, end) = try readAttributes(at: next + 2)
            let request = add(Request(specifier: specifier, type: type))
            if let alias {
                indirectExports.append(.init(name: alias, request: request, importName: "*"))
            } else if !starExports.contains(request) {
                starExports.append(request)
            }
            remove(from: start, to: end)
            return end
        }
        if isPunctuator(index, "{") {
            var pairs: [(first: String, second: String, firstIsString: Bool)] = []
            var next = try readSpecifiers(at: index) { first, firstIsString, second, _ in pairs.append((first, second, firstIsString)) }
            if isWord(next, "from"), let specifier = string(next + 1) {
                let (type, end) = try readAttributes(at: next + 2)
                let request = add(Request(specifier: specifier, type: type))
                indirectExports += pairs.map { .init(name: $0.second, request: request, importName: $0.first) }
                next = end
            } else {
                // Without `from`, each exports a local binding, which has a name.
                guard pairs.allSatisfy({ !$0.firstIsString }) else { throw SyntaxError(message: "a local export needs a name") }
                if isPunctuator(next, ";") { next += 1 }
                localExports += pairs.map { (name: $0.second, local: $0.first) }
            }
            remove(from: start, to: next)
            return next
        }
        switch text(index) {
        case "default":
            let head = index + 1
            guard tokens.indices.contains(head) else { throw SyntaxError(message: "unexpected end after 'export default'") }
            var keyword = head
            if isWord(head, "async"), isWord(head + 1, "function"), !tokens[head + 1].newlineBefore { keyword = head + 1 }
            if isWord(keyword, "function") || isWord(keyword, "class") {
                var nameIndex = keyword + 1
                if isWord(keyword, "function") && isPunctuator(nameIndex, "*") { nameIndex += 1 }
                if kind(nameIndex) == .name && !(isWord(keyword, "class") && text(nameIndex) == "extends") {
                    edits.append(.init(range: tokens[start].range.lowerBound..<tokens[head].range.lowerBound, text: ""))
                    localExports.append(("default", text(nameIndex)))
                    return head
                }
                // An anonymous function or class: made as a member named `default` (its `name`,
                // as the declaration's is), its source text its own.
                var open = nameIndex
                if isWord(keyword, "function") {
                    guard isPunctuator(open, "("), let parameters = closing(of: open) else {
                        throw SyntaxError(message: "expected a function's parameters")
                    }
                    open = parameters + 1
                } else {
                    while open < tokens.count, !(tokens[open].depth == tokens[keyword].depth && isPunctuator(open, "{")) { open += 1 }
                }
                guard isPunctuator(open, "{"), let close = closing(of: open) else { throw SyntaxError(message: "expected a body") }
                localExports.append(("default", ModuleSource.defaultBinding))
                edits.append(
                    .init(
                        range: tokens[start].range.lowerBound..<tokens[head].range.lowerBound,
                        text: "const \(ModuleSource.defaultBinding) = ({ default: "))
                let end = tokens[close].range.upperBound
                edits.append(.init(range: end..<end, text: " }).default;"))
                return head
            }
            localExports.append(("default", ModuleSource.defaultBinding))
            edits.append(
                .init(
                    range: tokens[start].range.lowerBound..<tokens[head].range.lowerBound, text: "const \(ModuleSource.defaultBinding) = "))
            return head
        case "var", "let", "const":
            edits.append(.init(range: tokens[start].range, text: ""))
            for name in try declaredNames(from: index + 1) { localExports.append((name, name)) }
            return index + 1
        case "function", "class", "async":
            var keyword = index
            if isWord(index, "async") {
                guard isWord(index + 1, "function") else { throw SyntaxError(message: "expected 'function' after 'export async'") }
                keyword += 1
            }
            var nameIndex = keyword + 1
            if isWord(keyword, "function") && isPunctuator(nameIndex, "*") { nameIndex += 1 }
            guard kind(nameIndex) == .name else { throw SyntaxError(message: "an exported declaration needs a name") }
            localExports.append((text(nameIndex), text(nameIndex)))
            edits.append(.init(range: tokens[start].range, text: ""))
            return index
        default:
            throw SyntaxError(message: "unexpected token after 'export'")
        }
    }

    /// The names a `var`, `let` or `const` declaration binds, its destructuring patterns
    /// included; `start` is its first declarator's first token.
    private func declaredNames(from start: Int) throws(SyntaxError) -> [String] {
        var names: [String] = []
        var index = start
        let depth = tokens.indices.contains(start) ? tokens[start].depth : 0

        while true {
            index = try walkBinding(
                at: index, name: { (name: Int) throws(SyntaxError) in names.append(text(name)) },
                expression: { (_: Range<Int>) throws(SyntaxError) in }, malformed: { SyntaxError(message: "expected a binding") })
            // The initializer, to the next declarator or the declaration's end.
            while index < tokens.count {
                let token = tokens[index]
                if token.depth == depth && isPunctuator(index, ",") {
                    index += 1
                    break
                }
                if token.depth < depth || token.depth == depth && isPunctuator(index, ";") { return names }
                if token.depth == depth && token.newlineBefore && endsValue(index - 1) && startsStatement(index) { return names }
                index += 1
            }
            if index >= tokens.count { return names }
        }
    }

    // MARK: Shared parts

    /// `{ a, b as c, "d" as e }`: calls `each(first, firstIsString, second, secondIsString)`
    /// per element; returns the index after `}`.
    private func readSpecifiers(
        at open: Int, _ each: (String, Bool, String, Bool) throws(SyntaxError) -> Void
    ) throws(SyntaxError) -> Int {
        var index = open + 1
        while !isPunctuator(index, "}") {
            guard let first = name(orString: index) else { throw SyntaxError(message: "expected a name in braces") }
            let firstIsString = kind(index) == .string
            var second = first
            var secondIsString = firstIsString
            index += 1
            if isWord(index, "as") {
                guard let alias = name(orString: index + 1) else { throw SyntaxError(message: "expected a name after 'as'") }
                second = alias
                secondIsString = kind(index + 1) == .string
                index += 2
            }
            try each(first, firstIsString, second, secondIsString)
            if isPunctuator(index, ",") {
                index += 1
            } else if !isPunctuator(index, "}") {
                throw SyntaxError(message: "expected ',' or '}'")
            }
        }
        return index + 1
    }

    /// Import attributes (`with { type: "json" }`) at `index`, and a `;`: the `type` given, and
    /// the index after them.
    private func readAttributes(at index: Int) throws(SyntaxError) -> (type: String?, end: Int) {
        var index = index
        var type: String?
        if isWord(index, "with") || isWord(index, "assert") && !tokens[index].newlineBefore, isPunctuator(index + 1, "{") {
            index += 2
            while !isPunctuator(index, "}") {
                guard let key = name(orString: index), isPunctuator(index + 1, ":"), let value = string(index + 2) else {
                    throw SyntaxError(message: "malformed import attributes")
                }
                if key == "type" { type = value }
                index += 3
                if isPunctuator(index, ",") { index += 1 }
            }
            index += 1
        }
        if isPunctuator(index, ";") { index += 1 }
        return (type, index)
    }

    private mutating func add(_ request: Request) -> Request {
        if !requests.contains(request) { requests.append(request) }
        return request
    }

    /// Blanks tokens `start..<end` (their line breaks are kept).
    private mutating func remove(from start: Int, to end: Int) {
        edits.append(.init(range: tokens[start].range.lowerBound..<tokens[end - 1].range.upperBound, text: ""))
    }

    private func name(orString index: Int) -> String? {
        kind(index) == .name ? text(index) : string(index)
    }

    /// The value of the string literal at `index` (its escapes read), `nil` when it is none.
    private func string(_ index: Int) -> String? {
        guard kind(index) == .string else { return nil }
        let range = tokens[index].range
        let inner = bytes[(range.lowerBound + 1)..<(range.upperBound - 1)]
        guard inner.contains(UInt8(ascii: "\\")) else { return String(decoding: inner, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var iterator = String(decoding: inner, as: UTF8.self).unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            guard scalar == "\\", let escaped = iterator.next() else {
                scalars.append(scalar)
                continue
            }
            switch escaped {
            case "n": scalars.append("\n")
            case "t": scalars.append("\t")
            case "r": scalars.append("\r")
            case "b": scalars.append("\u{8}")
            case "f": scalars.append("\u{C}")
            case "v": scalars.append("\u{B}")
            case "0": scalars.append("\0")
            case "\n", "\r": break
            case "x", "u":
                var digits = ""
                if escaped == "u", let first = iterator.next() {
                    if first == "{" {
                        while let next = iterator.next(), next != "}" { digits.unicodeScalars.append(next) }
                    } else {
                        digits.unicodeScalars.append(first)
                        for _ in 0..<3 { if let next = iterator.next() { digits.unicodeScalars.append(next) } }
                    }
                } else {
                    for _ in 0..<2 { if let next = iterator.next() { digits.unicodeScalars.append(next) } }
                }
                if let value = UInt32(digits, radix: 16), let decoded = Unicode.Scalar(value) { scalars.append(decoded) }
            default: scalars.append(escaped)
            }
        }
        return String(scalars)
    }
}
