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
    public func redact(_ value: ScriptValue) -> ScriptValue {
        switch value {
        case .undefined, .null, .bool, .number, .bytes:
            return value
        case .string where secretPrefixes.isEmpty:
            return value
        case .string(let string):
            return secretPrefixes.contains(where: string.hasPrefix) ? Self.placeholder : value
        case .array(let elements):
            return .array(elements.map(redact))
        case .object(var members):
            for (key, member) in members {
                members[key] = keys.contains(key.lowercased()) ? Self.placeholder : redact(member)
            }
            return .object(members)
        }
    }
}
