import ArgumentParser
import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeOAuth
import SessionBridgeTesting

/// How the page gets its web session when the token endpoint's answer does not sign it in:
/// a session exchange, or a cookie-based refresh. URLs may be absolute or paths on the server.
struct WebSessionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "After every sign-in and refresh, exchange the access token (Authorization: Bearer) at this URL for the web session's cookies. With the embedded server, its token endpoint then sets no cookie.",
            valueName: "URL"))
    var sessionExchange: String?

    @Option(help: ArgumentHelp("The web session cookie the exchange sets (navigations refresh when it is missing).", valueName: "NAME"))
    var exchangeCookie: String = "web_session"

    @Option(help: ArgumentHelp("Refresh with this native-only cookie (never copied to a page) sent to --refresh-url.", valueName: "NAME"))
    var refreshCookie: String?

    @Option(help: ArgumentHelp("Where --refresh-cookie is sent.", valueName: "URL"))
    var refreshURL: String?

    @Flag(
        help:
            "Prove possession of the tokens with a DPoP key (RFC 9449) generated for the run and held natively; the server binds the refresh token to it. With the embedded server, its DPoP nonces are required."
    )
    var dpop = false

    @Flag(
        help:
            "Give the page a session of its own, obtained from the native one by token exchange (RFC 8693): the page's refreshes and logout never touch the native session."
    )
    var isolatedSession = false

    func validate() throws {
        if (refreshCookie == nil) != (refreshURL == nil) { throw ValidationError("--refresh-cookie and --refresh-url go together") }
        if sessionExchange != nil, refreshCookie != nil { throw ValidationError("use either --session-exchange or --refresh-cookie") }
        if refreshCookie != nil, dpop || isolatedSession {
            throw ValidationError(
                "--refresh-cookie refreshes with a cookie, not a token: it goes with neither --dpop nor --isolated-session")
        }
        for (flag, value) in [("--session-exchange", sessionExchange), ("--refresh-url", refreshURL)] {
            if let value, Self.isInvalid(value) {
                throw ValidationError("\(flag) must be an absolute URL or a path such as /session/exchange")
            }
        }
        if let refreshCookie, refreshCookie.isEmpty || refreshCookie.contains(where: { ";=, \t".contains($0) }) {
            throw ValidationError("--refresh-cookie must be a cookie name")
        }
    }

    static func isInvalid(_ value: String) -> Bool {
        value.hasPrefix("/") ? URL(string: value) == nil : URL(string: value)?.host == nil
    }

    /// Whether any option was given.
    var isSet: Bool { sessionExchange != nil || refreshCookie != nil || dpop || isolatedSession }

    /// Adds the exchange or cookie refresh to `configuration`, with paths resolved on `server`.
    func apply(to configuration: inout SessionConfiguration, server: URL) {
        if let sessionExchange {
            configuration.sessionExchange = SessionExchange(
                url: Self.resolve(sessionExchange, on: server), sessionCookieName: exchangeCookie)
        }
        if let refreshCookie, let refreshURL {
            configuration.cookieRefresh = CookieRefresh(cookieName: refreshCookie, url: Self.resolve(refreshURL, on: server))
        }
        if dpop { configuration.dpopKey = DPoPKey() }
        if isolatedSession { configuration.isolatedWebSession = IsolatedWebSession() }
    }

    /// Makes the embedded server the backend these options describe: a token endpoint that sets
    /// no cookie for an exchange; one that also sets `__Host-web_refresh` for a cookie refresh,
    /// which must then be the cookie named: under another name the session would not know it
    /// for its own, and would copy it to the page's store like any cookie.
    func apply(to configuration: inout ReferenceServerConfiguration) throws {
        if let refreshCookie, refreshCookie != ReferenceServer.webRefreshCookieName {
            throw ValidationError(
                "with the embedded server, --refresh-cookie is \(ReferenceServer.webRefreshCookieName), the cookie its token endpoint sets (a cookie of another name would be copied to the page like any other)"
            )
        }
        if sessionExchange != nil { configuration.tokenEndpointSetsCookies = false }
        if refreshCookie != nil { configuration.tokenEndpointSetsWebRefreshCookie = true }
        if dpop { configuration.dpopNonces = true }
    }

    /// The server counters these options make worth showing.
    func statistics(_ stats: ServerStats) -> String {
        (sessionExchange != nil ? ", \(stats.sessionExchanges) session exchanges" : "")
            + (refreshCookie != nil ? ", \(stats.webRefreshes) cookie refreshes" : "")
            + (dpop ? ", \(stats.dpopProofs) DPoP proofs, \(stats.dpopNonceChallenges) nonce challenges" : "")
            + (isolatedSession ? ", \(stats.tokenExchanges) token exchanges" : "")
    }

    static func resolve(_ value: String, on server: URL) -> URL {
        URL(string: value, relativeTo: server)!.absoluteURL
    }
}

extension AppWiring {
    /// Starts the embedded reference server shaped by `webSession` and wires a session for it
    /// (not signed in).
    static func embedded(
        server configuration: ReferenceServerConfiguration, webSession: WebSessionOptions, vault: any TokenVault,
        nativeCookieStore: PersistentCookieStore?, allowedOrigins: [SecurityOrigin],
        configure: @Sendable (inout WebPageConfiguration) -> Void
    ) async throws -> AppWiring {
        var serverConfiguration = configuration
        try webSession.apply(to: &serverConfiguration)
        let server = try await ReferenceServer.start(serverConfiguration)
        var session = SessionConfiguration(server: server.baseURL)
        session.refreshTokenReuseGrace = configuration.refreshTokenReuseGrace
        webSession.apply(to: &session, server: server.baseURL)
        return await AppWiring(
            server: server, baseURL: server.baseURL, configuration: session, vault: vault,
            nativeCookieStore: nativeCookieStore, allowedOrigins: allowedOrigins, configure: configure)
    }
}
