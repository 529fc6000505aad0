public import Foundation
import SessionBridgeCookies
import SessionBridgeMessaging

/// The standard web-side scripts, shipped as package resources (`Scripts/*.js`).
///
/// - ``refreshUserScript(handlerName:refreshPath:)``: `window.sessionBridge.refresh()`, which
///   asks native code through the bridge inside the app and POSTs the web refresh endpoint in a
///   plain browser; concurrent calls share one promise.
/// - ``fetchRetryUserScript(handlerName:)``: wraps `fetch` so a `401` refreshes once and retries.
/// - ``cookieInjectionUserScript(for:now:)``: sets non-HttpOnly cookies through
///   `document.cookie` at document start, never overwriting one the page has.
public enum StandardScripts {
    /// Which scripts ``SessionController/install(in:allowedOrigins:name:scripts:)`` adds.
    public struct Selection: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// The context-aware refresh script.
        public static let refresh = Selection(rawValue: 1 << 0)
        /// The retry-after-refresh `fetch` wrapper.
        public static let fetchRetry = Selection(rawValue: 1 << 1)
    }

    /// The source of a bundled script, `nil` if the resource is missing.
    public static func resource(named name: String) -> String? {
        guard
            let url = Bundle.module.url(forResource: name, withExtension: "js", subdirectory: "Scripts")
                ?? Bundle.module.url(forResource: name, withExtension: "js")
        else { return nil }
        return try? String(contentsOf: url, encoding: .utf8)
    }

    /// The context-aware refresh script's source, configured.
    public static func refreshScript(handlerName: String = "session", refreshPath: String = "/session/refresh") -> String {
        configure(
            resource(named: "session-refresh") ?? "", marker: "/*CONFIG*/",
            json: json(["handlerName": handlerName, "refreshPath": refreshPath]))
    }

    /// The refresh script as a document-start user script in the page world.
    public static func refreshUserScript(handlerName: String = "session", refreshPath: String = "/session/refresh") -> UserScript {
        var script = UserScript(
            source: refreshScript(handlerName: handlerName, refreshPath: refreshPath), injectionTime: .atDocumentStart,
            forMainFrameOnly: false, sourceURL: "sessionbridge://session-refresh.js")
        // It defines `window.sessionBridge` and reads the document only when called.
        script.isDocumentIndependent = true
        return script
    }

    /// The `fetch` wrapper's source, configured.
    public static func fetchRetryScript(handlerName: String = "session") -> String {
        configure(resource(named: "fetch-retry") ?? "", marker: "/*CONFIG*/", json: json(["handlerName": handlerName]))
    }

    /// The `fetch` wrapper as a document-start user script in the page world.
    public static func fetchRetryUserScript(handlerName: String = "session") -> UserScript {
        var script = UserScript(
            source: fetchRetryScript(handlerName: handlerName), injectionTime: .atDocumentStart,
            forMainFrameOnly: false, sourceURL: "sessionbridge://fetch-retry.js")
        // It wraps the engine's own `fetch`, which the document's prelude defines before any
        // script, and reads `location` only when a request is answered 401.
        script.isDocumentIndependent = true
        return script
    }

    /// The cookie injection script for `cookies`: HttpOnly, expired, nameless cookies and
    /// cookies that `document.cookie` cannot express are left out. Every string is
    /// JSON-encoded, so no value can break out of the script.
    public static func cookieInjectionScript(for cookies: [Cookie], now: Date = Date()) -> String {
        let entries = cookies.compactMap { cookie -> [String: String]? in
            guard !cookie.isHttpOnly, !cookie.isExpired(at: now), !cookie.name.isEmpty,
                isExpressible(cookie.name, allowEquals: false), isExpressible(cookie.value, allowEquals: true)
            else { return nil }
            return ["name": cookie.name, "line": documentCookieLine(for: cookie)]
        }
        let data = (try? JSONEncoder().encode(entries)) ?? Data("[]".utf8)
        return configure(
            resource(named: "cookie-injection") ?? "", marker: "/*COOKIES*/",
            json: String(decoding: data, as: UTF8.self))
    }

    /// The cookie injection script as a document-start user script in the page world.
    public static func cookieInjectionUserScript(for cookies: [Cookie], now: Date = Date()) -> UserScript {
        UserScript(
            source: cookieInjectionScript(for: cookies, now: now), injectionTime: .atDocumentStart,
            forMainFrameOnly: false, sourceURL: "sessionbridge://cookie-injection.js")
    }

    /// `name=value; Path=…; [Domain=…;] [Expires=…;] [Secure;] [SameSite=…]`.
    static func documentCookieLine(for cookie: Cookie) -> String {
        var line = cookie.name + "=" + cookie.value + "; Path=" + cookie.path
        if !cookie.isHostOnly { line += "; Domain=" + cookie.domain }
        if let expiresAt = cookie.expiresAt { line += "; Expires=" + httpDate(expiresAt) }
        if cookie.isSecure { line += "; Secure" }
        switch cookie.sameSite {
        case .strict: line += "; SameSite=Strict"
        case .lax: line += "; SameSite=Lax"
        case .none: line += "; SameSite=None"
        case .unspecified: break
        }
        return line
    }

    static func isExpressible(_ s: String, allowEquals: Bool) -> Bool {
        !s.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == ";" || (!allowEquals && $0 == "=") }
    }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    static func json(_ object: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(object)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// Replaces the literal after `marker` (up to the script's final `)`) with `json`.
    static func configure(_ source: String, marker: String, json: String) -> String {
        guard let start = source.range(of: marker), let end = source.range(of: ")", options: .backwards),
            start.upperBound <= end.lowerBound
        else { return source }
        return String(source[..<start.upperBound]) + json + String(source[end.lowerBound...])
    }
}
