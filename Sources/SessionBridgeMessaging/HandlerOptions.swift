/// Who may call a handler and how long a call may take.
///
/// A handler is denied to every origin until the app says otherwise: list the origins whose
/// documents may call it in ``allowedOrigins``, or decide explicitly that any origin may, with
/// ``anyOrigin`` (for handlers that hold nothing worth protecting).
///
/// ```swift
/// controller.addScriptMessageHandler(Clock(), name: "clock",
///     options: HandlerOptions(allowedOrigins: [SecurityOrigin("https://app.example")!]))
/// controller.addScriptMessageHandler(Telemetry(), name: "telemetry", options: .anyOrigin)
/// ```
public struct HandlerOptions: Sendable {
    /// The origins allowed to call the handler, taken from the document's real URL. Empty (the
    /// default) allows none, unless ``allowsAnyOrigin`` is set.
    public var allowedOrigins: Set<SecurityOrigin>
    /// Whether every origin may call the handler, listed or not, opaque origins included.
    /// Set it through ``anyOrigin`` or ``anyOrigin(mainFrameOnly:timeout:)`` so that the
    /// decision reads as one.
    public var allowsAnyOrigin: Bool
    /// Whether only the main frame may call it.
    public var mainFrameOnly: Bool
    /// How long a call may wait for its reply before it rejects with `TimeoutError`;
    /// `nil` uses the controller's default.
    public var timeout: Duration?

    /// Options allowing exactly `allowedOrigins` (by default, no origin at all).
    public init(allowedOrigins: Set<SecurityOrigin> = [], mainFrameOnly: Bool = false, timeout: Duration? = nil) {
        self.allowedOrigins = allowedOrigins
        self.allowsAnyOrigin = false
        self.mainFrameOnly = mainFrameOnly
        self.timeout = timeout
    }

    /// Options allowing every origin: the explicit opt-out of deny by default.
    public static let anyOrigin = anyOrigin()

    /// Options allowing every origin, with the other options given.
    public static func anyOrigin(mainFrameOnly: Bool = false, timeout: Duration? = nil) -> HandlerOptions {
        var options = HandlerOptions(mainFrameOnly: mainFrameOnly, timeout: timeout)
        options.allowsAnyOrigin = true
        return options
    }

    /// Whether a frame may call the handler.
    public func allows(_ frame: FrameInfo) -> Bool {
        if mainFrameOnly && !frame.isMainFrame { return false }
        if allowsAnyOrigin { return true }
        guard let origin = frame.securityOrigin else { return false }
        return allowedOrigins.contains(origin)
    }

    /// Why `frame` may not call the handler `name`, or `nil` when it may: the error the page's
    /// promise rejects with, naming the frame's origin and the handler.
    public func refusal(for frame: FrameInfo, handler name: String) -> ScriptMessageError? {
        guard !allows(frame) else { return nil }
        let origin = frame.securityOrigin?.description ?? "null"
        if mainFrameOnly && !frame.isMainFrame {
            return ScriptMessageError(
                code: "not_allowed", message: "only the main frame may use the handler '\(name)' (this frame's origin is \(origin))",
                name: "NotAllowedError")
        }
        return .originNotAllowed(origin, handler: name)
    }
}
