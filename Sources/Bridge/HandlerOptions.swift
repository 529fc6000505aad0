/// Who may call a handler and how long a call may take.
public struct HandlerOptions: Sendable {
    /// The origins allowed to call the handler, taken from the document's real URL; `nil`
    /// allows every origin. A list denies every origin not on it.
    public var allowedOrigins: Set<SecurityOrigin>?
    /// Whether only the main frame may call it.
    public var mainFrameOnly: Bool
    /// How long a call may wait for its reply before it rejects with `TimeoutError`;
    /// `nil` uses the controller's default.
    public var timeout: Duration?

    public init(allowedOrigins: Set<SecurityOrigin>? = nil, mainFrameOnly: Bool = false, timeout: Duration? = nil) {
        self.allowedOrigins = allowedOrigins
        self.mainFrameOnly = mainFrameOnly
        self.timeout = timeout
    }

    /// Whether a frame may call the handler.
    public func allows(_ frame: FrameInfo) -> Bool {
        if mainFrameOnly && !frame.isMainFrame { return false }
        guard let allowedOrigins else { return true }
        guard let origin = frame.securityOrigin else { return false }
        return allowedOrigins.contains(origin)
    }
}

/// Limits that protect the app from a page that floods or abuses the bridge.
public struct BridgeLimits: Sendable {
    /// Bounds on a message body; a body beyond them throws `DataCloneError` in the page.
    public var body: ConversionLimits
    /// Most calls awaiting a reply per document; further calls reject with code `overloaded`.
    public var maxCallsInFlight: Int
    /// How long a call may wait for its reply, unless its handler says otherwise.
    public var defaultTimeout: Duration

    public init(
        body: ConversionLimits = ConversionLimits(maxDepth: 32, maxNodes: 10_000, maxBytes: 1 << 20, allowsNonFiniteNumbers: false),
        maxCallsInFlight: Int = 256, defaultTimeout: Duration = .seconds(30)
    ) {
        self.body = body
        self.maxCallsInFlight = maxCallsInFlight
        self.defaultTimeout = defaultTimeout
    }
}
