import Foundation
import Synchronization

/// A document's URL, which changes without a new document when a script calls
/// `history.pushState` or `replaceState`, traverses those entries, or navigates to a fragment.
/// Shared by every world of the document; `version` counts the changes, so a world's cached
/// `location` knows when to read it again.
final class DocumentURL: Sendable {
    private let state: Mutex<(url: URL, version: Int)>

    init(_ url: URL) {
        state = Mutex((url, 0))
    }

    var url: URL { state.withLock { $0.url } }

    var current: (url: URL, version: Int) { state.withLock { $0 } }

    func replace(with url: URL) {
        state.withLock { $0 = (url, $0.version + 1) }
    }

    /// Whether a document at `from` may show `to` without a new document (HTML's "can have its
    /// URL rewritten"): the same scheme, credentials, host and port; for `file:` also the same
    /// path, and for other schemes than `http`, `https` and `file` the same path and query.
    static func canRewrite(_ from: URL, to: URL) -> Bool {
        guard from.scheme?.lowercased() == to.scheme?.lowercased(), from.user == to.user, from.password == to.password,
            from.host?.lowercased() == to.host?.lowercased(), from.port == to.port
        else { return false }
        switch from.scheme?.lowercased() {
        case "http", "https": return true
        case "file": return from.path == to.path
        default: return from.path == to.path && from.query == to.query
        }
    }

    /// Whether `to` is `from` with another fragment, which a navigation reaches without a new
    /// document.
    static func isFragmentNavigation(_ from: URL, to: URL) -> Bool {
        guard to.fragment != nil else { return false }
        return withoutFragment(from) == withoutFragment(to)
    }

    /// `url`'s text without its fragment, as Fetch serializes a response's URL.
    static func withoutFragment(_ url: URL) -> String {
        let text = url.absoluteString
        return text.firstIndex(of: "#").map { String(text[..<$0]) } ?? text
    }
}
