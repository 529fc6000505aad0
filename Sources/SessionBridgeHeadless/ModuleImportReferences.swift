/// The references a module's code makes to its imported bindings, found by a scope analysis of
/// its tokens (``ModuleLexer``), so that each can read its binding from the module's import scope
/// (`(0, __sbImports.name)`, live) while every other name resolves statically, as in the module
/// it was.
///
/// A name is a reference to an import unless a scope around it declares it: function
/// parameters (patterns and defaults included), `var` (in its function), `let`, `const`,
/// `class` and function declarations (in their block), a function or class expression's own
/// name, arrow parameters (over a block or expression body), `catch` bindings, `for` heads.
/// Property names, object keys, labels and method names are no references; a shorthand
/// property becomes `name: (0, __sbImports.name)`.
///
/// Where the analysis cannot be sure (a direct `eval`, a construct it does not read), it gives
/// up, and the module runs with its imports in a `with` scope instead: correct, but every name
/// its code reads from the global object is then looked up dynamically (up to 30 times slower
/// in a loop of global calls). A rewrite that does not parse is met the same way, at compile.
struct ImportReferences: ModuleTokenReading {
    struct Unsure: Error {}

    private struct Scope {
        var parent: Int
        var isFunction: Bool
        /// The imported names it declares, by their ids: bits of `mask` below 64, `more` above.
        var mask: UInt64 = 0
        var more: Set<Int> = []

        func declares(_ id: Int) -> Bool {
            id < 64 ? mask & (1 << UInt64(id)) != 0 : more.contains(id)
        }

        mutating func declare(_ id: Int) {
            if id < 64 { mask |= 1 << UInt64(id) } else { more.insert(id) }
        }
    }

    let bytes: [UInt8]
    let tokens: [ModuleToken]
    private let names: Set<String>
    private let skipped: [Bool]
    /// A keyword the analysis reads or an imported name (`id` its index among the names, else -1).
    private struct Word {
        var bytes: [UInt8]
        var word: String
        var id: Int
    }

    /// The words, by their first byte: a name is matched against them without its text made.
    private let words: [[Word]]
    private var scopes: [Scope] = [Scope(parent: -1, isFunction: true)]
    private var scopeOf: [Int]
    private var candidates: [Int] = []

    /// Keywords a `(` follows without making a method (`if (…) {`).
    private static let statementKeywords: Set<String> = [
        "if", "for", "while", "switch", "catch", "with", "do", "return", "typeof", "void", "delete", "await", "yield", "new",
        "in", "of", "instanceof", "else", "case", "throw", "super", "import",
    ]
    /// The other keywords the analysis reads.
    private static let readKeywords: Set<String> = ["var", "let", "const", "function", "class", "get", "set", "async", "eval"]
    /// Keywords after which a `function` or `class` is an expression.
    private static let expressionKeywords: Set<String> = [
        "return", "typeof", "void", "await", "yield", "new", "in", "of", "instanceof", "delete", "case", "throw", "extends",
    ]

    /// The edits that make each reference to one of `names` read the import scope; `removed`
    /// are the byte ranges of the declarations the module's body no longer has.
    /// - Throws: ``Unsure`` when the analysis cannot be sure of every reference.
    static func edits(
        bytes: [UInt8], tokens: [ModuleToken], names: Set<String>, removed: [Range<Int>]
    ) throws(Unsure) -> [ModuleSource.Edit] {
        var skipped = [Bool](repeating: false, count: tokens.count)
        var cut = removed.sorted { $0.lowerBound < $1.lowerBound }.makeIterator()
        var current = cut.next()
        for (index, token) in tokens.enumerated() {
            while let range = current, range.upperBound <= token.range.lowerBound { current = cut.next() }
            if let range = current, range.contains(token.range.lowerBound) { skipped[index] = true }
        }
        var analysis = ImportReferences(bytes: bytes, tokens: tokens, names: names, skipped: skipped)
        try analysis.scan(0, tokens.count, in: 0)
        return analysis.references()
    }

    private init(bytes: [UInt8], tokens: [ModuleToken], names: Set<String>, skipped: [Bool]) {
        self.bytes = bytes
        self.tokens = tokens
        self.names = names
        self.skipped = skipped
        var words = [[Word]](repeating: [], count: 256)
        let ids = Dictionary(uniqueKeysWithValues: names.sorted().enumerated().map { ($0.element, $0.offset) })
        for word in names.union(Self.statementKeywords).union(Self.readKeywords) {
            let utf8 = Array(word.utf8)
            guard let first = utf8.first else { continue }
            words[Int(first)].append(Word(bytes: utf8, word: word, id: ids[word] ?? -1))
        }
        self.words = words
        self.scopeOf = [Int](repeating: 0, count: tokens.count)
    }

