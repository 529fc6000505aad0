public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a ``PersistentCookieStore`` operation failed.
public enum CookieStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Profile names are 1-100 characters of `A-Z a-z 0-9 . _ -`, not starting with `.`.
    case invalidProfileName(String)
    /// A file-system call failed.
    case io(operation: String, path: String, errno: Int32)
    /// The cookies could not be encoded.
    case encoding(String)
    /// Neither the store file nor its backup holds a complete generation; nothing was loaded
    /// (and nothing was replaced).
    case unrecoverable(path: String, problem: StoreFileProblem, backupProblem: StoreFileProblem)

    public var description: String {
        switch self {
        case .invalidProfileName(let name):
            return "invalid cookie profile name \"\(name)\""
        case .io(let operation, let path, let e):
            return unsafe "\(operation) \(path) failed: \(String(cString: strerror(e)))"
        case .encoding(let reason):
            return "cookies could not be encoded: \(reason)"
        case .unrecoverable(let path, let problem, let backupProblem):
            return "cookie store \(path) cannot be loaded (\(problem)) and its backup neither (\(backupProblem))"
        }
    }
}

/// A crash-safe, file-backed cookie store: one file per named profile in a directory, or a
/// non-persistent in-memory store.
///
/// Every attribute is kept (HttpOnly, SameSite, host-only, creation and last-access times,
/// Partitioned, the persistent flag). A save writes a temporary file, `fsync`s it, keeps the
/// previous good generation as `<profile>.cookies.bak` (a hard link), renames the new file into
/// place and `fsync`s the directory, so a crash at any moment leaves a complete generation. The
/// file is versioned and checksummed; ``load()`` detects a truncated or corrupt file and falls
/// back to the backup, reporting it in ``LoadResult/recovery``, and throws rather than return an
/// empty jar when neither copy is good.
///
/// Saves are serialised within a process; two processes should not write one profile at once.
public struct PersistentCookieStore: Sendable {
    /// What ``PersistentCookieStore/load()`` found.
    public struct LoadResult: Sendable, Hashable {
        /// The cookies of the generation loaded.
        public var cookies: [Cookie]
        /// The generation number loaded (0 for a store never saved).
        public var generation: UInt64
        /// When the store file was missing or bad and the backup was used: what was wrong.
        public var recovery: StoreFileProblem?

        /// Whether the cookies came from the backup file.
        public var recoveredFromBackup: Bool { recovery != nil }

        /// A sentence for logs when the backup was used.
        public var warning: String? {
            recovery.map { "cookie store fell back to its backup: \($0)" }
        }
    }

    final class MemoryBox: Sendable {
        let contents = Mutex<(generation: UInt64, cookies: [Cookie])>((0, []))
    }

    enum Backing: Sendable {
        case file(directory: URL, profile: String)
        case memory(MemoryBox)
    }

    let backing: Backing

    /// A store for `profile` in `directory` (created on first save).
    public init(directory: URL, profile: String = "default") {
        backing = .file(directory: directory, profile: profile)
    }

    /// A non-persistent store: saves and loads stay in memory, nothing touches the disk.
    public static func nonPersistent() -> PersistentCookieStore {
        PersistentCookieStore(backing: .memory(MemoryBox()))
    }

    init(backing: Backing) {
        self.backing = backing
    }

    /// Whether this store writes to disk.
    public var isPersistent: Bool {
        if case .file = backing { return true }
        return false
    }

    /// The store file's URL (`nil` for a non-persistent store).
    public var fileURL: URL? {
        guard case .file(let directory, let profile) = backing else { return nil }
        return directory.appendingPathComponent(profile + Self.fileExtension)
    }

    /// The backup file's URL (`nil` for a non-persistent store).
    public var backupURL: URL? {
        fileURL.map { URL(fileURLWithPath: $0.path + ".bak") }
    }

    static let fileExtension = ".cookies"

