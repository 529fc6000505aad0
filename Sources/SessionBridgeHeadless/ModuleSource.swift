import SessionBridgeScriptEngine

/// A module script's source, lexed: what it imports and exports, and the body of the classic
/// function it becomes, since JavaScriptCore's C API loads no modules.
///
/// The lexer reads JavaScript's tokens as far as modules need (comments, strings, template
/// literals with their substitutions, regular expression literals, brackets) and reads the
/// import and export declarations at the top level, as `es-module-lexer` does. The body keeps
/// every line where it was, so errors point at the module's own lines:
/// - import declarations are blanked (their bindings are read through the module's import
///   scope, live);
/// - `export` is taken off declarations, and export lists are blanked; the exported names
///   become getters the module hands the linker (``bindings``) before its first statement runs;
/// - `export default` of an expression becomes a `const` (``defaultBinding``);
/// - `import.meta` and `import(…)` become members of the module's own handle.
struct ModuleSource: Sendable {
    /// A module the source asks for, by its specifier, and the type its import attributes
    /// give (`json`, or `nil` for JavaScript).
    struct Request: Hashable {
        var specifier: String
        var type: String?
    }

    /// An imported binding: `local` reads `name` of the module `request` asks for (`*` for its
    /// namespace).
    struct Import: Equatable {
        var local: String
        var request: Request
        var name: String
    }

    /// An export of another module's: `name` is `importName` of `request` (`*` for its namespace).
    struct IndirectExport: Equatable {
        var name: String
        var request: Request
        var importName: String
    }

    /// What the source could not be lexed for; JavaScriptCore then reports the error itself.
    struct SyntaxError: Error {
        var message: String
    }

    /// The name `export default` of an expression (or of an anonymous function or class) binds.
    static let defaultBinding = "__sbDefault__"

    /// The modules asked for, in source order, each once.
    var requests: [Request] = []
    var imports: [Import] = []
    /// Exported names and the local bindings they read, in source order.
    var localExports: [(name: String, local: String)] = []
    var indirectExports: [IndirectExport] = []
    /// The modules whose every export but `default` this one exports (`export * from`).
    var starExports: [Request] = []
    /// The module's statements, with the declarations turned as the type describes, and each
    /// reference to an imported binding reading the import scope (``ImportReferences``).
    var body: String = ""
    /// Whether ``body`` reads its imported bindings by their names, from a `with` scope of its
    /// imports (the analysis of its references was unsure).
    var readsImportScope = false
    /// The body with each `await` doubled (but `for await`): compiled, it fails in a plain
    /// generator exactly when the module awaits at its top level (`await (x)` parses as a call
    /// otherwise). `nil` when the body has no `await`.
    var awaitProbe: String?
    /// The body that reads its imported bindings from a `with` scope, to compile should ``body``
    /// not parse; `nil` when there is no other (no imports, or ``body`` is that one).
    var scopedBody: String?
    var scopedAwaitProbe: String?
    /// The names the module's imports bind.
    var importedNames: Set<String> = []

    /// The getters the module hands the linker, as an object literal's members:
    /// `"name": () => local` (an imported binding it exports again is read from the import scope).
    var bindings: String {
        localExports.map { export in
            let read = importedNames.contains(export.local) ? "__sbImports.\(export.local)" : export.local
            return "\(ScriptValue.quoted(export.name)): () => \(read)"
        }.joined(separator: ", ")
    }

    /// Lexes `source`.
    /// - Throws: ``SyntaxError`` when a declaration cannot be read.
    init(_ source: String) throws(SyntaxError) {
        var bytes = Array(source.utf8)
        // A hashbang comment is a line comment to the function the body becomes.
        if bytes.starts(with: [UInt8(ascii: "#"), UInt8(ascii: "!")]) {
            bytes[0] = UInt8(ascii: "/")
            bytes[1] = UInt8(ascii: "/")
        }
        let tokens = try ModuleLexer.tokens(of: bytes)
        var reader = DeclarationReader(bytes: bytes, tokens: tokens)
        try reader.read()
        requests = reader.requests
        imports = reader.imports
        localExports = reader.localExports
        indirectExports = reader.indirectExports
        starExports = reader.starExports
        importedNames = Set(imports.map(\.local))
        let edits = reader.edits
        let doubled = reader.awaits.map { Edit(range: $0..<$0 + 5, text: "await await") }
        // Only a body with `await` somewhere can await at its top level, and needs a probe.
        let mentionsAwait = !doubled.isEmpty || reader.forAwaits > 0
        func body(_ edits: [Edit]) -> (body: String, probe: String?) {
            let sorted = edits.sorted { $0.range.lowerBound < $1.range.lowerBound }
            return (
                Self.apply(sorted, to: bytes),
                mentionsAwait ? Self.apply((sorted + doubled).sorted { $0.range.lowerBound < $1.range.lowerBound }, to: bytes) : nil
            )
        }
        let scoped = body(edits)
        guard !importedNames.isEmpty else {
            (self.body, awaitProbe) = scoped
            return
        }
        scopedBody = scoped.body
        scopedAwaitProbe = scoped.probe
        do throws(ImportReferences.Unsure) {
            let removed = edits.filter { $0.text.isEmpty && !$0.range.isEmpty }.map(\.range)
            let references = try ImportReferences.edits(bytes: bytes, tokens: tokens, names: importedNames, removed: removed)
            (self.body, awaitProbe) = body(edits + references)
        } catch {
            (self.body, awaitProbe) = scoped
            readsImportScope = true
            scopedBody = nil
            scopedAwaitProbe = nil
        }
    }

    /// A change to the source: `range` (bytes) becomes `text`, with the range's line breaks kept.
    struct Edit {
        var range: Range<Int>
        var text: String
    }

    /// The source with `edits` made. Each edit keeps its range's line breaks (`\n` and `\r`),
    /// and a `\r` and a `\n` that were apart in the source stay apart (a space between them):
    /// JavaScript counts `\r\n` as one line break, so every line stays where it was.
    static func apply(_ edits: [Edit], to bytes: [UInt8]) -> String {
        let lineFeed = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 64)
        var position = 0
        // Appends the line feed at `index` of the source; `adjacent` says whether the byte
        // before it in the output is the one before it in the source.
        func appendLineFeed(at index: Int, adjacent: Bool) {
            if out.last == carriageReturn, !(adjacent && index > 0 && bytes[index - 1] == carriageReturn) {
                out.append(UInt8(ascii: " "))
            }
            out.append(lineFeed)
        }
        for edit in edits {
            out.append(contentsOf: bytes[position..<edit.range.lowerBound])
            out.append(contentsOf: edit.text.utf8)
            for index in edit.range {
                let byte = bytes[index]
                if byte == lineFeed {
                    appendLineFeed(at: index, adjacent: index > edit.range.lowerBound || edit.text.isEmpty)
                } else if byte == carriageReturn {
                    out.append(byte)
                }
            }
            position = edit.range.upperBound
            if position < bytes.count, bytes[position] == lineFeed {
                appendLineFeed(at: position, adjacent: !edit.range.isEmpty || edit.text.isEmpty)
                position += 1
            }
        }
        out.append(contentsOf: bytes[position...])
        return String(decoding: out, as: UTF8.self)
    }
}
