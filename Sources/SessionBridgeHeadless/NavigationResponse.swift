public import Foundation

/// A response a navigation received, for the ``NavigationDelegate`` to accept or refuse.
/// It carries the status and header names and values, with `Set-Cookie` values removed.
public struct NavigationResponse: Sendable, Hashable {
    public var url: URL
    public var statusCode: Int
    /// Header fields, `Set-Cookie` excluded.
    public var headers: [HTTPHeader]
    /// The names of the cookies the response set (values never shown).
    public var setCookieNames: [String]

    public init(url: URL, statusCode: Int, headers: [HTTPHeader], setCookieNames: [String]) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.setCookieNames = setCookieNames
    }
}