    /// The profiles stored in `directory`, sorted.
    public static func profiles(in directory: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(fileExtension) }
            .map { String($0.dropLast(fileExtension.count)) }
            .filter(isValidProfileName)
            .sorted()
    }

    static func isValidProfileName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 100, name.utf8.first != UInt8(ascii: ".") else { return false }
        return name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
        }
    }

    /// Serialises saves within the process.
    static let saveLock = Mutex(())

    // MARK: - Load

    /// Loads the newest complete generation.
    ///
    /// - Returns: the cookies; ``LoadResult/recovery`` says when the backup had to be used.
    /// - Throws: ``CookieStoreError/unrecoverable(path:problem:backupProblem:)`` when neither
    ///   file is good (a store never saved loads as empty, without error).
    public func load() throws(CookieStoreError) -> LoadResult {
        switch backing {
        case .memory(let box):
            let (generation, cookies) = box.contents.withLock { $0 }
            return LoadResult(cookies: cookies, generation: generation, recovery: nil)
        case .file(_, let profile):
            guard Self.isValidProfileName(profile) else { throw .invalidProfileName(profile) }
            let path = fileURL!.path, backupPath = backupURL!.path
            TemporaryFile.removeStale(for: path)
            TemporaryFile.removeStale(for: backupPath)
            let primary = Self.readGeneration(path)
            if case .success(let (generation, cookies)) = primary {
                return LoadResult(cookies: cookies, generation: generation, recovery: nil)
            }
            let problem = primary.failureValue!
            let backup = Self.readGeneration(backupPath)
            switch backup {
            case .success(let (generation, cookies)):
                return LoadResult(cookies: cookies, generation: generation, recovery: problem)
            case .failure(let backupProblem):
                if problem == .missing && backupProblem == .missing {
                    return LoadResult(cookies: [], generation: 0, recovery: nil)
                }
                throw .unrecoverable(path: path, problem: problem, backupProblem: backupProblem)
            }
        }
    }

    static func readGeneration(_ path: String) -> Result<(UInt64, [Cookie]), StoreFileProblem> {
        switch readFile(path) {
        case .failure(let problem): return .failure(problem)
        case .success(let bytes): return CookieStoreFormat.decode(bytes).map { ($0.generation, $0.cookies) }
        }
    }

    static func readFile(_ path: String) -> Result<[UInt8], StoreFileProblem> {
        let fd = unsafe open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return .failure(errno == ENOENT ? .missing : .unreadable(errno: errno)) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = unsafe chunk.withUnsafeMutableBytes { unsafe read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.unreadable(errno: errno))
            }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        return .success(bytes)
    }

    // MARK: - Save

    /// Writes `cookies` as a new generation, crash-safely, keeping the previous good generation
    /// as the backup.
    public func save(_ cookies: [Cookie]) throws(CookieStoreError) {
        switch backing {
        case .memory(let box):
            box.contents.withLock { $0 = ($0.generation + 1, cookies) }
        case .file(let directory, let profile):
            guard Self.isValidProfileName(profile) else { throw .invalidProfileName(profile) }
            let path = fileURL!.path, backupPath = backupURL!.path
            try Self.saveLock.withLock { _ throws(CookieStoreError) in
                try Self.makeDirectory(directory.path)
                let current = Self.readGeneration(path)
                let previousGeneration: UInt64
                switch current {
                case .success(let (generation, _)): previousGeneration = generation
                case .failure:
                    if case .success(let (generation, _)) = Self.readGeneration(backupPath) {
                        previousGeneration = generation
                    } else {
                        previousGeneration = 0
                    }
                }
                let bytes: [UInt8]
                do {
                    bytes = try CookieStoreFormat.encode(cookies, generation: previousGeneration + 1)
                } catch {
                    throw .encoding("\(error)")
                }
                // Keep the previous good generation as the backup (a hard link: no copy, and
                // the store file itself stays in place until the new one is renamed over it).
                let keepBackup = { () throws(CrashSafeFile.Failure) -> Void in
                    guard case .success = current else { return }
                    let backupTemporary = backupPath + ".tmp-\(getpid())"
                    unsafe unlink(backupTemporary)
                    guard unsafe link(path, backupTemporary) == 0 else { return }
                    defer { unsafe unlink(backupTemporary) }
                    // When the backup already is the current file (a writer killed between
                    // its two renames), rename(2) does nothing and leaves the new link.
                    guard unsafe rename(backupTemporary, backupPath) == 0 else {
                        throw CrashSafeFile.Failure(operation: "rename", path: backupPath, errno: errno)
                    }
                }
                do throws(CrashSafeFile.Failure) {
                    try CrashSafeFile.write(bytes, to: path, order: .durableBeforeVisible, beforeRename: keepBackup)
                } catch {
                    throw .io(operation: error.operation, path: error.path, errno: error.errno)
                }
            }
        }
    }

    /// Deletes the profile's files (store, backup and temporary files).
    public func delete() throws(CookieStoreError) {
        switch backing {
        case .memory(let box):
            box.contents.withLock { $0 = (0, []) }
        case .file(let directory, let profile):
            guard Self.isValidProfileName(profile) else { throw .invalidProfileName(profile) }
            for p in [fileURL!.path, backupURL!.path] where unsafe unlink(p) != 0 && errno != ENOENT {
                throw .io(operation: "unlink", path: p, errno: errno)
            }
            TemporaryFile.removeStale(for: fileURL!.path)
            TemporaryFile.removeStale(for: backupURL!.path)
            do throws(CrashSafeFile.Failure) {
                try CrashSafeFile.syncDirectory(directory.path)
            } catch {
                throw .io(operation: error.operation, path: error.path, errno: error.errno)
            }
        }
    }

    static func makeDirectory(_ path: String) throws(CookieStoreError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .io(operation: "mkdir", path: path, errno: EIO)
        }
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let f) = self { return f }
        return nil
    }
}
