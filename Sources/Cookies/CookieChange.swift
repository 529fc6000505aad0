/// A change to a ``CookieJar``'s contents, delivered to observers.
///
/// Enough to make another store follow the jar: apply ``Kind-swift.enum/added`` and
/// ``Kind-swift.enum/replaced`` as inserts, and every other kind as a removal of ``cookie``.
public struct CookieChange: Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    public enum Kind: String, Sendable, Hashable {
        /// A new cookie was stored.
        case added
        /// A cookie with the same identity was overwritten (see ``CookieChange/previous``).
        case replaced
        /// A cookie was removed on purpose (a past `Expires`, `Max-Age=0`, or an API call).
        case deleted
        /// A cookie was found expired and dropped.
        case expired
        /// A cookie was dropped to keep the jar within its limits.
        case evicted
    }

    /// What made the change.
    public enum Cause: String, Sendable, Hashable {
        /// A `Set-Cookie` header of an HTTP response.
        case httpResponse
        /// A `document.cookie` assignment.
        case script
        /// A direct call on the jar (`insert`, `remove`, `removeAll`, `replaceAll`).
        case api
        /// The cookie's expiry time passed.
        case expiry
        /// The jar's per-domain or total limit.
        case eviction
    }

    /// What happened.
    public var kind: Kind
    /// The cookie added, or the one removed.
    public var cookie: Cookie
    /// For ``Kind-swift.enum/replaced``: the cookie that was overwritten.
    public var previous: Cookie?
    /// What made the change.
    public var cause: Cause

    /// Creates a change record.
    public init(kind: Kind, cookie: Cookie, previous: Cookie? = nil, cause: Cause) {
        self.kind = kind
        self.cookie = cookie
        self.previous = previous
        self.cause = cause
    }

    public var description: String { "\(kind.rawValue) (\(cause.rawValue)): \(cookie)" }
}

/// The outcome of storing one `Set-Cookie` value or `document.cookie` assignment.
public enum SetCookieOutcome: Sendable, Hashable, CustomStringConvertible {
    /// A new cookie was stored.
    case stored(Cookie)
    /// An existing cookie with the same identity was replaced (its creation time kept).
    case replaced(Cookie, previous: Cookie)
    /// The cookie arrived already expired (`Max-Age<=0` or a past `Expires`): the matching
    /// cookie, if there was one, was deleted.
    case deleted(Cookie?)
    /// The value was ignored entirely, for this reason.
    case rejected(SetCookieError)

    /// The stored cookie for ``stored(_:)`` and ``replaced(_:previous:)``.
    public var cookie: Cookie? {
        switch self {
        case .stored(let c), .replaced(let c, _): return c
        default: return nil
        }
    }

    /// The rejection reason, if any.
    public var error: SetCookieError? {
        if case .rejected(let e) = self { return e }
        return nil
    }

    public var description: String {
        switch self {
        case .stored(let c): return "stored \(c)"
        case .replaced(let c, _): return "replaced \(c)"
        case .deleted(let c): return c.map { "deleted \($0)" } ?? "deleted (nothing matched)"
        case .rejected(let e): return "rejected: \(e)"
        }
    }
}

/// Limits a ``CookieJar`` enforces.
public struct CookieJarLimits: Sendable, Hashable {
    /// Most cookies sharing one domain field.
    public var perDomain: Int
    /// Most cookies in the jar.
    public var total: Int
    /// The longest lifetime a cookie may be given, in seconds (the draft: 400 days or less).
    public var maximumAge: Double

    /// Creates limits; the defaults are 180 per domain, 3000 in all, 400 days.
    public init(perDomain: Int = 180, total: Int = 3000, maximumAge: Double = 400 * 86_400) {
        self.perDomain = perDomain
        self.total = total
        self.maximumAge = maximumAge
    }

    /// 180 per domain, 3000 in all, 400 days.
    public static let `default` = CookieJarLimits()
}
