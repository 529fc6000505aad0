import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import SessionBridgeCookies
import SessionBridgeOAuth

extension SessionController {
    // MARK: Cookie-based refresh

    /// The names of cookies that never leave the native store.
    nonisolated var nativeOnlyCookieNames: Set<String> {
        configuration.cookieRefresh.map { [$0.cookieName] } ?? []
    }

    /// Whether the native store holds the refresh credential of a ``CookieRefresh``.
    var hasRefreshCookie: Bool {
        guard let refresh = configuration.cookieRefresh else { return false }
        return cookieJar.cookies(for: refresh.url).contains { $0.name == refresh.cookieName && !$0.value.isEmpty }
    }

    /// Whether there is a session to refresh: a refresh token in the vault, or the refresh cookie.
    var hasSession: Bool { record != nil || hasRefreshCookie }

    /// `operations` without the native-only cookies.
    func withoutNativeOnlyCookies(_ operations: [CookieWriteOperation]) -> [CookieWriteOperation] {
        let hidden = nativeOnlyCookieNames
        guard !hidden.isEmpty else { return operations }
        return operations.filter { !hidden.contains($0.cookie.name) }
    }

    /// One cookie-based refresh: the native store's cookies for the refresh URL (the credential
    /// among them) are sent, and every `Set-Cookie` of the answer applied before returning.
    ///
    /// A `401` or `403` ends the session (``SessionError/Code/invalidGrant``); no answer,
    /// `429` and `5xx` are retryable and change nothing.
    func performCookieRefresh(_ refresh: CookieRefresh) async -> (Result<SessionStatus, SessionError>, signedOutReason: String?) {
        guard hasRefreshCookie else {
            return (.failure(SessionError.signedOut), nil)
        }
        guard refresh.url.hasPortInRange else {
            return (.failure(SessionError(.invalidConfiguration, "the cookie refresh URL's port is out of range (0-65535)")), nil)
        }
        networkRefreshCount += 1
        var request = HTTPClientRequest(url: refresh.url.absoluteString)
        request.method = .init(rawValue: refresh.method.uppercased())
        let context = RequestContext(isCrossSite: false, isTopLevelNavigation: false, method: refresh.method.uppercased())
        if let header = cookieJar.cookieHeader(for: refresh.url, context: context) {
            request.headers.add(name: "Cookie", value: header)
        }
        request.headers.add(name: "Accept", value: "application/json")
        if request.method == .POST { request.headers.add(name: "Content-Length", value: "0") }
        let generation = sessionGeneration
        let response: HTTPClientResponse
        do {
            response = try await configuration.httpClient.execute(request, timeout: .init(configuration.requestTimeout))
            _ = try await response.body.collect(upTo: 1 << 20)
        } catch {
            logger.warning("cookie refresh failed", metadata: ["code": "network"])
            return (.failure(SessionError(.network, "the refresh endpoint did not answer")), nil)
        }
        // The session ended while the request was out: its cookies are not written back.
        guard generation == sessionGeneration else { return (.failure(SessionError.signedOut), nil) }
        let status = Int(response.status.code)
        let lines = response.headers["set-cookie"]
        switch status {
        case 200..<300:
            await applySetCookies(lines, from: refresh.url)
            logger.debug("refreshed the session with the refresh cookie")
            return (.success(currentStatus), nil)
        case 401, 403:
            logger.notice("the server refused the refresh cookie; the session ended")
            await applySetCookies(lines, from: refresh.url)
            await endSessionLocally()
            return (.failure(SessionError(.invalidGrant, "the server ended the session")), "invalid_grant")
        case 429, 500..<600:
            return (.failure(SessionError(.serverError, "the refresh endpoint is unavailable (HTTP \(status))")), nil)
        default:
            return (.failure(SessionError(.serverError, "the refresh endpoint refused the request (HTTP \(status))")), nil)
        }
    }
}
