/// An OAuth 2.0 refresh token: a secret that never leaves native code.
///
/// Every way Swift has of turning a value into text shows `<redacted>`: `description`,
/// `debugDescription`, `dump` (through `CustomReflectable`), string interpolation and log
/// metadata. The type is deliberately not `Encodable`, so it cannot be put into a JSON reply
/// or a `ScriptValue` by accident. The `SessionBridge` layer reads the value to send it to the token
/// endpoint; a ``TokenVault`` of the app's own (a keychain, a hardware-backed store) reads and
/// writes it through the two explicit doors below, and nothing else does.
///
/// ```swift
/// let token = RefreshToken("rt_…")
/// print(token)            // <redacted>
/// logger.info("got \(token)")  // got <redacted>
/// ```
///
/// A vault of the app's own stores the secret with ``withRevealedValue(_:)`` and wraps what it
/// loads with ``init(_:)``:
///
/// ```swift
/// func store(_ record: VaultRecord) throws(TokenVaultError) {
///     record.refreshToken.withRevealedValue { keychain.set(Data($0.utf8), service: "app.session") }
/// }
/// func load() throws(TokenVaultError) -> VaultRecord? {
///     guard let data = keychain.data(service: "app.session") else { return nil }
///     return VaultRecord(refreshToken: RefreshToken(String(decoding: data, as: UTF8.self)),
///                        accessTokenExpiresAt: nil)
/// }
/// ```
public struct RefreshToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable, CustomLeafReflectable
{
    /// The secret. Internal: only the token endpoint client and the vaults read it.
    let value: String

    /// Wraps a refresh token obtained elsewhere (for ``SessionController/adopt(refreshToken:accessTokenExpiresAt:)``),
    /// or loaded by a ``TokenVault`` from its own store.
    public init(_ value: String) {
        self.value = value
    }

    /// Lends the secret to `body`, for a ``TokenVault`` that writes it into its own store.
    ///
    /// The only public way to read the token: the name makes every use stand out in review.
    /// Keep the string inside `body` (write it to the store, hash it), never log it, never let
    /// it reach a page.
    public func withRevealedValue<Result, Failure: Error>(
        _ body: (String) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(value)
    }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }
    /// Always `RefreshToken(<redacted>)`.
    public var debugDescription: String { "RefreshToken(<redacted>)" }
    /// A mirror with no children, shown as `<redacted>` by `dump`.
    public var customMirror: Mirror { Mirror(self, children: ["value": "<redacted>"], displayStyle: .struct) }

    /// Whether the token is empty (no token at all).
    public var isEmpty: Bool { value.isEmpty }
}
