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
