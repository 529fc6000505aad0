/// The `Set-Cookie` lines the server sends. Each string is one header line.
enum SessionCookies {
    /// Name of the HttpOnly access-token cookie.
    static let session = "__Host-session"
    /// Name of the script-readable expiry cookie.
    static let expires = "session_expires"
    /// Name of the script-readable CSRF cookie.
    static let csrf = "csrf_token"
    /// Name of the HttpOnly web refresh cookie (the web app's own refresh).
    static let webRefresh = "__Host-web_refresh"
    /// Name of the HttpOnly web session cookie `POST /session/exchange` sets.
    static let webSession = "web_session"
    /// Name of the long-lived preference cookie a realistic backend sets.
    static let theme = "theme"

    static let epoch = "Thu, 01 Jan 1970 00:00:00 GMT"

    /// Cookies establishing a web session.
    static func established(
        tokens: IssuedTokens,
        accessLifetime: Int,
        webRefreshLifetime: Int?
    ) -> [String] {
        var lines = [
            "\(session)=\(tokens.accessToken); Path=/; Max-Age=\(accessLifetime); HttpOnly; Secure; SameSite=Lax",
            "\(expires)=\(tokens.claims.exp); Path=/; Max-Age=\(accessLifetime); SameSite=Lax",
            "\(csrf)=\(RandomToken.make(prefix: "", byteCount: 16)); Path=/; SameSite=Strict",
            "\(theme)=light; Path=/; Max-Age=31536000; SameSite=Lax",
        ]
        if let webRefreshLifetime {
            lines.append(
                "\(webRefresh)=\(tokens.refreshToken); Path=/; Max-Age=\(webRefreshLifetime); HttpOnly; Secure; SameSite=Strict"
            )
        }
        return lines
    }

    /// Deletions on logout: some by `Max-Age=0`, others by an `Expires` in the past.
    static func deletions() -> [String] {
        [
            "\(session)=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax",
            "\(expires)=; Path=/; Expires=\(epoch); SameSite=Lax",
            "\(csrf)=; Path=/; Max-Age=0; SameSite=Strict",
            "\(webRefresh)=; Path=/; Expires=\(epoch); HttpOnly; Secure; SameSite=Strict",
        ]
    }

    /// Garbage lines for ``FaultConfiguration/garbageSetCookie``.
    static func garbage() -> [String] {
        [
            "this-is-not-a-cookie",
            "=no-name; Path=/",
            "bad_attributes=1; Max-Age=soon; Expires=yesterday; Domain=..; SameSite=Sideways",
            "control=a\u{7F}b; Path=/",
            "oversized=" + String(repeating: "x", count: 8200) + "; Path=/",
        ]
    }
}
