public import Foundation
import Synchronization

/// Temporary directories for tests, named for the test process, so that repeated runs of the
/// suite do not fill the disk: the first directory a process makes with a prefix removes those
/// that processes no longer running left with it.
public enum TestDirectory {
    /// A new empty directory named `prefix`, this process's id and a UUID.
    public static func make(prefix: String) throws -> URL {
        if swept.withLock({ $0.insert(prefix).inserted }) { removeDirectoriesOfEndedRuns(prefix: prefix) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Removes the directories named `prefix` and the id of a process that is no longer running.
    public static func removeDirectoriesOfEndedRuns(prefix: String) {
        let temporary = FileManager.default.temporaryDirectory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            let pid = name.dropFirst(prefix.count).prefix { $0.isNumber }
            guard let pid = pid_t(pid), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
    }

    /// The prefixes this process has swept already.
    private static let swept = Mutex<Set<String>>([])
}
