import Foundation
import SessionBridgeCookies
import SessionBridgeMessaging

/// The fields a browser puts on a request of its own accord, as WebKit does: `Accept` (unless
/// the page set one), `Accept-Language`, `Upgrade-Insecure-Requests` on a navigation, and the
/// Fetch Metadata fields a server reads to tell its own pages' requests from other sites'
/// (`Sec-Fetch-Dest`, `Sec-Fetch-Mode`, `Sec-Fetch-Site`).
struct UserAgentFields: Sendable {
    /// `Sec-Fetch-Dest`: `document`, `script`, `empty`.
    var destination: String
    /// `Sec-Fetch-Mode`: `navigate`, `cors`, `no-cors`, `same-origin`.
    var mode: String
    /// The document that asked; `nil` for the app's own navigation (`Sec-Fetch-Site: none`).
    var initiator: URL?
    /// `Accept` when the page set none.
    var accept = "*/*"
    /// The request's cache mode (`fetch`'s `cache`): `no-store` and `reload` ask every cache on
    /// the way for a fresh answer (`Pragma: no-cache`, `Cache-Control: no-cache`), `no-cache` for a
    /// revalidated one (`Cache-Control: max-age=0`), unless the page set those fields itself.
    var cache = "default"

    /// The language `navigator.language` gives.
    static var acceptLanguage: String { PreferredLanguage.current }
    /// What a navigation accepts.
    static let documentAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

    /// A navigation's fields: from `initiator`, or from the app when `nil`.
    static func navigation(from initiator: URL?) -> UserAgentFields {
        UserAgentFields(destination: "document", mode: "navigate", initiator: initiator, accept: documentAccept)
    }

    /// `Sec-Fetch-Site` of the hops in `urls` so far: `same-origin` while each is of the
    /// initiator's origin, `same-site` while each is of its site, `cross-site` from the first
    /// that is not; `none` for the app's own request.
    func site(of urls: [URL], publicSuffixes: PublicSuffixList?) -> String {
        guard let initiator else { return "none" }
        let origin = SecurityOrigin(url: initiator)
        var site = "same-origin"
        for url in urls where origin == nil || SecurityOrigin(url: url) != origin {
            guard DocumentEnvironment.isSameSite(initiator, url, publicSuffixes) else { return "cross-site" }
            site = "same-site"
        }
        return site
    }

    /// The fields for a hop to the last of `urls`, given the page's own `headers`.
    func fields(for urls: [URL], pageHeaders headers: [HTTPHeader], publicSuffixes: PublicSuffixList?) -> [HTTPHeader] {
        var fields: [HTTPHeader] = []
        if !headers.contains(where: { $0.name.lowercased() == "accept" }) { fields.append(HTTPHeader("Accept", accept)) }
        if !headers.contains(where: { $0.name.lowercased() == "accept-language" }) {
            fields.append(HTTPHeader("Accept-Language", Self.acceptLanguage))
        }
        if destination == "document" { fields.append(HTTPHeader("Upgrade-Insecure-Requests", "1")) }
        let hasCacheControl = headers.contains { $0.name.lowercased() == "cache-control" }
        switch cache {
        case "no-store", "reload":
            if !headers.contains(where: { $0.name.lowercased() == "pragma" }) { fields.append(HTTPHeader("Pragma", "no-cache")) }
            if !hasCacheControl { fields.append(HTTPHeader("Cache-Control", "no-cache")) }
        case "no-cache":
            if !hasCacheControl { fields.append(HTTPHeader("Cache-Control", "max-age=0")) }
        default:
            break
        }
        fields.append(HTTPHeader("Sec-Fetch-Dest", destination))
        fields.append(HTTPHeader("Sec-Fetch-Mode", mode))
        fields.append(HTTPHeader("Sec-Fetch-Site", site(of: urls, publicSuffixes: publicSuffixes)))
        return fields
    }
}
