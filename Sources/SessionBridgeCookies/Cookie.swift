public import Foundation

/// The `SameSite` enforcement mode of a cookie (RFC 6265bis, "The SameSite Attribute").
///
/// ``unspecified`` is the draft's `"Default"` enforcement: the cookie carried no `SameSite`
/// attribute, or one with an unknown value. It is enforced like ``lax`` when cookies are sent.
public enum SameSite: String, Sendable, Codable, Hashable, CaseIterable {
    /// Sent only with same-site requests.
    case strict
    /// Sent with same-site requests and with cross-site top-level navigations using a safe method.
    case lax
    /// Sent with every request; the cookie must be `Secure`.
    case none
    /// No (or an unknown) `SameSite` value: the draft's `"Default"`, enforced like ``lax``.
    case unspecified
}

/// A stored cookie: the RFC 6265bis storage model's fields.
///
/// A cookie is identified within a jar by ``name``, ``domain``, ``isHostOnly`` and ``path``.
public struct Cookie: Sendable, Hashable, Codable {
    /// The cookie name; may be empty (a "nameless" cookie, serialised as its value alone).
    public var name: String
    /// The cookie value.
    public var value: String
    /// The canonical (lower-case, no leading dot) domain the cookie belongs to.
    public var domain: String
    /// The cookie path; always starts with `/`.
    public var path: String
    /// When the cookie expires; `nil` for a session (non-persistent) cookie.
    public var expiresAt: Date?
    /// When the cookie was first stored (kept when a cookie is replaced).
    public var creationTime: Date
    /// When the cookie was last sent or stored.
    public var lastAccessTime: Date
    /// The cookie is only sent over secure connections.
    public var isSecure: Bool
    /// The cookie is hidden from non-HTTP APIs such as `document.cookie`.
    public var isHttpOnly: Bool
    /// The cookie is only sent to exactly ``domain`` (it had no `Domain` attribute).
    public var isHostOnly: Bool
    /// The cookie's `SameSite` enforcement.
    public var sameSite: SameSite
    /// The cookie carried the `Partitioned` attribute (CHIPS).
    public var isPartitioned: Bool
    /// The top-level site a partitioned cookie was set under (`https://example.com`: scheme and
    /// registrable domain), the only one it is sent under (CHIPS); `nil` for an unpartitioned
    /// cookie. Part of the cookie's identity: one name may live in several partitions.
    public var partitionKey: String?

    /// A persistent cookie has an expiry time; a session cookie does not.
    public var isPersistent: Bool { expiresAt != nil }

    /// Creates a cookie from its storage-model fields.
    public init(
        name: String,
        value: String,
        domain: String,
        path: String = "/",
        expiresAt: Date? = nil,
        creationTime: Date = Date(),
        lastAccessTime: Date? = nil,
        isSecure: Bool = false,
        isHttpOnly: Bool = false,
        isHostOnly: Bool = true,
        sameSite: SameSite = .unspecified,
        isPartitioned: Bool = false,
        partitionKey: String? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path
        self.expiresAt = expiresAt
        self.creationTime = creationTime
        self.lastAccessTime = lastAccessTime ?? creationTime
        self.isSecure = isSecure
        self.isHttpOnly = isHttpOnly
        self.isHostOnly = isHostOnly
        self.sameSite = sameSite
        self.isPartitioned = isPartitioned
        self.partitionKey = partitionKey
    }

    /// Whether the cookie has expired at `date`.
    public func isExpired(at date: Date) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt <= date
    }

    /// The cookie as it appears in a `Cookie` header: `name=value`, or just `value` when nameless.
    public var headerPair: String {
        name.isEmpty ? value : name + "=" + value
    }

    /// Whether `other` holds the same value and attributes (expiry, `Secure`, `HttpOnly`,
    /// `SameSite`, partitioned): storing one over the other changes nothing a request or a
    /// script sees. Times of creation and last access are not compared.
    public func hasSameContent(as other: Cookie) -> Bool {
        value == other.value && expiresAt == other.expiresAt && isSecure == other.isSecure && isHttpOnly == other.isHttpOnly
            && sameSite == other.sameSite && isPartitioned == other.isPartitioned
    }

    /// Whether `other` has the same identity (name, domain, host-only flag, path and partition key).
    public func hasSameIdentity(as other: Cookie) -> Bool {
        name == other.name && domain == other.domain && isHostOnly == other.isHostOnly && path == other.path
            && partitionKey == other.partitionKey
    }

    /// What tells a cookie from every other a store holds: its name, domain, host-only flag,
    /// path and partition key (a cookie of the same identity replaces it).
    public struct Identity: Hashable, Sendable {
        /// The cookie's name.
        public let name: String
        /// Its domain, without a leading dot.
        public let domain: String
        /// Its path.
        public let path: String
        /// Whether it is sent to its domain's host only.
        public let isHostOnly: Bool
        /// Its partition's top-level site, for a partitioned cookie.
        public let partitionKey: String?
    }

    /// The cookie's identity, as a key.
    public var identity: Identity {
        Identity(name: name, domain: domain, path: path, isHostOnly: isHostOnly, partitionKey: partitionKey)
    }
}

extension Cookie: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A `Set-Cookie`-like rendering with every attribute, for logs and the CLI. The value is
    /// never shown, only its length (a session cookie's value is a credential): read
    /// ``value`` explicitly where it is needed.
    public var description: String {
        var s = name.isEmpty ? "<\(value.utf8.count) bytes>" : "\(name)=<\(value.utf8.count) bytes>"
        s += isHostOnly ? "; HostOnly=\(domain)" : "; Domain=\(domain)"
        s += "; Path=\(path)"
        if let expiresAt { s += "; Expires=\(expiresAt.timeIntervalSince1970)" }
        if isSecure { s += "; Secure" }
        if isHttpOnly { s += "; HttpOnly" }
        if sameSite != .unspecified { s += "; SameSite=\(sameSite.rawValue)" }
        if isPartitioned { s += partitionKey.map { "; Partitioned=\($0)" } ?? "; Partitioned" }
        return s
    }

    /// The same as ``description``: the value stays hidden.
    public var debugDescription: String { description }

    /// What `dump` and debuggers show: every field but the value, which appears as its length.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "name": name, "value": "<\(value.utf8.count) bytes>", "domain": domain, "path": path,
                "expiresAt": expiresAt as Any, "isSecure": isSecure, "isHttpOnly": isHttpOnly,
                "isHostOnly": isHostOnly, "sameSite": sameSite, "isPartitioned": isPartitioned,
                "partitionKey": partitionKey as Any,
            ], displayStyle: .struct)
    }
}
