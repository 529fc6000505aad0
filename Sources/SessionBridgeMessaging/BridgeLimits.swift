public import SessionBridgeScriptEngine

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
