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
        /// The page's, one of the two above, where the store cannot say which: WebKit's store
        /// says only that its cookies changed. A change to an `HttpOnly` cookie, which no
        /// script can make, is reported as ``httpResponse``.
        case webContent
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
