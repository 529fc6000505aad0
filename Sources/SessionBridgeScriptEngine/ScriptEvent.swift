public import Foundation

/// Something a context reports to its owner outside of a call: console output, an error thrown
/// from a timer or microtask, a promise rejection nobody handled.
public enum ScriptEvent: Sendable, Hashable {
    case console(ConsoleMessage)
    /// An exception thrown where no caller could catch it (a timer callback, a native reply).
    case uncaughtError(ScriptError)
    /// A promise rejected without a handler.
    case unhandledRejection(ScriptError)
}

/// One `console` call.
public struct ConsoleMessage: Sendable, Hashable, CustomStringConvertible {
    /// The console method used.
    public enum Level: String, Sendable, Hashable {
        case log, info, warn, error, debug
    }

    public var level: Level
    /// The arguments, formatted and joined by spaces as a browser console shows them.
    public var text: String
    public var timestamp: Date

    public init(level: Level, text: String, timestamp: Date = Date()) {
        self.level = level
        self.text = text
        self.timestamp = timestamp
    }

    public var description: String { "[\(level.rawValue)] \(text)" }
}
