public import Foundation

/// The web product's endpoint that turns a bearer access token into its own web session
/// cookies: the step that signs the page in when the token endpoint answers JSON only, as
/// identity providers do (RFC 6749 §5.1).
///
/// After every sign-in and every refresh, the ``SessionController`` calls it with the access
/// token it holds in memory, parses every `Set-Cookie` of the answer (deletions included) and
/// applies them to the native store and every attached page before a caller is released and
/// before a held navigation continues.
///
/// ```swift
/// var configuration = SessionConfiguration(issuer: issuer, clientID: "app", sessionURL: webURL)
/// configuration.sessionExchange = SessionExchange(
///     url: webURL.appending(path: "session/exchange"), sessionCookieName: "web_session")
/// ```
public struct SessionExchange: Sendable, Hashable {
    /// How the access token travels to the exchange endpoint.
    public enum AccessTokenPresentation: Sendable, Hashable {
        /// `Authorization: Bearer <access token>` (RFC 6750 §2.1), or `Authorization: DPoP`
        /// with a proof when the token is DPoP-bound (RFC 9449 §7.1).
        case authorizationBearer
        /// A header of the web product's choosing holding the bare access token.
        case header(String)
    }

    /// The exchange endpoint.
    public var url: URL
    /// The HTTP method (`POST` by default).
    public var method: String
    /// How the access token is sent.
    public var accessTokenPresentation: AccessTokenPresentation
    /// The web session cookie the exchange sets, if it is not
    /// ``SessionConfiguration/sessionCookieName``: its absence or near expiry in a page's store
    /// makes a navigation refresh first.
    public var sessionCookieName: String?

    /// Creates an exchange step.
    ///
    /// - Parameters:
    ///   - url: the exchange endpoint, such as `https://app.example/session/exchange`.
    ///   - method: the HTTP method.
    ///   - accessTokenPresentation: how the access token is sent.
    ///   - sessionCookieName: the web session cookie the endpoint sets.
    public init(
        url: URL, method: String = "POST", accessTokenPresentation: AccessTokenPresentation = .authorizationBearer,
        sessionCookieName: String? = nil
    ) {
        self.url = url
        self.method = method
        self.accessTokenPresentation = accessTokenPresentation
        self.sessionCookieName = sessionCookieName
    }
}