    // MARK: Resolving

    private func references() -> [ModuleSource.Edit] {
        var edits: [ModuleSource.Edit] = []
        for index in candidates {
            guard let word = known(index), word.id >= 0 else { continue }
            let name = word.word
            var scope = scopeOf[index]
            var isLocal = false
            while scope >= 0 {
                if scopes[scope].declares(word.id) {
                    isLocal = true
                    break
                }
                scope = scopes[scope].parent
            }
            if isLocal { continue }
            let before = previous(index)
            // A key or a label (`name:` after `{`, `,`, `;`, `}`), or a label `break` names.
            if isPunctuator(index + 1, ":"),
                before.map({ isPunctuator($0, "{") || isPunctuator($0, ",") || isPunctuator($0, ";") || isPunctuator($0, "}") }) ?? true
            {
                continue
            }
            if let before, isWord(before, "break") || isWord(before, "continue"), !tokens[index].newlineBefore { continue }
            let read = "(0, __sbImports.\(name))"
            let isShorthand =
                before.map { isPunctuator($0, "{") || isPunctuator($0, ",") } == true
                && (isPunctuator(index + 1, ",") || isPunctuator(index + 1, "}"))
                && enclosingBracket(of: index).map { isPunctuator($0, "{") } == true
            edits.append(.init(range: tokens[index].range, text: isShorthand ? "\(name): \(read)" : read))
        }
        return edits
    }

    // MARK: Scopes

    private mutating func makeScope(parent: Int, isFunction: Bool) -> Int {
        scopes.append(Scope(parent: parent, isFunction: isFunction))
        return scopes.count - 1
    }

    private mutating func declare(_ index: Int, in scope: Int) {
        guard let word = known(index), word.id >= 0 else { return }
        scopes[scope].declare(word.id)
    }

    private func functionScope(of scope: Int) -> Int {
        var scope = scope
        while scope > 0 && !scopes[scope].isFunction { scope = scopes[scope].parent }
        return scope
    }

    /// Reads tokens `from..<to` in `scope`: their declarations, scopes and candidate references;
    /// `inObjectLiteral` when they are an object literal's members.
    private mutating func scan(_ from: Int, _ to: Int, in scope: Int, inObjectLiteral: Bool = false) throws(Unsure) {
        var index = from
        while index < to {
            if skipped[index] {
                index += 1
                continue
            }
            scopeOf[index] = scope
            switch tokens[index].kind {
            case .punctuator:
                if isPunctuator(index, "{") {
                    guard let close = closing(of: index), close < to else { throw Unsure() }
                    let block = makeScope(parent: scope, isFunction: false)
                    scopeOf[close] = scope
                    try scan(index + 1, close, in: block, inObjectLiteral: isExpressionPosition(before: index))
                    index = close + 1
                } else if isPunctuator(index, "("), let close = closing(of: index), isPunctuator(close + 1, "=>") {
                    index = try arrow(parameters: index + 1..<close, parenthesized: true, arrow: close + 1, in: scope)
                } else {
                    index += 1
                }
            case .name:
                index = try name(at: index, in: scope, inObjectLiteral: inObjectLiteral)
            default:
                index += 1
            }
        }
    }

