import Synchronization

/// The classic scripts of a document fetched from another origin without CORS (no `crossorigin`
/// attribute): what they throw reaches the page's `error` listeners and `onerror` as WebKit
/// gives it, `Script error.` with no place and no error object, so that a page learns nothing
/// of another origin's script. The app still hears the whole error.
final class MutedScripts: Sendable {
    private let urls = Mutex<Set<String>>([])

    func add(_ sourceURL: String) {
        urls.withLock { _ = $0.insert(sourceURL) }
    }

    func contains(_ sourceURL: String) -> Bool {
        urls.withLock { $0.contains(sourceURL) }
    }
}
