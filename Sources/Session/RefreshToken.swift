/// An OAuth 2.0 refresh token: a secret that never leaves native code.
///
/// Every way Swift has of turning a value into text shows `<redacted>`: `description`,
/// `debugDescription`, `dump` (through `CustomReflectable`), string interpolation and log
/// metadata. The type is deliberately not `Encodable`, so it cannot be put into a JSON reply
/// or a `ScriptValue` by accident. Only the `Session` layer reads the value, to send it to the
/// token endpoint and to write it into a ``TokenVault``.
///
/// ```swift
/// let token = RefreshToken("rt_…")
/// print(token)            // <redacted>
/// logger.info("got \(token)")  // got <redacted>
/// ```
public struct RefreshToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable, CustomLeafReflectable
{
    /// The secret. Internal: only the token endpoint client and the vaults read it.
    let value: String

    /// Wraps a refresh token obtained elsewhere (for ``SessionController/adopt(refreshToken:accessTokenExpiresAt:)``).
    public init(_ value: String) {
        self.value = value
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