    private mutating func name(at index: Int, in scope: Int, inObjectLiteral: Bool) throws(Unsure) -> Int {
        let before = previous(index)
        if let before, isPunctuator(before, ".") || isPunctuator(before, "?.") { return index + 1 }
        let known = known(index)
        let word = known?.word ?? ""
        let startsMember = before.map { isPunctuator($0, "{") || isPunctuator($0, ",") } ?? false
        // A key (`class: …` after `{` or `,`), a keyword or not.
        if startsMember && isPunctuator(index + 1, ":") { return index + 1 }
        if inObjectLiteral && startsMember {
            // A method, whatever its name (`delete(key) { … }`), or a modifier before one.
            if isPunctuator(index + 1, "("), let close = closing(of: index + 1), isPunctuator(close + 1, "{") {
                return try functionBody(parameters: index + 2..<close, body: close + 1, ownName: nil, in: scope)
            }
            if ["get", "set", "async"].contains(word),
                kind(index + 1) == .name || isPunctuator(index + 1, "*") || isPunctuator(index + 1, "[")
            {
                if let close = methodAfterModifier(index + 1) {
                    return try functionBody(parameters: close.parameters, body: close.body, ownName: nil, in: scope)
                }
            }
        }
        if ["var", "let", "const"].contains(word), kind(index + 1) == .name || isPunctuator(index + 1, "[") || isPunctuator(index + 1, "{")
        {
            return try declaration(at: index, in: scope)
        }
        switch word {
        case "function":
            return try function(at: index, in: scope)
        case "class":
            return try classDefinition(at: index, in: scope)
        case "catch" where isPunctuator(index + 1, "("):
            guard let close = closing(of: index + 1), isPunctuator(close + 1, "{"), let end = closing(of: close + 1) else { throw Unsure() }
            let block = makeScope(parent: scope, isFunction: false)
            try parameters(index + 2..<close, in: block)
            try scan(close + 2, end, in: block)
            return end + 1
        case "for":
            return try forStatement(at: index, in: scope)
        case "eval":
            throw Unsure()
        default:
            if isPunctuator(index + 1, "=>") {
                return try arrow(parameters: index..<index + 1, parenthesized: false, arrow: index + 1, in: scope)
            }
            if isPunctuator(index + 1, "("), !Self.statementKeywords.contains(word), let close = closing(of: index + 1),
                isPunctuator(close + 1, "{")
            {
                // A method (`name(…) { … }`, getters and setters included).
                return try functionBody(parameters: index + 2..<close, body: close + 1, ownName: nil, in: scope)
            }
            if let known, known.id >= 0 { candidates.append(index) }
            return index + 1
        }
    }

    /// The parameters and body of a method whose key starts at `index` (after `get`, `set` or
    /// `async`): `[*] key (parameters) { body }`.
    private func methodAfterModifier(_ index: Int) -> (parameters: Range<Int>, body: Int)? {
        var key = index
        if isPunctuator(key, "*") { key += 1 }
        var open = key + 1
        if isPunctuator(key, "["), let end = closing(of: key) { open = end + 1 }
        guard isPunctuator(open, "("), let close = closing(of: open), isPunctuator(close + 1, "{") else { return nil }
        return (open + 1..<close, close + 1)
    }

    /// `function [*] [name] (parameters) { body }`.
    private mutating func function(at index: Int, in scope: Int) throws(Unsure) -> Int {
        let head = isWord(index - 1, "async") && !tokens[index].newlineBefore ? index - 1 : index
        let isExpression = isExpressionPosition(before: head)
        var next = index + 1
        if isPunctuator(next, "*") { next += 1 }
        var name: Int?
        if kind(next) == .name {
            name = next
            next += 1
        }
        guard isPunctuator(next, "("), let close = closing(of: next), isPunctuator(close + 1, "{") else { throw Unsure() }
        if let name, !isExpression { declare(name, in: scope) }
        return try functionBody(parameters: next + 1..<close, body: close + 1, ownName: isExpression ? name : nil, in: scope)
    }

    private mutating func functionBody(parameters: Range<Int>, body: Int, ownName: Int?, in scope: Int) throws(Unsure) -> Int {
        let function = makeScope(parent: scope, isFunction: true)
        if let ownName { declare(ownName, in: function) }
        try self.parameters(parameters, in: function)
        guard let close = closing(of: body) else { throw Unsure() }
        try scan(body + 1, close, in: function)
        return close + 1
    }

    /// `class [name] [extends expression] { members }`.
    private mutating func classDefinition(at index: Int, in scope: Int) throws(Unsure) -> Int {
        let isExpression = isExpressionPosition(before: index)
        var next = index + 1
        let classScope = makeScope(parent: scope, isFunction: false)
        if kind(next) == .name && !isWord(next, "extends") {
            declare(next, in: isExpression ? classScope : scope)
            next += 1
        }
        if isWord(next, "extends") {
            var open = next + 1
            while open < tokens.count, !(tokens[open].depth == tokens[index].depth && isPunctuator(open, "{")) { open += 1 }
            try scan(next + 1, open, in: scope)
            next = open
        }
        guard isPunctuator(next, "{"), let close = closing(of: next) else { throw Unsure() }
        try classBody(next + 1, close, in: classScope)
        return close + 1
    }

