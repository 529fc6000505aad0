/// An error from JavaScript or from the boundary between Swift and JavaScript.
///
/// A thrown JavaScript exception keeps its name, message, source URL, line, column and stack.
public struct ScriptError: Error, Sendable, Hashable {
    /// What went wrong.
    public enum Kind: String, Sendable, Hashable {
        /// A script threw; ``name`` and ``message`` are the thrown error's.
        case exception
        /// A script ran past the context's execution time limit and was ended.
        case timeLimitExceeded
        /// A script was ended because the process's resident memory passed the context's
        /// ``ScriptContext/Configuration/memoryLimit``.
        case memoryLimitExceeded
        /// A value could not cross the boundary (function, symbol, cycle, too deep, too large...).
        case conversion
        /// The context was closed.
        case contextClosed
    }

    public var kind: Kind
    /// The JavaScript error name (`TypeError`, `SyntaxError`, ...), or a name for the failure.
    public var name: String
    public var message: String
    public var sourceURL: String?
    public var line: Int?
    public var column: Int?
    public var stack: String?

    public init(
        kind: Kind, name: String, message: String,
        sourceURL: String? = nil, line: Int? = nil, column: Int? = nil, stack: String? = nil
    ) {
        self.kind = kind
        self.name = name
        self.message = message
        self.sourceURL = sourceURL
        self.line = line
        self.column = column
        self.stack = stack
    }

    static func conversion(_ message: String) -> ScriptError {
        ScriptError(kind: .conversion, name: "DataCloneError", message: message)
    }

    static let timeLimitExceeded = ScriptError(
        kind: .timeLimitExceeded, name: "TimeLimitExceeded",
        message: "script ran past the execution time limit and was ended")

    static let memoryLimitExceeded = ScriptError(
        kind: .memoryLimitExceeded, name: "MemoryLimitExceeded",
        message: "the process's memory passed the page's limit and the script was ended")

    /// Whether the engine ended the script: ``Kind/timeLimitExceeded`` or ``Kind/memoryLimitExceeded``.
    public var isStop: Bool { kind == .timeLimitExceeded || kind == .memoryLimitExceeded }

    public static let contextClosed = ScriptError(
        kind: .contextClosed, name: "ContextClosed", message: "the script context is closed")
}

extension ScriptError: CustomStringConvertible {
    public var description: String {
        var text = "\(name): \(message)"
        if let sourceURL { text += " (\(sourceURL)" + (line.map { ":\($0)" } ?? "") + (column.map { ":\($0)" } ?? "") + ")" }
        return text
    }
}

/// Throw from a native function to make JavaScript see a specific error.
public struct ScriptThrow: Error, Sendable {
    /// The error's `name` (`Error`, `TypeError`, ...).
    public var name: String
    public var message: String
    /// Extra own properties set on the thrown error object (`code`, `retryable`, ...).
    public var properties: [(String, ScriptValue)]

    public init(_ name: String = "Error", _ message: String, properties: [(String, ScriptValue)] = []) {
        self.name = name
        self.message = message
        self.properties = properties
    }
}
