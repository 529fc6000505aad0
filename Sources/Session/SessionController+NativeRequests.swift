import Cookies
import Foundation
import SessionBridgeOAuth

extension SessionController {
    // MARK: Native requests

    /// The access token in memory while it is valid past the refresh margin, for
    /// ``SessionHTTPClient``.
    func freshAccessToken() -> Secret? {
        hasFreshAccessToken ? accessToken : nil
    }

    /// Applies a native request's `Set-Cookie` lines (deletions included) to the native store
    /// and every attached page; returns what was applied.
    func applyNativeResponseCookies(_ lines: [String], from url: URL, context: RequestContext) async -> [CookieWriteOperation] {
        guard !lines.isEmpty else { return [] }
        let applied = cookieJar.applyResponseCookies(lines, from: url, context: context)
        await fanOut(applied.operations)
        publish()  // a native sign-in to a cookie-refresh product starts the session
        return applied.operations
    }
}
