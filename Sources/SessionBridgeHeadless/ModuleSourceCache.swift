import Synchronization

/// Module sources lexed before, by their text, for the whole process: a page loaded again (a
/// test suite's hundreds of pages of one app, each fetching the same bundle) does not lex and
/// analyse its modules again. What a source becomes depends on its text alone; its URL and the
/// document's import map are applied after.
enum ModuleSourceCache {
    /// About how much memory the cache may hold: each entry keeps its text and the bodies made
    /// of it (reckoned at four times the text). Past it, the cache starts again empty.
    static let limit = 64 << 20

    private static let entries = Mutex<(sources: [String: ModuleSource], bytes: Int)>(([:], 0))

    /// Whether `text` is in the cache (for tests).
    static func contains(_ text: String) -> Bool {
        entries.withLock { $0.sources[text] != nil }
    }

    /// `text` lexed, from the cache when it was before.
    /// - Throws: ``ModuleSource/SyntaxError`` (not kept: the next load lexes it again).
    static func source(for text: String) throws(ModuleSource.SyntaxError) -> ModuleSource {
        if let cached = entries.withLock({ $0.sources[text] }) { return cached }
        let source = try ModuleSource(text)
        let size = text.utf8.count * 4
        guard size <= limit else { return source }
        entries.withLock { state in
            if state.bytes + size > limit { state = ([:], 0) }
            state.sources[text] = source
            state.bytes += size
        }
        return source
    }
}
