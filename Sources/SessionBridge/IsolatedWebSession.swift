import SessionBridgeOAuth

/// A web session of the page's own, cloned from the native session by OAuth 2.0 Token
/// Exchange (RFC 8693), so that nothing a page does can rotate or revoke the native session.
///
/// After every sign-in the ``SessionController`` exchanges the native access token
/// (`grant_type=urn:ietf:params:oauth:grant-type:token-exchange`, `subject_token_type`
/// `…:access_token`) for a session of its own: its tokens stay in memory, its cookies (the token
/// endpoint's `Set-Cookie` lines, or the ``SessionExchange`` made with its access token) go to
/// the pages. A page's refresh refreshes that session with its own refresh token, or exchanges
/// again once it ended; the native refresh token is never sent for a page. A page's logout ends
/// the page session only. Native code refreshes its own session with
/// ``SessionController/refreshNativeSession()`` (``SessionHTTPClient`` does), and when the
/// last page detaches the page session is revoked.
///
/// ```swift
/// var configuration = SessionConfiguration(issuer: issuer, clientID: "app", sessionURL: webURL)
/// configuration.isolatedWebSession = IsolatedWebSession()
/// ```
public struct IsolatedWebSession: Sendable, Hashable {
    /// The `requested_token_type` of the exchange: `…:access_token` by default; the server
    /// answers with a refresh token of the page session beside it.
    public var requestedTokenType: String
    /// Whether the page session is revoked at the server when the last page detaches.
    public var revokesWhenPagesDetach: Bool

    /// Creates the mode.
    ///
    /// - Parameters:
    ///   - requestedTokenType: the `requested_token_type` sent with the exchange.
    ///   - revokesWhenPagesDetach: revoke the page session when the last page detaches.
    public init(requestedTokenType: String = TokenGrant.TokenType.accessToken, revokesWhenPagesDetach: Bool = true) {
        self.requestedTokenType = requestedTokenType
        self.revokesWhenPagesDetach = revokesWhenPagesDetach
    }
}
