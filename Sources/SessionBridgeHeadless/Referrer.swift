import Foundation
import SessionBridgeMessaging

/// Who asked for a request, as its `Referer` field tells it (the Referrer Policy standard): the
/// URL of the document or script that made it, cut down by a policy.
///
/// The default policy, `strict-origin-when-cross-origin` (WebKit's), sends the whole URL (no
/// fragment, no credentials) to the document's origin, the origin alone to another, and nothing
/// from a secure URL to one that is not.
struct Referrer: Sendable, Hashable {
    /// A referrer policy (`Referrer-Policy`, `<meta name="referrer">`, `referrerPolicy`).
    enum Policy: String, Sendable, Hashable, CaseIterable {
        case noReferrer = "no-referrer"
        case noReferrerWhenDowngrade = "no-referrer-when-downgrade"
        case sameOrigin = "same-origin"
        case origin
        case strictOrigin = "strict-origin"
        case originWhenCrossOrigin = "origin-when-cross-origin"
        case strictOriginWhenCrossOrigin = "strict-origin-when-cross-origin"
        case unsafeURL = "unsafe-url"

        /// The policy a `Referrer-Policy` field sets: its last token that names one; `nil` when
        /// none does.
        init?(field values: [String]) {
            let tokens = values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: [" ", "\t"]).lowercased() }
            guard let last = tokens.last(where: { Policy(rawValue: $0) != nil }) else { return nil }
            self.init(rawValue: last)
        }

        /// The policy a `<meta name="referrer">`'s `content` sets, its legacy names included.
        init?(meta content: String) {
            let legacy: [String: Policy] = [
                "never": .noReferrer, "default": .strictOriginWhenCrossOrigin, "always": .unsafeURL,
                "origin-when-crossorigin": .originWhenCrossOrigin,
            ]
            let name = content.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            guard let policy = Policy(rawValue: name) ?? legacy[name] else { return nil }
            self = policy
        }
    }

    /// The URL that made the request; `nil` for none.
    var source: URL?
    var policy: Policy

    init(source: URL?, policy: Policy = .strictOriginWhenCrossOrigin) {
        self.source = source
        self.policy = policy
    }

    /// The `Referer` field's value for a request to `target`, `nil` for none (Referrer Policy:
    /// determine request's referrer).
    func value(for target: URL) -> String? {
        guard let source, let full = Self.stripped(source), let sourceOrigin = SecurityOrigin(url: source) else { return nil }
        let origin = sourceOrigin.description + "/"
        // A long URL is sent as its origin.
        let url = full.utf8.count > 4096 ? origin : full
        let sameOrigin = sourceOrigin == SecurityOrigin(url: target)
        let downgrade = Self.isPotentiallyTrustworthy(source) && !Self.isPotentiallyTrustworthy(target)
        switch policy {
        case .noReferrer: return nil
        case .origin: return origin
        case .unsafeURL: return url
        case .strictOrigin: return downgrade ? nil : origin
        case .strictOriginWhenCrossOrigin: return sameOrigin ? url : downgrade ? nil : origin
        case .sameOrigin: return sameOrigin ? url : nil
        case .originWhenCrossOrigin: return sameOrigin ? url : origin
        case .noReferrerWhenDowngrade: return downgrade ? nil : url
        }
    }

    /// Whether `url` is potentially trustworthy (Secure Contexts): `https`, `wss` and `file`,
    /// and loopback hosts (`localhost`, `127.0.0.0/8`, `::1`).
    static func isPotentiallyTrustworthy(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "https", "wss", "file": return true
        case "http", "ws":
            guard let host = url.host?.lowercased() else { return false }
            if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "[::1]" { return true }
            let octets = host.split(separator: ".", omittingEmptySubsequences: false)
            return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
        default: return false
        }
    }

    /// `url` as a referrer, without fragment and credentials; `nil` for a URL that is no
    /// HTTP(S) one.
    private static func stripped(_ url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        return strippedURL(url)
    }

    /// `url` without its fragment and credentials, its path `/` at least (WebKit's URL
    /// "stripped for use as referrer", which its Content Security Policy reports too).
    static func strippedURL(_ url: URL) -> String {
        // The common case, without parsing the URL again: no credentials, a path.
        if url.user == nil, url.password == nil, !url.path.isEmpty {
            let text = url.absoluteString
            return text.firstIndex(of: "#").map { String(text[..<$0]) } ?? text
        }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        components.user = nil
        components.password = nil
        components.fragment = nil
        if components.path.isEmpty { components.path = "/" }
        return components.string ?? url.absoluteString
    }
}
