import Foundation

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
    /// does, and returns what happened as operations to replay on other stores. A deletion
    /// (`Max-Age=0`, a past `Expires`) is reported with its identity even when this jar held no
    /// such cookie, so a store that does hold one deletes it too.
    public func applyResponseCookies(_ lines: [String], from url: URL, context: RequestContext = .sameSite) -> ResponseCookies {
        var result = ResponseCookies(operations: [], rejectedCount: 0)
        guard let request = CookieURL(url) else {
            result.rejectedCount = lines.count
            return result
        }
        result.operations.reserveCapacity(lines.count)
        for line in lines {
            guard case .success(let parsed) = SetCookieParser.parse(line) else {
                result.rejectedCount += 1
                continue
            }
            let now = clock()
            guard case .success(let cookie) = makeCookie(parsed, request: request, context: context, fromScript: false, now: now) else {
                result.rejectedCount += 1
                continue
            }
            switch commit(cookie, request: request, fromScript: false, now: now) {
            case .stored(let stored), .replaced(let stored, _): result.operations.append(.set(stored))
            case .deleted: result.operations.append(.delete(cookie))
            case .rejected: result.rejectedCount += 1
            }
        }
        return result
    }
}
