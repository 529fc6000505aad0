import Foundation
import Synchronization

/// A page's opener (`window.opener`): held weakly, so that an opened window never keeps the
/// page that opened it alive.
struct OpenerLink: Sendable {
    weak var page: WebPage?
    /// The id of the opener's proxy of the opened window.
    let window: Int
}

/// The windows a page opened with `window.open`, by the id their proxies carry and by target
/// name, so that a named target opens once and is reused (as browsers do).
final class OpenedWindows: Sendable {
    struct Entry {
        var name: String?
        weak var view: (any WebView)?
        /// The URL last loaded into it through the proxy (`location.href` reads it).
        var href: String
        var closed: Bool
        /// The number of the last load asked of the window (``nextLoad(of:)``).
        var loads = 0
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var nextID = 1
    }

    // `Entry` holds a weak reference to a `Sendable` view; it is only read and written under
    // this Mutex.
    private let state = Mutex(State())

    /// The open window named `name`, if it is still alive.
    func window(named name: String) -> (id: Int, view: any WebView)? {
        state.withLock { state in
            for (id, entry) in state.entries where entry.name == name && !entry.closed && !Self.isClosed(entry) {
                if let view = entry.view { return (id, view) }
            }
            return nil
        }
    }

    /// Records a new window and returns its proxy's id.
    func add(_ view: any WebView, name: String?, href: String) -> Int {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = Entry(name: name, view: view, href: href, closed: false)
            return id
        }
    }

    func view(_ id: Int) -> (any WebView)? {
        state.withLock { $0.entries[id]?.view }
    }

    /// Numbers a load asked of the window. Loads start on tasks of their own, which may start
    /// in any order: one that starts after a later one was asked does nothing (``isLatestLoad``),
    /// so the window ends at the last URL asked, as a browser's later navigation replaces an
    /// earlier one.
    func nextLoad(of id: Int) -> Int {
        state.withLock { state in
            state.entries[id]?.loads += 1
            return state.entries[id]?.loads ?? 0
        }
    }

    /// Whether `load` is still the last load asked of the window.
    func isLatestLoad(_ load: Int, of id: Int) -> Bool {
        state.withLock { $0.entries[id]?.loads == load }
    }

    func setHref(_ href: String, of id: Int) {
        state.withLock { $0.entries[id]?.href = href }
    }

    func href(of id: Int) -> String {
        state.withLock { $0.entries[id]?.href ?? "about:blank" }
    }

    /// Whether the window is closed (through its proxy, by the app, or released).
    func isClosed(_ id: Int) -> Bool {
        state.withLock { state in
            guard let entry = state.entries[id] else { return true }
            return entry.closed || Self.isClosed(entry)
        }
    }

    /// Marks the window closed and returns its view, to close it.
    func close(_ id: Int) -> (any WebView)? {
        state.withLock { state in
            state.entries[id]?.closed = true
            return state.entries[id]?.view
        }
    }

    private static func isClosed(_ entry: Entry) -> Bool {
        guard let view = entry.view else { return true }
        return (view as? WebPage)?.isClosedFlag.load(ordering: .acquiring) ?? false
    }
}
