import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names for the temporary file an atomic write renames over its target, and the cleanup of
/// those a killed writer left behind.
///
/// A temporary file is named `<target>.tmp-<pid>-<random>`; one whose process no longer runs
/// belongs to a writer that died before its rename and is removed.
package enum TemporaryFile {
    /// A fresh temporary path next to `path`, owned by this process.
    package static func path(for path: String) -> String {
        path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Removes the temporary files of `path` left by writers that are no longer running.
    ///
    /// - Returns: how many were removed.
    @discardableResult
    package static func removeStale(for path: String) -> Int {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let prefix = url.lastPathComponent + ".tmp-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(prefix) {
            let pidText = name.dropFirst(prefix.count).prefix { $0 != "-" }
            guard let pid = pid_t(pidText) else { continue }
            if unsafe pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH && unlink(directory + "/" + name) == 0 {
                removed += 1
            }
        }
        return removed
    }
}
