import ArgumentParser
import Foundation

/// A private temporary directory (made with `mkdtemp`: mode 0700, a name no other process has),
/// removed with what it holds by ``remove()``.
struct ScratchDirectory {
    let url: URL

    /// Makes one in the temporary directory, its name starting with `prefix`.
    static func make(prefix: String) throws -> ScratchDirectory {
        var template = Array((NSTemporaryDirectory() + "/\(prefix)-XXXXXX").utf8CString)
        guard let made = unsafe mkdtemp(&template) else {
            throw ValidationError(
                "could not make a temporary directory in \(NSTemporaryDirectory()): \(unsafe String(cString: strerror(errno)))")
        }
        return ScratchDirectory(url: URL(fileURLWithPath: unsafe String(cString: made), isDirectory: true))
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