    private mutating func classBody(_ from: Int, _ to: Int, in scope: Int) throws(Unsure) {
        var index = from
        while index < to {
            scopeOf[index] = scope
            if isPunctuator(index, ";") {
                index += 1
                continue
            }
            if isWord(index, "static"), isPunctuator(index + 1, "{"), let close = closing(of: index + 1) {
                try scan(index + 2, close, in: makeScope(parent: scope, isFunction: true))
                index = close + 1
                continue
            }
            // Modifiers, when a key follows them.
            while ["static", "get", "set", "async", "accessor"].contains(text(index)),
                !(isPunctuator(index + 1, "(") || isPunctuator(index + 1, "=") || isPunctuator(index + 1, ";")
                    || isPunctuator(index + 1, "}"))
            {
                index += 1
            }
            if isPunctuator(index, "*") { index += 1 }
            if isPunctuator(index, "["), let close = closing(of: index) {
                try scan(index + 1, close, in: scope)
                index = close + 1
            } else if [.name, .string, .number].contains(kind(index)) {
                index += 1
            } else {
                throw Unsure()
            }
            if isPunctuator(index, "(") {
                guard let close = closing(of: index), isPunctuator(close + 1, "{") else { throw Unsure() }
                index = try functionBody(parameters: index + 1..<close, body: close + 1, ownName: nil, in: scope)
            } else if isPunctuator(index, "=") {
                let end = expressionEnd(from: index + 1, depth: tokens[index].depth)
                try scan(index + 1, end, in: makeScope(parent: scope, isFunction: true))
                index = end
            }
        }
    }

    /// `var`, `let` or `const` declarators: their names declared, their initializers read.
    private mutating func declaration(at index: Int, in scope: Int) throws(Unsure) -> Int {
        let target = isWord(index, "var") ? functionScope(of: scope) : scope
        let depth = tokens[index].depth
        var next = index + 1
        while true {
            next = try bind(at: next, declaringIn: target, readingIn: scope)
            if isPunctuator(next, "=") {
                let end = expressionEnd(from: next + 1, depth: depth)
                try scan(next + 1, end, in: scope)
                next = end
            }
            guard isPunctuator(next, ","), tokens[next].depth == depth else { return next }
            next += 1
        }
    }

    /// `for (let …; …) body` and `for (const … of …) body`: the head's names are the loop's.
    private mutating func forStatement(at index: Int, in scope: Int) throws(Unsure) -> Int {
        let open = isWord(index + 1, "await") ? index + 2 : index + 1
        guard isPunctuator(open, "("), let close = closing(of: open) else { return index + 1 }
        guard isWord(open + 1, "let") || isWord(open + 1, "const") else { return index + 1 }
        let loop = makeScope(parent: scope, isFunction: false)
        scopeOf[index] = scope
        try scan(open + 1, close, in: loop)
        if isPunctuator(close + 1, "{") {
            guard let end = closing(of: close + 1) else { throw Unsure() }
            try scan(close + 2, end, in: makeScope(parent: loop, isFunction: false))
            return end + 1
        }
        // A body without braces: one statement.
        let end = try statementEnd(from: close + 1)
        try scan(close + 1, end, in: loop)
        return end
    }

    /// Where the statement that starts at `index` ends (the index after it): a block, `if`
    /// with its `else`, a loop with its body, or a simple statement to its `;` or line break.
    private func statementEnd(from index: Int) throws(Unsure) -> Int {
        if isPunctuator(index, "{") {
            guard let close = closing(of: index) else { throw Unsure() }
            return close + 1
        }
        switch text(index) {
        case "if":
            guard isPunctuator(index + 1, "("), let close = closing(of: index + 1) else { throw Unsure() }
            let end = try statementEnd(from: close + 1)
            return isWord(end, "else") ? try statementEnd(from: end + 1) : end
        case "for", "while":
            let open = isWord(index + 1, "await") ? index + 2 : index + 1
            guard isPunctuator(open, "("), let close = closing(of: open) else { throw Unsure() }
            return try statementEnd(from: close + 1)
        case "do", "try", "switch", "function", "class", "let", "const", "var", "with":
            throw Unsure()
        default:
            guard tokens.indices.contains(index) else { throw Unsure() }
            let end = expressionEnd(from: index, depth: tokens[index].depth, endsAtComma: false)
            return isPunctuator(end, ";") ? end + 1 : end
        }
    }

