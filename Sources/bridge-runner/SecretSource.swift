import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where the CLI reads a secret from, so it need not sit in argv (where every local user sees
/// it in the process list): a file, an environment variable, or a prompt on the terminal.
enum SecretSource {
    /// The first of: `value` (from argv or the config file), the file at `file`, the variable
    /// `environment`, a prompt (when standard input is a terminal). Trailing newlines are dropped.
    static func read(value: String?, file: String?, environment: String, prompt: String) throws -> String? {
        if let value { return value }
        if let file { return try contents(of: file, what: prompt) }
        if let text = ProcessInfo.processInfo.environment[environment], !text.isEmpty { return text }
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        return ask(prompt)
    }

    /// Whether ``read(value:file:environment:prompt:)`` has anywhere to read from.
    static func available(value: String?, file: String?, environment: String) -> Bool {
        value != nil || file != nil || !(ProcessInfo.processInfo.environment[environment] ?? "").isEmpty || isatty(STDIN_FILENO) == 1
    }

    /// A file's text without its trailing line breaks (LF or CRLF); an empty one is refused,
    /// where it had left a client without the authentication it was given.
    static func contents(of path: String, what: String) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw RunnerFailure(description: "cannot read the \(what) from \(path)", exitCode: .missingInput)
        }
        // `isNewline`: "\r\n" is one Character, which a comparison with "\n" misses.
        let trimmed = String(text.reversed().drop { $0.isNewline }.reversed())
        guard !trimmed.isEmpty else {
            throw RunnerFailure(description: "the \(what): \(path) is empty", exitCode: .missingInput)
        }
        return trimmed
    }

    /// Asks on the terminal with echo off.
    static func ask(_ prompt: String) -> String? {
        FileHandle.standardError.write(Data("\(prompt): ".utf8))
        var settings = termios()
        let haveSettings = unsafe tcgetattr(STDIN_FILENO, &settings) == 0
        if haveSettings {
            var silent = settings
            silent.c_lflag &= ~tcflag_t(ECHO)
            unsafe tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        }
        defer {
            if haveSettings { unsafe tcsetattr(STDIN_FILENO, TCSANOW, &settings) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true)
    }
}
