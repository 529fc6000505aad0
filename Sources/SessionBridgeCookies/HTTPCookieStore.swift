public import Foundation
import Synchronization

/// A cookie store a page's requests and `document.cookie` use, as native code sees it.
/// (WebKit's `WKHTTPCookieStore`.)
///
/// Every operation is asynchronous because a web view's store may live in another process:
/// a ``CookieJar`` answers at once, a WebKit engine's store once WebKit's network process has.
/// When ``apply(_:)`` returns, a request the page sends next carries the change. The operations
/// start on the caller's executor (`nonisolated(nonsending)`): a store that answers at once
/// does so without leaving the caller, and writes an actor makes reach it in the actor's order.
public protocol HTTPCookieStore: AnyObject, Sendable {
    /// Every cookie held, expired ones excluded.
    nonisolated(nonsending) func allCookies() async -> [Cookie]
    /// The cookies a request to `url` would carry, HttpOnly ones included.
    nonisolated(nonsending) func cookies(for url: URL) async -> [Cookie]
    /// Stores and deletes cookies in order, as one change.
    nonisolated(nonsending) func apply(_ operations: [CookieWriteOperation]) async
    /// Removes every cookie.
    nonisolated(nonsending) func removeAllCookies() async

    /// Calls `handler` with each batch of changes made to the store, or returns `nil` when
    /// the store cannot tell. (WebKit's `WKHTTPCookieStoreObserver`, with what changed.)
    ///
    /// Changes made through this protocol's own methods come with the cause
    /// ``CookieChange/Cause-swift.enum/api``, or not at all: a store that learns of changes
    /// only by reading itself again (WebKit's) leaves its own writes out. The handler may be
    /// called on any thread; it must not call back into the store.
    nonisolated func observeChanges(_ handler: @escaping @Sendable ([CookieChange]) -> Void) -> CookieObservation?

    /// Returns once every change made to the store before the call has reached the observers
    /// of ``observeChanges(_:)``: what a page did to its cookies (a response's `Set-Cookie`,
    /// `document.cookie`) is known before native code writes into the store again.
    nonisolated(nonsending) func deliverPendingChanges() async
}

extension HTTPCookieStore {
    /// A store that cannot report its changes.
    nonisolated public func observeChanges(_ handler: @escaping @Sendable ([CookieChange]) -> Void) -> CookieObservation? {
        nil
    }

    /// Nothing is pending in a store that reports its changes as it makes them, or not at all.
    nonisolated(nonsending) public func deliverPendingChanges() async {}

    /// Stores `cookie`, replacing one with the same name, domain and path.
    nonisolated(nonsending) public func setCookie(_ cookie: Cookie) async {
        await apply([.set(cookie)])
    }

    /// Deletes the cookie with `cookie`'s name, domain and path.
    nonisolated(nonsending) public func deleteCookie(_ cookie: Cookie) async {
        await apply([.delete(cookie)])
    }
}

/// One step of a write to an ``HTTPCookieStore``.
public enum CookieWriteOperation: Sendable, Hashable {
    /// Store the cookie, replacing one with the same identity.
    case set(Cookie)
    /// Delete the cookie with this cookie's identity (name, domain, path), whatever its value.
    case delete(Cookie)

    /// The cookie stored or named for deletion.
    public var cookie: Cookie {
        switch self {
        case .set(let cookie), .delete(let cookie): cookie
        }
    }
}

/// A ``CookieJar`` seen as an ``HTTPCookieStore``: what the headless page's data store hands
/// out, answering at once.
public final class CookieJarStore: HTTPCookieStore {
    /// The jar.
    public let jar: CookieJar

    /// A store over `jar`.
    public init(_ jar: CookieJar) {
        self.jar = jar
    }

    nonisolated(nonsending) public func allCookies() async -> [Cookie] {
        jar.allCookies
    }

    nonisolated(nonsending) public func cookies(for url: URL) async -> [Cookie] {
        jar.cookies(for: url)
    }

    nonisolated(nonsending) public func apply(_ operations: [CookieWriteOperation]) async {
        jar.write(operations)
    }

    nonisolated(nonsending) public func removeAllCookies() async {
        jar.removeAll()
    }

    /// The jar's own batches (``CookieJar/observeBatches(_:)``), delivered as each commit ends,
    /// so nothing is ever pending.
    nonisolated public func observeChanges(_ handler: @escaping @Sendable ([CookieChange]) -> Void) -> CookieObservation? {
        jar.observeBatches(handler)
    }
}

extension CookieJar {
    /// Stores and deletes cookies in order, as one commit: observers see the changes after
    /// the last one, and a batch observer (a persistent attachment) is called once.
    public func write(_ operations: [CookieWriteOperation]) {
        guard !operations.isEmpty else { return }
        let now = clock()
        let keyed = operations.map { operation -> (CookieWriteOperation, domain: String, key: String) in
            switch operation {
            case .set(let cookie): return (operation, cookie.domain, groupKey(for: cookie))
            case .delete(let cookie):
                let (domain, key) = removalKey(cookie.domain)
                return (operation, domain, key)
            }
        }
        let (changes, listeners) = state.withLock { state -> ([CookieChange], Listeners) in
            var changes: [CookieChange] = []
            for (operation, domain, key) in keyed {
                switch operation {
                case .set(let cookie):
                    changes += Self.insertLocked(&state, cookie, key: key, cause: .api, limits: limits, now: now)
                case .delete(let cookie):
                    changes += Self.removeLocked(
                        &state, name: cookie.name, domain: domain, path: cookie.path, key: key, identity: cookie)
                }
            }
            return (changes, Listeners(state, changes))
        }
        Self.notify(listeners, changes)
    }
}
