public import Foundation
import Synchronization

/// What a ``TokenVault`` holds for one session: the refresh token and the facts another
/// process needs to tell whether it was just rotated.
public struct VaultRecord: Sendable, Hashable, CustomStringConvertible {
    /// The refresh token (always redacted when printed).
    public var refreshToken: RefreshToken
    /// When the access token issued with it expires, if known.
    public var accessTokenExpiresAt: Date?
    /// When the refresh token was stored (issued or rotated).
    public var rotatedAt: Date
    /// The user the session was signed in as: its ID token's subject, when the sign-in had
    /// one. A refreshed ID token naming another user is refused, in whatever process refreshes
    /// (OpenID Connect Core §12.2). Not a secret.
    public var subject: String?
    /// The names of the cookies the session's own endpoints set (the token endpoint, the web
    /// session's exchange): the cookies a sign-out deletes and a page's script may not
    /// overwrite in the native store, in whatever process. `nil` when not known (a record
    /// written before it was kept, or an adopted token not yet refreshed): then every cookie
    /// the native store holds for the session's site counts as the session's. Not a secret.
    public var cookieNames: Set<String>?

    /// Creates a record.
    public init(
        refreshToken: RefreshToken, accessTokenExpiresAt: Date?, rotatedAt: Date = Date(), subject: String? = nil,
        cookieNames: Set<String>? = nil
    ) {
        self.refreshToken = refreshToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.rotatedAt = rotatedAt
        self.subject = subject
        self.cookieNames = cookieNames
    }

    /// The record without its secret.
    public var description: String {
        "VaultRecord(refreshToken: <redacted>, accessTokenExpiresAt: \(accessTokenExpiresAt.map { "\($0)" } ?? "nil"), rotatedAt: \(rotatedAt))"
    }
}

/// Why a vault operation failed. Never carries the token.
public struct TokenVaultError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done.
    public var operation: String
    /// The path concerned, if any.
    public var path: String?
    /// The `errno` of the failed call, if any.
    public var errno: Int32?

    /// Creates an error.
    public init(operation: String, path: String? = nil, errno: Int32? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public var description: String {
        var s = "token vault: \(operation) failed"
        if let path { s += " (\(path))" }
        if let errno { s += unsafe ": \(String(cString: strerror(errno)))" }
        return s
    }
}

/// A held vault lock; release it with ``TokenVaultLock/unlock()``.
public protocol TokenVaultLock: Sendable {
    /// Releases the lock. Calling it twice does nothing.
    func unlock()
}

/// Where the refresh token lives: memory for tests and demos, a file for apps
/// (``FileTokenVault``), or the app's keychain through its own conformance.
///
/// ``lock(timeout:)`` gives exclusive access across everything that shares the vault, so
/// that two processes (an app and its extension) never spend one refresh token twice.
public protocol TokenVault: Sendable {
    /// The stored record, or `nil` when there is no session.
    func load() throws(TokenVaultError) -> VaultRecord?
    /// Replaces the stored record durably.
    func store(_ record: VaultRecord) throws(TokenVaultError)
    /// Removes the stored record.
    func clear() throws(TokenVaultError)
    /// Waits (at most `timeout`) for exclusive access among all users of the vault.
    nonisolated(nonsending) func lock(timeout: Duration) async throws(TokenVaultError) -> any TokenVaultLock
    /// A cheap mark that changes whenever any user of the vault (another process, another
    /// controller) stores or clears it, so a controller notices a logout made elsewhere before
    /// its next page action without reading the record each time; `nil` (the default) when the
    /// vault cannot tell, and the record is read instead.
    func changeMark() -> VaultChangeMark?
}

extension TokenVault {
    public func changeMark() -> VaultChangeMark? { nil }
}

/// What ``TokenVault/changeMark()`` returns: equal marks mean nothing changed in between.
public struct VaultChangeMark: Sendable, Hashable {
    /// The facts the mark is made of (for a file: whether it exists, its inode, size and
    /// modification time).
    public var parts: [Int64]

    /// Creates a mark.
    public init(_ parts: [Int64]) {
        self.parts = parts
    }
}

/// A vault in memory: lost with the process. Its lock is a no-op: a ``SessionController``
/// makes its refreshes single-flight, refuses a refresh while it logs out, and discards a
/// refresh answer that arrives after the session ended.
public final class InMemoryTokenVault: TokenVault {
    /// The record, and how many times it was stored or cleared (its change mark).
    private let state: Mutex<(record: VaultRecord?, changes: Int64)>

    /// Creates an empty vault, or one holding `record`.
    public init(_ record: VaultRecord? = nil) {
        self.state = Mutex((record, 0))
    }

    public func load() throws(TokenVaultError) -> VaultRecord? { state.withLock { $0.record } }
    public func store(_ record: VaultRecord) throws(TokenVaultError) { state.withLock { $0 = (record, $0.changes + 1) } }
    public func clear() throws(TokenVaultError) { state.withLock { $0 = (nil, $0.changes + 1) } }
    /// Exact: every store and clear changes it, so controllers sharing the vault notice each
    /// other's changes without reading the record.
    public func changeMark() -> VaultChangeMark? { VaultChangeMark([state.withLock { $0.changes }]) }
    nonisolated(nonsending) public func lock(timeout: Duration) async throws(TokenVaultError) -> any TokenVaultLock { NoLock() }

    struct NoLock: TokenVaultLock {
        func unlock() {}
    }
}
