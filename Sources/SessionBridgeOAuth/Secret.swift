/// A credential that never prints: a client secret, a token, a PKCE verifier.
///
/// Every way Swift has of turning a value into text shows `<redacted>`: `description`,
/// `debugDescription`, `dump` (through `CustomReflectable`), string interpolation and log
/// metadata. It is deliberately not `Encodable`, so it cannot be written into JSON by accident;
/// code that must send it reads ``exposedValue``.
///
/// ```swift
/// let secret = Secret("s3cr3t")
/// print(secret)                 // <redacted>
/// form.append(("client_secret", secret.exposedValue))
/// ```
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable, CustomLeafReflectable
{
    private let value: String

    /// Wraps a secret.
    public init(_ value: String) {
        self.value = value
    }

    /// The secret itself, for the one place that sends it. Never log it.
    public var exposedValue: String { value }

    /// Whether the secret is empty.
    public var isEmpty: Bool { value.isEmpty }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }
    /// Always `Secret(<redacted>)`.
    public var debugDescription: String { "Secret(<redacted>)" }
    /// A mirror with no secret in it, so `dump` shows `<redacted>`.
    public var customMirror: Mirror { Mirror(self, children: ["value": "<redacted>"], displayStyle: .struct) }
}
