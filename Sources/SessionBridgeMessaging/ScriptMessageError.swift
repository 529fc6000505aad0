public import SessionBridgeScriptEngine

/// An error a message handler throws to reject the page's promise with a public message.
///
/// The page sees an `Error` whose `message` is ``message`` and whose `code`, `retryable` and
/// (when set) `data` properties carry the rest. Any other error a handler throws reaches the
/// page only as `"the handler failed"` with code `internal_error`; its detail goes to the log.
public struct ScriptMessageError: Error, Sendable, Hashable {
    /// A stable machine-readable code (`invalid_grant`, `timeout`, ...).
    public var code: String
    /// The message the page sees. Never put a secret here.
    public var message: String
    /// Whether trying again later may succeed.
    public var retryable: Bool
    /// Extra public facts for the page.
    public var data: ScriptValue?
    /// The JavaScript error name.
    public var name: String

    public init(code: String, message: String, retryable: Bool = false, data: ScriptValue? = nil, name: String = "Error") {
        self.code = code
        self.message = message
        self.retryable = retryable
        self.data = data
        self.name = name
    }

    /// The call took longer than its timeout.
    public static let timeout = ScriptMessageError(
        code: "timeout", message: "the handler did not reply in time", retryable: true, name: "TimeoutError")
    /// The call's `AbortSignal` fired.
    public static let aborted = ScriptMessageError(code: "aborted", message: "the call was aborted", name: "AbortError")
    /// The document went away (navigation, reload or teardown) before the reply.
    public static let navigation = ScriptMessageError(
        code: "navigation", message: "the document went away before the reply", name: "NavigationError")
    /// Too many calls are in flight for this page.
    public static let overloaded = ScriptMessageError(code: "overloaded", message: "too many calls in flight", retryable: true)
    /// The frame's origin is not allowed to use this handler.
    public static let notAllowed = ScriptMessageError(
        code: "not_allowed", message: "this origin may not use this handler", name: "NotAllowedError")
    /// The frame's `origin` is not on the allow-list of the handler `name` (handlers deny
    /// every origin they do not list).
    public static func originNotAllowed(_ origin: String, handler name: String) -> ScriptMessageError {
        ScriptMessageError(
            code: "not_allowed",
            message: "the origin \(origin) may not use the handler '\(name)': it is not in the handler's allowedOrigins",
            data: ["origin": .string(origin), "handler": .string(name)], name: "NotAllowedError")
    }
    /// The handler released its ``ScriptMessageReply`` without replying.
    public static let noReply = ScriptMessageError(code: "no_reply", message: "the handler did not reply")
    /// The handler was removed.
    public static let removed = ScriptMessageError(code: "handler_removed", message: "the handler was removed")
    /// The generic rejection for errors that are not ``ScriptMessageError``s.
    public static let internalError = ScriptMessageError(code: "internal_error", message: "the handler failed")

    var scriptThrow: ScriptThrow {
        var properties: [(String, ScriptValue)] = [("code", .string(code)), ("retryable", .bool(retryable))]
        if let data { properties.append(("data", data)) }
        return ScriptThrow(name, message, properties: properties)
    }
}