    /// An arrow function's parameters (a name, or a parenthesized list) and body (a block, or
    /// an expression to its end).
    private mutating func arrow(parameters: Range<Int>, parenthesized: Bool, arrow: Int, in scope: Int) throws(Unsure) -> Int {
        let function = makeScope(parent: scope, isFunction: true)
        if parenthesized {
            try self.parameters(parameters, in: function)
        } else {
            declare(parameters.lowerBound, in: function)
        }
        let body = arrow + 1
        if isPunctuator(body, "{") {
            guard let close = closing(of: body) else { throw Unsure() }
            try scan(body + 1, close, in: function)
            return close + 1
        }
        let end = expressionEnd(from: body, depth: tokens[arrow].depth, conditional: true)
        try scan(body, end, in: function)
        return end
    }

    // MARK: Bindings

    /// A parameter list's elements (`a`, `{b} = c`, `...d`), declared in `scope`, their defaults
    /// read there.
    private mutating func parameters(_ range: Range<Int>, in scope: Int) throws(Unsure) {
        var index = range.lowerBound
        while index < range.upperBound {
            if isPunctuator(index, ",") {
                index += 1
                continue
            }
            if isPunctuator(index, "...") { index += 1 }
            index = try bind(at: index, declaringIn: scope, readingIn: scope)
            if isPunctuator(index, "=") {
                let end = expressionEnd(from: index + 1, depth: tokens[index].depth)
                try scan(index + 1, min(end, range.upperBound), in: scope)
                index = end
            }
        }
    }

    /// A binding target at `index` (a name or a pattern): its names declared in `target`, its
    /// defaults and computed keys read in `scope`. Returns the index after it.
    private mutating func bind(at index: Int, declaringIn target: Int, readingIn scope: Int) throws(Unsure) -> Int {
        try ModuleTokens(bytes: bytes, tokens: tokens).walkBinding(
            at: index,
            name: { name throws(Unsure) in
                scopeOf[name] = scope
                declare(name, in: target)
            },
            expression: { range throws(Unsure) in try scan(range.lowerBound, range.upperBound, in: scope) }, malformed: { Unsure() })
    }

    // MARK: Tokens

    /// Where an expression that starts at `from` ends: a `,` (with `endsAtComma`) or `;` at
    /// `depth`, a bracket closing around it, or a line break that ends its statement; with
    /// `conditional`, also a `:` of a conditional around it.
    private func expressionEnd(from: Int, depth: Int, conditional: Bool = false, endsAtComma: Bool = true) -> Int {
        var index = from
        var open = 0
        while index < tokens.count {
            let token = tokens[index]
            if token.depth < depth { return index }
            if token.depth == depth {
                if isPunctuator(index, ",") && endsAtComma || isPunctuator(index, ";") { return index }
                if isPunctuator(index, "?") {
                    // `??` and `??=` are no conditionals.
                    if isPunctuator(index + 1, "?") && tokens[index + 1].range.lowerBound == token.range.upperBound {
                        index += 2
                        continue
                    }
                    open += 1
                } else if isPunctuator(index, ":") {
                    if open == 0 && conditional { return index }
                    open -= 1
                }
                if index > from, token.newlineBefore, endsValue(index - 1), startsStatement(index) { return index }
            }
            index += 1
        }
        return index
    }

    /// Whether a `function` or `class` at `index` is an expression (else a declaration, which is
    /// the safer guess: its name is then declared in the block around it).
    private func isExpressionPosition(before index: Int) -> Bool {
        guard let before = previous(index) else { return false }
        switch tokens[before].kind {
        case .punctuator:
            return !(isPunctuator(before, ";") || isPunctuator(before, "{") || isPunctuator(before, "}") || isPunctuator(before, ")"))
        case .name:
            return Self.expressionKeywords.contains(text(before))
        default:
            return false
        }
    }

    /// The token before `index` that the body still has.
    private func previous(_ index: Int) -> Int? {
        var before = index - 1
        while before >= 0 && skipped[before] { before -= 1 }
        return before >= 0 ? before : nil
    }

    /// The bracket that `index` is directly inside.
    private func enclosingBracket(of index: Int) -> Int? {
        let depth = tokens[index].depth
        var before = index - 1
        while before >= 0 {
            if tokens[before].depth == depth - 1 { return before }
            before -= 1
        }
        return nil
    }

    /// The name at `index` when it is a keyword the analysis reads or an imported name.
    private func known(_ index: Int) -> Word? {
        let range = tokens[index].range
        for candidate in words[Int(bytes[range.lowerBound])] where candidate.bytes.count == range.count {
            var same = true
            for offset in 0..<range.count where bytes[range.lowerBound + offset] != candidate.bytes[offset] {
                same = false
                break
            }
            if same { return candidate }
        }
        return nil
    }

}
