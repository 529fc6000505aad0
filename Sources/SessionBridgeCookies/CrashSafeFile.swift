import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one crash-safe file write of the package: the new contents go to a temporary file next
/// to the target, are renamed over it in one step, and are made durable with `fsync` on the
/// file and its directory. A crash at any point leaves the old file or the new one, never a
/// mix. Used by ``PersistentCookieStore`` and by the session's file vault.
package enum CrashSafeFile {
    /// When the new contents become visible to other readers.
    package enum Order: Sendable {
        /// `fsync`, then rename: nobody reads the new file before it is durable.
        case durableBeforeVisible
        /// Rename, then `fsync`: other processes see the new file a few milliseconds sooner
        /// (the caller is still only told it is stored once it is durable).
        case visibleBeforeDurable
    }

    /// A failed system call, with its path and `errno`.
    package struct Failure: Error, Sendable {
        package let operation: String
        package let path: String
        package let errno: Int32
    }

    /// Replaces the file at `path` with `bytes`, readable and writable by the owner only.
    ///
    /// - Parameter beforeRename: runs once the temporary file is written (and, for
    ///   ``Order/durableBeforeVisible``, synced), just before it replaces the target; a thrown
    ///   failure removes the temporary file and leaves the target as it was.
    package static func write(
        _ bytes: some Collection<UInt8>, to path: String, order: Order,
        beforeRename: () throws(Failure) -> Void = {}
    ) throws(Failure) {
        TemporaryFile.removeStale(for: path)
        let temporary = TemporaryFile.path(for: path)
        let fd = unsafe open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(operation: "create", path: temporary, errno: errno) }
        var renamed = false
        defer {
            close(fd)
            if !renamed { unsafe unlink(temporary) }
        }
        // The umask may have narrowed the mode further but never widened it; make it exact.
        fchmod(fd, 0o600)
        let written: Int32? =
            unsafe bytes.withContiguousStorageIfAvailable { unsafe writeAll(fd, UnsafeRawBufferPointer($0)) }
            ?? Array(bytes).withUnsafeBytes { unsafe writeAll(fd, $0) }
        if let written { throw Failure(operation: "write", path: temporary, errno: written) }
        if order == .durableBeforeVisible, fsync(fd) != 0 { throw Failure(operation: "fsync", path: temporary, errno: errno) }
        try beforeRename()
        guard unsafe rename(temporary, path) == 0 else { throw Failure(operation: "rename", path: path, errno: errno) }
        renamed = true
        if order == .visibleBeforeDurable, fsync(fd) != 0 { throw Failure(operation: "fsync", path: path, errno: errno) }
        try syncDirectory(of: path)
    }

    /// Makes the entries of the directory holding `path` durable (a rename or an unlink in it).
    package static func syncDirectory(of path: String) throws(Failure) {
        try syncDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    /// Makes the entries of `directory` durable.
    package static func syncDirectory(_ directory: String) throws(Failure) {
        let fd = unsafe open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(operation: "open", path: directory, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure(operation: "fsync", path: directory, errno: errno) }
    }

    /// Writes all of `buffer`, retrying on `EINTR`; the `errno` of a failure, or `nil`.
    private static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < buffer.count {
            let n = unsafe Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        return nil
    }
}
