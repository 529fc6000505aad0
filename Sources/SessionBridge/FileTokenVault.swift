public import Foundation
import SessionBridgeCookies
import Synchronization

#if canImport(Glibc)
import Glibc
import CoreFoundation
#elseif canImport(Darwin)
import Darwin
#endif

/// A vault in a file only its owner can read (mode `0600`), written atomically: a temporary
/// file is written and renamed over the old one, then the file and the directory are `fsync`ed
/// before the store returns.
/// Temporary files left by a process killed mid-write are removed by the next write.
///
/// Several processes (an app and its extension) may share one vault file. ``lock(timeout:)``
/// takes an advisory `flock` on `<file>.lock`, polled with `LOCK_NB` so a cooperative thread is
/// never blocked, and the record carries the rotation time and the access token's expiry, so
/// the process that waited can see that the other one just rotated the token and use the new
/// one instead of spending the old one.
///
/// ```swift
/// let vault = FileTokenVault(url: appGroup.appending(path: "session.vault"))
/// ```
public final class FileTokenVault: TokenVault {
    /// The vault file.
    public let url: URL
    /// The lock file next to it.
    public var lockURL: URL { URL(fileURLWithPath: url.path + ".lock") }

    /// The lock file's descriptor (opened lazily, one per vault instance, so that two vaults on
    /// one file exclude each other as two processes would) and whether this instance holds it.
    private let lockState = Mutex<(fd: Int32, held: Bool)>((-1, false))

    /// A vault stored at `url` (created on first store, with its directory).
    public init(url: URL) {
        self.url = url
    }

    deinit {
        let fd = lockState.withLock { $0.fd }
        if fd >= 0 { close(fd) }
    }

    struct Contents: Codable {
        var version = 1
        var refreshToken: String
        var accessTokenExpiresAt: Double?
        var rotatedAt: Double
        /// Absent in files written before it was kept.
        var subject: String?
        /// Absent in files written before they were kept; sorted, so a store of the same
        /// record writes the same bytes.
        var cookieNames: [String]?
    }

    public func load() throws(TokenVaultError) -> VaultRecord? {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            // Only a name that is not there at all is a signed-out vault; a symbolic link whose
            // target is gone is a vault that cannot be read.
            let isLink = (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) != nil
            if !isLink && !FileManager.default.fileExists(atPath: url.path) { return nil }
            throw TokenVaultError(operation: "read", path: url.path)
        }
        guard let contents = try? JSONDecoder().decode(Contents.self, from: data), contents.version == 1 else {
            throw TokenVaultError(operation: "decode", path: url.path)
        }
        return VaultRecord(
            refreshToken: RefreshToken(contents.refreshToken),
            accessTokenExpiresAt: contents.accessTokenExpiresAt.map { Date(timeIntervalSince1970: $0) },
            rotatedAt: Date(timeIntervalSince1970: contents.rotatedAt), subject: contents.subject,
            cookieNames: contents.cookieNames.map(Set.init))
    }

    public func store(_ record: VaultRecord) throws(TokenVaultError) {
        let contents = Contents(
            refreshToken: record.refreshToken.value,
            accessTokenExpiresAt: record.accessTokenExpiresAt?.timeIntervalSince1970,
            rotatedAt: record.rotatedAt.timeIntervalSince1970, subject: record.subject,
            cookieNames: record.cookieNames?.sorted())
        guard let data = try? JSONEncoder().encode(contents) else { throw TokenVaultError(operation: "encode") }
        try Self.writeAtomically(data, to: url)
    }

    /// The vault file's existence, inode, size and modification time: every store renames a
    /// new file over the old one and a clear removes it, so any change made by any process
    /// changes the mark. One `stat` call.
    public func changeMark() -> VaultChangeMark? {
        var info = stat()
        guard unsafe stat(url.path, &info) == 0 else { return errno == ENOENT ? VaultChangeMark([0]) : nil }
        return VaultChangeMark([1, Int64(info.st_ino), Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec)])
    }

    public func clear() throws(TokenVaultError) {
        if unsafe unlink(url.path) != 0 && errno != ENOENT {
            throw TokenVaultError(operation: "unlink", path: url.path, errno: errno)
        }
        TemporaryFile.removeStale(for: url.path)
        try? CrashSafeFile.syncDirectory(of: url.path)
    }

    nonisolated(nonsending) public func lock(timeout: Duration) async throws(TokenVaultError) -> any TokenVaultLock {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var pause = Duration.milliseconds(1)
        while true {
            switch try tryLock() {
            case .some(let lock): return lock
            case .none:
                guard clock.now < deadline else { throw TokenVaultError(operation: "lock (timed out)", path: lockURL.path) }
                do {
                    try await Task.sleep(for: min(pause, deadline - clock.now))
                } catch {
                    throw TokenVaultError(operation: "lock (cancelled)", path: lockURL.path)
                }
                pause = min(pause * 2, .milliseconds(20))
            }
        }
    }

    /// One non-blocking attempt: the in-process flag, then `flock(LOCK_EX | LOCK_NB)`.
    private func tryLock() throws(TokenVaultError) -> FileLock? {
        let path = lockURL.path
        let directory = url.deletingLastPathComponent().path
        return try lockState.withLock { state throws(TokenVaultError) -> FileLock? in
            if state.held { return nil }
            if state.fd < 0 {
                try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                let fd = unsafe open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
                guard fd >= 0 else { throw TokenVaultError(operation: "open lock file", path: path, errno: errno) }
                state.fd = fd
            }
            if flock(state.fd, LOCK_EX | LOCK_NB) != 0 {
                let e = errno
                if e == EWOULDBLOCK || e == EINTR { return nil }
                throw TokenVaultError(operation: "flock", path: path, errno: e)
            }
            state.held = true
            return FileLock(vault: self)
        }
    }

    fileprivate func release() {
        lockState.withLock { state in
            guard state.held else { return }
            _ = flock(state.fd, LOCK_UN)
            state.held = false
        }
    }

    final class FileLock: TokenVaultLock {
        private let vault: Mutex<FileTokenVault?>
        init(vault: FileTokenVault) { self.vault = Mutex(vault) }
        func unlock() {
            let vault = self.vault.withLock { v -> FileTokenVault? in
                defer { v = nil }
                return v
            }
            vault?.release()
        }
        deinit { unlock() }
    }

    // MARK: Files

    static func writeAtomically(_ data: Data, to url: URL) throws(TokenVaultError) {
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Renamed before the `fsync`: another process (or this one after a kill) sees the new
        // record as soon as it is written, so a process killed between the server's rotation
        // and the end of the store loses the token only in a window of microseconds, not the
        // milliseconds an `fsync` takes. Power loss is no worse off: nobody is told the record
        // is stored until the file and the directory are synced, and a power cut before that
        // loses the session either way (the old token is already spent on the server).
        do throws(CrashSafeFile.Failure) {
            try CrashSafeFile.write(data, to: url.path, order: .visibleBeforeDurable)
        } catch {
            throw TokenVaultError(operation: error.operation, path: error.path, errno: error.errno)
        }
    }
}
