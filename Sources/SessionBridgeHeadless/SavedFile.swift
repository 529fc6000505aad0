import Dispatch
import Foundation
import SessionBridgeCookies
import Synchronization

/// The file a page store (``WebStorage``, ``IndexedDatabases``) is saved to: read once when the
/// store is made, written crash-safely behind the callers that changed it.
///
/// A file that cannot be read is kept aside as `<file>.corrupt`, and the store starts empty with a
/// warning. Saves are coalesced: one write for the changes made until it starts, on a queue of the
/// file's own; ``flush()`` waits for them.
final class SavedFile: Sendable {
    /// Where the store is saved.
    let url: URL
    private let saving = Mutex<(pending: Bool, error: String?)>((false, nil))
    private let queue: DispatchQueue

    init(url: URL, label: String) {
        self.url = url
        self.queue = DispatchQueue(label: label)
    }

    /// The last failed save (the store kept its contents in memory), or nil.
    var saveError: String? { saving.withLock { $0.error } }

    /// What `decode` makes of the file, nil when there is none; when it cannot make anything of
    /// it, the file is kept aside and the warning says so (`what` names the store's contents).
    static func load<Contents>(_ url: URL, what: String, decode: (Data) -> Contents?) -> (contents: Contents?, warning: String?) {
        guard let data = FileManager.default.contents(atPath: url.path) else { return (nil, nil) }
        if let contents = decode(data) { return (contents, nil) }
        let aside = url.path + ".corrupt"
        try? FileManager.default.removeItem(atPath: aside)
        try? FileManager.default.moveItem(atPath: url.path, toPath: aside)
        let warning =
            "\(url.lastPathComponent) could not be read; it was kept as \(URL(fileURLWithPath: aside).lastPathComponent) and \(what) empty"
        return (nil, warning)
    }

    /// Saves behind the caller what `encoded` gives when the write starts.
    func scheduleSave(_ encoded: @escaping @Sendable () -> [UInt8]) {
        let start = saving.withLock { state in
            defer { state.pending = true }
            return !state.pending
        }
        guard start else { return }
        queue.async { [self] in
            saving.withLock { $0.pending = false }
            let bytes = encoded()
            do throws(CrashSafeFile.Failure) {
                try CrashSafeFile.write(bytes, to: url.path, order: .visibleBeforeDurable)
                saving.withLock { $0.error = nil }
            } catch {
                saving.withLock { $0.error = "could not save \(url.lastPathComponent): \(error)" }
            }
        }
    }

    /// Waits for the saves scheduled so far.
    func flush() {
        queue.sync {}
    }
}
