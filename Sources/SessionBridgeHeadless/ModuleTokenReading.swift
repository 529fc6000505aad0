/// What the readers of a module's tokens (``DeclarationReader``, ``ImportReferences``) ask of
/// them: a token's kind and text, whether it is a given punctuator, the bracket closing one, and
/// where a line break ends a statement.
protocol ModuleTokenReading {
    var bytes: [UInt8] { get }
    var tokens: [ModuleToken] { get }
}

extension ModuleTokenReading {
    func kind(_ index: Int) -> ModuleToken.Kind? {
        tokens.indices.contains(index) ? tokens[index].kind : nil
    }

    /// The token's text (empty past either end).
    func text(_ index: Int) -> String {
        guard tokens.indices.contains(index) else { return "" }
        return String(decoding: bytes[tokens[index].range], as: UTF8.self)
    }

    /// Whether the token at `index` is `punctuator` (compared as bytes: no text is made).
    func isPunctuator(_ index: Int, _ punctuator: StaticString) -> Bool {
        isToken(index, .punctuator, punctuator)
    }

    /// Whether the token at `index` is the name `word` (compared as bytes: no text is made).
    func isWord(_ index: Int, _ word: StaticString) -> Bool {
        isToken(index, .name, word)
    }

    private func isToken(_ index: Int, _ kind: ModuleToken.Kind, _ text: StaticString) -> Bool {
        guard index >= 0, index < tokens.count else { return false }
        let token = tokens[index]
        guard token.kind == kind, token.range.count == text.utf8CodeUnitCount else { return false }
        return text.withUTF8Buffer { expected in
            for offset in 0..<expected.count where unsafe expected[offset] != bytes[token.range.lowerBound + offset] { return false }
            return true
        }
    }

    /// The index of the bracket closing the one at `open`.
    func closing(of open: Int) -> Int? {
        guard tokens.indices.contains(open) else { return nil }
        let depth = tokens[open].depth
        var index = open + 1
        while index < tokens.count {
            if tokens[index].depth == depth { return tokens[index].kind == .punctuator ? index : nil }
            index += 1
        }
        return nil
    }

    /// Whether the token at `index` can end an expression (a line break after it may end the
    /// statement).
    func endsValue(_ index: Int) -> Bool {
        guard tokens.indices.contains(index) else { return false }
        switch tokens[index].kind {
        case .name, .number, .string, .regex, .template: return true
        case .punctuator: return isPunctuator(index, ")") || isPunctuator(index, "]") || isPunctuator(index, "}")
        }
    }

    /// Whether the token at `index` cannot continue an expression (so a line break before it
    /// ends the statement).
    func startsStatement(_ index: Int) -> Bool {
        switch tokens[index].kind {
        case .name: !["in", "of", "instanceof"].contains(text(index))
        case .number, .string: true
        case .punctuator: isPunctuator(index, "{")
        default: false
        }
    }
}

/// A module's tokens, as a value the readers can hand a walk while they change themselves.
struct ModuleTokens: ModuleTokenReading {
    let bytes: [UInt8]
    let tokens: [ModuleToken]
}

extension ModuleTokenReading {
    /// Walks the binding target at `index`, a name or a destructuring pattern: `name` is called
    /// with each name it binds, `expression` with each default value's and computed key's
    /// tokens. Returns the index after it.
    /// - Throws: `malformed()` when it is no binding target.
    func walkBinding<E: Error>(
        at index: Int, name: (Int) throws(E) -> Void, expression: (Range<Int>) throws(E) -> Void, malformed: () -> E
    ) throws(E) -> Int {
        if kind(index) == .name {
            try name(index)
            return index + 1
        }
        guard isPunctuator(index, "{") || isPunctuator(index, "["), let close = closing(of: index) else { throw malformed() }
        func walk(_ index: Int) throws(E) -> Int {
            try walkBinding(at: index, name: name, expression: expression, malformed: malformed)
        }
        let isObject = isPunctuator(index, "{")
        let inner = tokens[index].depth + 1
        var position = index + 1
        while position < close {
            if isPunctuator(position, ",") {
                position += 1
                continue
            }
            if isPunctuator(position, "...") {
                position = try walk(position + 1)
            } else if isObject {
                if isPunctuator(position, "["), let end = closing(of: position) {
                    try expression(position + 1..<end)
                    position = end + 1
                    guard isPunctuator(position, ":") else { throw malformed() }
                    position = try walk(position + 1)
                } else if isPunctuator(position + 1, ":") {
                    position = try walk(position + 2)
                } else if kind(position) == .name {
                    try name(position)
                    position += 1
                } else {
                    throw malformed()
                }
            } else {
                position = try walk(position)
            }
            // A default value runs to the element's end.
            if isPunctuator(position, "=") {
                var end = position + 1
                while end < close, !(tokens[end].depth == inner && isPunctuator(end, ",")) { end += 1 }
                try expression(position + 1..<end)
                position = end
            }
        }
        return close + 1
    }
}
