import Foundation

/// A page's load the engine refused before the page could read it, and what WebKit's console
/// says of it: the CORS protocol's refusal, or mixed content.
enum BlockedLoad {
    /// The console's lines for a load of `url` that the CORS protocol refused for `reason`:
    /// the reason, then `<who> cannot load <url> due to access control checks.`
    /// (`who` is `Fetch API`, `XMLHttpRequest`, `EventSource`; a script's says `Cannot load script`).
    static func accessControlLines(_ reason: String, loading url: URL, by who: String) -> [String] {
        let load = who == "script" ? "Cannot load script" : "\(who) cannot load"
        return [reason, "\(load) \(url.absoluteString) due to access control checks."]
    }

    /// Whether a request from a document at `page` for `target` is mixed content: the page is
    /// `https` and the request is for `http:` (loopback hosts too, as in WebKit).
    static func isMixedContent(from page: URL, to target: URL) -> Bool {
        page.scheme?.lowercased() == "https" && target.scheme?.lowercased() == "http"
    }

    /// The console's line for a request of `target` from `page` blocked as mixed content.
    static func mixedContentLine(from page: URL, to target: URL) -> String {
        "[blocked] The page at \(page.absoluteString) requested insecure content from \(target.absoluteString). "
            + "This content was blocked and must be served over HTTPS."
    }
}
