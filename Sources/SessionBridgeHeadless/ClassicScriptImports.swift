import SessionBridgeScriptEngine

/// A classic script's dynamic `import()`, which JavaScriptCore's C API cannot load (it rejects
/// with "Could not import the module"): each call becomes a call of the page world's module
/// linker, `__sessionBridgeImport(referrer, …)`, so that it loads and runs the module as a
/// module script's `import()` does, relative to the script's URL.
enum ClassicScriptImports {
    /// `source` with each `import(` rewritten; `nil` when it has none (most scripts: they are
    /// not lexed), or when it cannot be lexed (JavaScriptCore then reports what it finds).
    static func rewrite(_ source: String, referrer: String) -> String? {
        let bytes = Array(source.utf8)
        guard mayImport(bytes), let tokens = try? ModuleLexer.tokens(of: bytes) else { return nil }
        let reading = ModuleTokens(bytes: bytes, tokens: tokens)
        var edits: [ModuleSource.Edit] = []
        for index in tokens.indices where tokens[index].kind == .name && reading.isPunctuator(index + 1, "(") {
            guard reading.text(index) == "import", !reading.isPunctuator(index - 1, "."), !reading.isPunctuator(index - 1, "?.") else {
                continue
            }
            // A method named `import` (`import(value) { … }`) is no call.
            if let close = reading.closing(of: index + 1), reading.isPunctuator(close + 1, "{") { continue }
            edits.append(
                ModuleSource.Edit(
                    range: tokens[index].range.lowerBound..<tokens[index + 1].range.upperBound,
                    text: "__sessionBridgeImport(\(ScriptValue.quoted(referrer)), "))
        }
        return edits.isEmpty ? nil : ModuleSource.apply(edits, to: bytes)
    }

    /// Whether `bytes` has `import` followed by `(` (spaces between): only such a script is lexed.
    private static func mayImport(_ bytes: [UInt8]) -> Bool {
        let word = Array("import".utf8)
        var index = 0
        while index + word.count < bytes.count {
            if bytes[index] == word[0], bytes[index..<index + word.count].elementsEqual(word) {
                var next = index + word.count
                while next < bytes.count,
                    bytes[next] == UInt8(ascii: " ") || bytes[next] == UInt8(ascii: "\t") || bytes[next] == UInt8(ascii: "\n")
                {
                    next += 1
                }
                if next < bytes.count, bytes[next] == UInt8(ascii: "(") { return true }
            }
            index += 1
        }
        return false
    }
}
