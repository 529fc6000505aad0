import Foundation

/// A page's load the engine refused before the page could read it, and what WebKit's console
/// says of it: the CORS protocol's refusal, mixed content, or a restricted port.
enum BlockedLoad {
    /// The Fetch Standard's bad ports: no request goes to one, as in WebKit (a page cannot
    /// make a browser speak HTTP to a mail or an X11 server).
    static let restrictedPorts: Set<Int> = [
        0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111,
        113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548,
        554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665,
        6666, 6667, 6668, 6669, 6679, 6697, 10080,
    ]

    /// Whether `url` names a restricted port of its own (a scheme's default one never is).
    static func isRestrictedPort(_ url: URL) -> Bool {
        guard let port = url.port else { return false }
        return restrictedPorts.contains(port)
    }

    /// The console's line for a request of `url` refused for its port.
    static func restrictedPortLine(_ url: URL) -> String {
        "Not allowed to use restricted network port \(url.port ?? 0): \(url.absoluteString)"
    }

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
