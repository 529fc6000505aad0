public import Foundation

extension CookieJar {
    /// What `document.cookie` returns in a document at `url`: the cookies a same-site request
    /// would carry, without `HttpOnly` ones.
    public func documentCookie(for url: URL) -> String {
        guard let request = CookieURL(url) else { return "" }
        return Self.cookieHeader(matchingCookies(for: request, context: .sameSite, httpAPI: false, touch: true))
    }

    /// The cookies a script of a document at `url` sees (`document.cookie`'s, the Cookie Store
    /// API's): those a same-site request would carry, without `HttpOnly` ones, in send order.
    public func documentCookies(for url: URL) -> [Cookie] {
        guard let request = CookieURL(url) else { return [] }
        return matchingCookies(for: request, context: .sameSite, httpAPI: false, touch: true)
    }

    /// Whether a script of a document at `url` sees `cookie` (is one of ``documentCookies(for:)``
    /// if it is stored and unexpired): for telling such a document of a ``CookieChange``.
    public func isVisibleToScripts(_ cookie: Cookie, at url: URL) -> Bool {
        guard let request = CookieURL(url) else { return false }
        let domainIsHost = cookie.domain == request.host
        let domainMatches =
            domainIsHost
            || (!cookie.isHostOnly && CookieURL.domainMatches(host: request.host, isIP: request.isIPAddress, domain: cookie.domain))
        guard domainMatches else { return false }
        return Self.shouldSend(cookie, to: request, domainIsHost: domainIsHost, context: .sameSite, httpAPI: false)
            && (cookie.partitionKey == nil || cookie.partitionKey == partitionKey(for: request, context: .sameSite))
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
