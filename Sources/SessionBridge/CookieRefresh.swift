public import Foundation

/// A cookie-centred web product's refresh: the refresh credential is a cookie that lives only
/// in the native store, sent to the product's refresh URL, whose answer's `Set-Cookie` lines
/// (the rotated credential and the web session) are written back.
///
/// The credential cookie is native-only: it is never copied into a page's store, so no page
/// request carries it and `document.cookie` never shows it. Every other cookie of the answer
/// reaches the pages as a token endpoint's would.
///
/// ```swift
/// var configuration = SessionConfiguration(server: webURL)
/// configuration.cookieRefresh = CookieRefresh(cookieName: "__Host-web_refresh",
///                                             url: webURL.appending(path: "session/refresh"))
/// ```
public struct CookieRefresh: Sendable, Hashable {
    /// The refresh credential's cookie name.
    public var cookieName: String
    /// Where the credential is sent.
    public var url: URL
    /// The HTTP method (`POST` by default).
    public var method: String

    /// Creates a cookie-based refresh.
    ///
    /// - Parameters:
    ///   - cookieName: the refresh credential's cookie, kept in the native store only.
    ///   - url: the web product's refresh endpoint.
    ///   - method: the HTTP method.
    public init(cookieName: String, url: URL, method: String = "POST") {
        self.cookieName = cookieName
        self.url = url
        self.method = method
    }
}
