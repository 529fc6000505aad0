import OrderedCollections
public import SessionBridgeScriptEngine

/// Which values the message log hides.
///
/// A value is redacted when its key matches (case-insensitively) or when it is a string that
/// starts with one of the secret prefixes. Redaction applies at any depth.
public struct RedactionPolicy: Sendable, Hashable {
    /// Keys whose values are hidden, lower-cased.
    public var keys: Set<String> {
        didSet { shapes = Self.shapes(of: keys) }
    }
    /// String prefixes that mark a secret wherever it appears (such as `"sbrt_"`).
    public var secretPrefixes: [String]
    /// For each ASCII first byte (lower-cased), the UTF-8 lengths below 64 of the keys that
    /// start with it (bit 63: a longer one). Every body and reply the log records is checked key
    /// by key; most keys differ from every secret key in these two facts, and are passed
    /// without hashing.
    private var shapes: [UInt64]

    public init(keys: Set<String> = RedactionPolicy.defaultKeys, secretPrefixes: [String] = []) {
        let lowered = Set(keys.map { $0.lowercased() })
        self.keys = lowered
        self.secretPrefixes = secretPrefixes
        self.shapes = Self.shapes(of: lowered)
    }

    private static func shapes(of keys: Set<String>) -> [UInt64] {
        var shapes = [UInt64](repeating: 0, count: 128)
        for key in keys {
            guard let first = key.utf8.first else { continue }
            // A key that does not start with ASCII could match any key: every shape is marked.
            guard first < 0x80 else { return [UInt64](repeating: .max, count: 128) }
            shapes[Int(lowercasedASCII(first))] |= 1 << UInt64(min(key.utf8.count, 63))
        }
        return shapes
    }

    private static func lowercasedASCII(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
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
    private func holdsSecret(_ value: borrowing ScriptValue) -> Bool {
        switch value {
        case .undefined, .null, .bool, .number, .bytes:
            return false
        // Plain loops: `contains(where: holdsSecret)` would make a closure holding a copy of
        // the policy (three retains and releases) at every level of every body.
        case .string(let string):
            for prefix in secretPrefixes where string.hasPrefix(prefix) { return true }
            return false
        case .array(let elements):
            for index in elements.indices where holdsSecret(elements[index]) { return true }
            return false
        case .object(let members):
            // Keys, then values, by index: no (key, value) pair is made for each member, and
            // no iterator (each retains its storage).
            let keys = members.keys
            for index in keys.indices where isSecretKey(keys[index]) { return true }
            let values = members.values
            for index in values.indices where holdsSecret(values[index]) { return true }
            return false
        }
    }

    /// Whether `key` names a hidden value, compared case-insensitively (lower-casing only keys
    /// that are not lower-case already).
    ///
    /// Inlined into the walk: an ASCII key keeps its length and first letter when lower-cased,
    /// so if no secret key has both, it is none of them, decided without a call. Any other key
    /// takes the full comparison.
    @inline(__always)
    private func isSecretKey(_ key: String) -> Bool {
        // The string knows whether it is ASCII (a flag set when it was made): no byte is read
        // but the first. A key it does not know to be ASCII takes the full comparison.
        let utf8 = key.utf8Span
        let count = utf8.count
        if utf8.isKnownASCII, count > 0, count < 63, shapes[Int(Self.lowercasedASCII(utf8.span[0]))] & (1 << UInt64(count)) == 0 {
            return false
        }
        return matchesSecretKey(key)
    }

    /// The full comparison of ``isSecretKey(_:)``: the key as it is, then lower-cased.
    @inline(never)
    private func matchesSecretKey(_ key: String) -> Bool {
        if keys.contains(key) { return true }
        guard key.utf8.contains(where: { ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || $0 >= 0x80 }) else { return false }
        return keys.contains(key.lowercased())
    }
}
