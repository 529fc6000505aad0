public import Foundation

/// The outcome of a committed navigation.
public struct Navigation: Sendable, Hashable {
    /// The document's URL after redirects.
    public var url: URL
    public var statusCode: Int
    /// Each redirect hop's URL, in order.
    public var redirects: [URL]
    /// The document's title, when its HTML has one.
    public var title: String?

    public init(url: URL, statusCode: Int, redirects: [URL], title: String?) {
        self.url = url
        self.statusCode = statusCode
        self.redirects = redirects
        self.title = title
    }
}
