import ArgumentParser
import Foundation
import SessionBridgeWebKit

/// A private temporary directory (``WebProcessExtension/privateDirectory(prefix:)``: mode 0700,
/// a name no other process has), removed with what it holds by ``remove()``.
struct ScratchDirectory {
    let url: URL

    /// Makes one in the temporary directory, its name starting with `prefix`.
    static func make(prefix: String) throws -> ScratchDirectory {
        guard let path = WebProcessExtension.privateDirectory(prefix: prefix) else {
            throw ValidationError(
                "could not make a temporary directory in \(NSTemporaryDirectory()): \(unsafe String(cString: strerror(errno)))")
        }
        return ScratchDirectory(url: URL(fileURLWithPath: path, isDirectory: true))
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
