/// A script evaluated again and again, in context after context: a prelude every document
/// runs, a user script.
///
/// Evaluated as text, a source is converted from UTF-8, copied and hashed by JavaScriptCore at
/// every evaluation, and looked up in its code cache by comparing the whole text. A
/// `ScriptSource` is evaluated as text the first time in an engine thread or lane (one VM);
/// the second time it is handed to JavaScriptCore as a script kept parsed there
/// (`JSScriptRef`), and every later evaluation in that VM starts from it. A VM that runs it
/// once (a worker's) pays no parse of its own for it. Keep one for the life of what it serves (a `static let`, a user script's own): each
/// VM holds what it made for the source until the VM ends.
package final class ScriptSource: Sendable {
    /// The script's text.
    package let text: String
    /// The URL its errors and stack frames name; its first line is their line 1 (a script
    /// JavaScriptCore keeps parsed has no other starting line).
    package let sourceURL: String

    package init(_ text: String, sourceURL: String) {
        self.text = text
        self.sourceURL = sourceURL
    }
}
