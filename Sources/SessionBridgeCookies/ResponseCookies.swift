public import Foundation
import Synchronization

/// What the `Set-Cookie` fields of one response did to a ``CookieJar``, parsed once, as
/// operations any other store can replay: the cookies stored and the identities deleted, in
/// order, and how many lines were rejected.
public struct ResponseCookies: Sendable {
    /// The stores and deletions, in the order of the fields.
    public var operations: [CookieWriteOperation]
    /// How many fields the parser or the storage model refused.
    public var rejectedCount: Int

    /// The names of the cookies stored or deleted.
    public var names: Set<String> { Set(operations.map(\.cookie.name)) }
}

extension CookieJar {
    /// Stores each `Set-Cookie` field (never comma-split) from `url`, as ``setCookies(_:from:context:)``
    /// does but as one commit (observers see every change, a batch observer is called once),
    /// and returns what happened as operations to replay on other stores. A deletion
    /// (`Max-Age=0`, a past `Expires`) is reported with its identity even when this jar held no
    /// such cookie, so a store that does hold one deletes it too.
    public func applyResponseCookies(_ lines: [String], from url: URL, context: RequestContext = .sameSite) -> ResponseCookies {
        var result = ResponseCookies(operations: [], rejectedCount: 0)
        guard let request = CookieURL(url) else {
            result.rejectedCount = lines.count
            return result
        }
        let now = clock()
        let hostKey = groupKey(for: request.host, isIP: request.isIPAddress)
        var made: [(cookie: Cookie, key: String)] = []
        made.reserveCapacity(lines.count)
        for line in lines {
            var domainKey: String? = nil
            guard case .success(let parsed) = SetCookieParser.parse(line),
                case .success(let cookie) = makeCookie(
                    parsed, request: request, context: context, fromScript: false, now: now, domainKey: &domainKey)
            else {
                result.rejectedCount += 1
                continue
            }
            made.append((cookie, cookie.domain == request.host ? hostKey : domainKey ?? groupKey(for: cookie)))
        }
        let (operations, rejected, changes, listeners) = state.withLock {
            state -> ([CookieWriteOperation], Int, [CookieChange], Listeners) in
            var operations: [CookieWriteOperation] = []
            var rejected = 0
            var changes: [CookieChange] = []
            for (cookie, key) in made {
                let (outcome, changed) = Self.commitLocked(
                    &state, cookie, key: key, request: request, fromScript: false,
                    limits: limits, now: now)
                changes += changed
                switch outcome {
                case .stored(let stored), .replaced(let stored, _): operations.append(.set(stored))
                case .deleted: operations.append(.delete(cookie))
                case .rejected: rejected += 1
                }
            }
            return (operations, rejected, changes, Listeners(state, changes))
        }
        Self.notify(listeners, changes)
        result.operations = operations
        result.rejectedCount += rejected
        return result
    }
}
