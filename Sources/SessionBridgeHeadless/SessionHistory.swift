import Foundation

/// A headless page's session history across its documents: one entry per document (its URL as
/// it was when it was left, after its own `pushState`s), and the current one. A document's own
/// entries (`pushState`, fragments) are its `history`'s; together they make `history.length`,
/// and `back`, `forward` and `go` past a document's own entries load another document's URL,
/// as a navigation of type ``NavigationAction/NavigationType/backForward``.
///
/// Unlike WebKit, a document left is not kept (no back/forward cache): going back loads it
/// again, and its own entries count as one.
struct SessionHistory: Sendable {
    private(set) var entries: [URL] = []
    private(set) var index = -1

    /// How a committed document takes its place.
    enum Placement: Sendable {
        /// A new entry after the current one (the ones after it are dropped).
        case push
        /// In the current entry's place (`location.replace`, a reload).
        case replace
        /// The entry at an index, gone back or forward to.
        case traverse(Int)
    }

    /// The documents before and after the current one.
    var counts: (before: Int, after: Int) { (max(0, index), max(0, entries.count - index - 1)) }

    /// Records a committed document at `url`; `leaving` is the URL the document left had then.
    mutating func commit(_ url: URL, leaving: URL?, placement: Placement) {
        if let leaving, entries.indices.contains(index) { entries[index] = leaving }
        switch placement {
        case .replace where entries.indices.contains(index):
            entries[index] = url
        case .traverse(let target) where entries.indices.contains(target):
            index = target
            entries[index] = url
        default:
            entries.removeSubrange(min(entries.count, index + 1)...)
            entries.append(url)
            index = entries.count - 1
        }
    }

    /// The current document added an entry of its own: the documents after it are dropped.
    mutating func dropForward() {
        guard index >= 0 else { return }
        entries.removeSubrange(min(entries.count, index + 1)...)
    }

    /// The index and URL of the document `delta` documents away, if there is one.
    func entry(by delta: Int) -> (index: Int, url: URL)? {
        let target = index + delta
        guard delta != 0, entries.indices.contains(target) else { return nil }
        return (target, entries[target])
    }
}
