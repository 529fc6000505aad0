public import Foundation

extension CookieJar {
    /// What `document.cookie` returns in a document at `url`: the cookies a same-site request
    /// would carry, without `HttpOnly` ones.
    public func documentCookie(for url: URL) -> String {
        guard let request = CookieURL(url) else { return "" }
        return Self.cookieHeader(matchingCookies(for: request, context: .sameSite, httpAPI: false, touch: true))
    }

    /// Assigns `document.cookie = string` in a document at `url`.
    ///
    /// Parsed like `Set-Cookie`, but through a non-HTTP API: it can neither create an `HttpOnly`
    /// cookie nor overwrite (or delete) one.
    @discardableResult
    public func setDocumentCookie(_ string: String, for url: URL) -> SetCookieOutcome {
        switch SetCookieParser.parse(string) {
        case .failure(let error):
            return .rejected(error)
        case .success(let parsed):
            return store(parsed, from: url, context: .sameSite, fromScript: true)
        }
    }
}
