import OrderedCollections
public import SessionBridgeScriptEngine

/// Which values the message log hides.
///
/// A value is redacted when its key matches (case-insensitively) or when it is a string that
/// starts with one of the secret prefixes. Redaction applies at any depth.
public struct RedactionPolicy: Sendable, Hashable {
    /// Keys whose values are hidden, lower-cased.
    public var keys: Set<String>
    /// String prefixes that mark a secret wherever it appears (such as `"sbrt_"`).
    public var secretPrefixes: [String]

    public init(keys: Set<String> = RedactionPolicy.defaultKeys, secretPrefixes: [String] = []) {
        self.keys = Set(keys.map { $0.lowercased() })
        self.secretPrefixes = secretPrefixes
    }

    /// `refresh_token`, `access_token`, `id_token`, `password`, `code`, `secret`,
    /// `authorization`, `cookie`, `set-cookie`, `token`.
    public static let defaultKeys: Set<String> = [
        "refresh_token", "refreshtoken", "access_token", "accesstoken", "id_token", "password", "code",
        "secret", "client_secret", "authorization", "cookie", "set-cookie", "token",
    ]

    /// The default policy.
    public static let `default` = RedactionPolicy()

    /// The text that replaces a hidden value.
    public static let placeholder: ScriptValue = "<redacted>"

    /// `value` with every secret replaced by ``placeholder``.
    ///
    /// A value with nothing to hide is returned as it is, without a copy: the message log
    /// redacts every body and reply, and most hold no secret.
    public func redact(_ value: ScriptValue) -> ScriptValue {
        holdsSecret(value) ? redacted(value) : value
    }

    private func redacted(_ value: ScriptValue) -> ScriptValue {
        switch value {
        case .undefined, .null, .bool, .number, .bytes:
            return value
        case .string:
            return holdsSecret(value) ? Self.placeholder : value
        case .array(let elements):
            return .array(elements.map(redacted))
        case .object(var members):
            for (key, member) in members {
                members[key] = isSecretKey(key) ? Self.placeholder : redacted(member)
            }
            return .object(members)
        }
    }

    /// Whether ``redact(_:)`` would change anything in `value`.
    private func holdsSecret(_ value: ScriptValue) -> Bool {
        switch value {
        case .undefined, .null, .bool, .number, .bytes:
            return false
        case .string(let string):
            return !secretPrefixes.isEmpty && secretPrefixes.contains(where: string.hasPrefix)
        case .array(let elements):
            return elements.contains(where: holdsSecret)
        case .object(let members):
            return members.contains { key, member in isSecretKey(key) || holdsSecret(member) }
        }
    }

    /// Whether `key` names a hidden value, compared case-insensitively (lower-casing only keys
    /// that are not lower-case already).
    private func isSecretKey(_ key: String) -> Bool {
        if keys.contains(key) { return true }
        guard key.utf8.contains(where: { ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || $0 >= 0x80 }) else { return false }
        return keys.contains(key.lowercased())
    }
}
