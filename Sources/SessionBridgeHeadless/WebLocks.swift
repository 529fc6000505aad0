import Foundation
import SessionBridgeMessaging
import Synchronization

/// The Web Locks of a ``WebsiteDataStore``'s pages (`navigator.locks`): a lock name of an origin
/// is held by one document at a time, or shared by several, across every page of the store, as
/// across the tabs of one browser profile (W3C Web Locks API).
///
/// Requests of a name are granted in the order they were made: one is granted when no lock of
/// its name is held, or when it and every holder are shared and no earlier request waits. A
/// document's locks are released, and its waiting requests dropped, when it closes.
final class WebLocks: Sendable {
    /// What a document hears about its requests after asking: granted, or taken by a `steal`.
    enum Notice: Sendable {
        case granted(Int)
        case stolen(Int)
    }

    /// A request, waiting or granted.
    struct Request: Sendable {
        let id: Int
        let client: ObjectIdentifier
        let name: String
        let exclusive: Bool
    }

    /// How a request came out at once.
    enum Outcome: String, Sendable {
        case granted, queued, unavailable
    }

    /// A lock or a request as `query()` lists it.
    struct Snapshot: Sendable {
        let name: String
        let exclusive: Bool
        let clientID: String
    }

    private struct Client {
        let origin: SecurityOrigin
        let id: String
        let notify: @Sendable (Notice) -> Void
    }

    private struct State {
        var clients: [ObjectIdentifier: Client] = [:]
        /// Per origin and name: the held requests, and the waiting ones in order.
        var held: [SecurityOrigin: [String: [Request]]] = [:]
        var waiting: [SecurityOrigin: [String: [Request]]] = [:]
    }

    private let state = Mutex(State())

    /// Registers a document (its origin, and where its notices go) before its first request.
    func join(_ client: ObjectIdentifier, origin: SecurityOrigin, notify: @escaping @Sendable (Notice) -> Void) {
        state.withLock { $0.clients[client] = Client(origin: origin, id: UUID().uuidString.lowercased(), notify: notify) }
    }

    /// Asks for a lock. With `ifAvailable`, a request that cannot be granted at once is not
    /// made; with `steal`, the name's holders lose it (told `stolen`) and it is granted at once.
    func request(_ request: Request, ifAvailable: Bool, steal: Bool) -> Outcome {
        var notices: [(@Sendable (Notice) -> Void, Notice)] = []
        let outcome = state.withLock { state -> Outcome in
            guard let origin = state.clients[request.client]?.origin else { return .unavailable }
            if steal {
                for holder in state.held[origin]?[request.name] ?? [] {
                    if let notify = state.clients[holder.client]?.notify { notices.append((notify, .stolen(holder.id))) }
                }
                state.held[origin, default: [:]][request.name] = [request]
                return .granted
            }
            let holders = state.held[origin]?[request.name] ?? []
            let waiting = state.waiting[origin]?[request.name] ?? []
            if waiting.isEmpty && (holders.isEmpty || !request.exclusive && holders.allSatisfy { !$0.exclusive }) {
                state.held[origin, default: [:]][request.name, default: []].append(request)
                return .granted
            }
            if ifAvailable { return .unavailable }
            state.waiting[origin, default: [:]][request.name, default: []].append(request)
            return .queued
        }
        for (notify, notice) in notices { notify(notice) }
        return outcome
    }

    /// Releases a granted request's lock (its callback ended), granting what waited for it.
    func release(_ id: Int, by client: ObjectIdentifier) {
        let notices = state.withLock { state -> [(@Sendable (Notice) -> Void, Notice)] in
            guard let origin = state.clients[client]?.origin else { return [] }
            for (name, holders) in state.held[origin] ?? [:] where holders.contains(where: { $0.id == id && $0.client == client }) {
                state.held[origin]?[name] = holders.filter { !($0.id == id && $0.client == client) }
                return Self.grantWaiting(name, origin, in: &state)
            }
            return []
        }
        for (notify, notice) in notices { notify(notice) }
    }

    /// Drops a waiting request (its signal aborted); `false` when it was granted already.
    func abort(_ id: Int, by client: ObjectIdentifier) -> Bool {
        let (dropped, notices) = state.withLock { state -> (Bool, [(@Sendable (Notice) -> Void, Notice)]) in
            guard let origin = state.clients[client]?.origin else { return (false, []) }
            for (name, waiting) in state.waiting[origin] ?? [:] where waiting.contains(where: { $0.id == id && $0.client == client }) {
                state.waiting[origin]?[name] = waiting.filter { !($0.id == id && $0.client == client) }
                return (true, Self.grantWaiting(name, origin, in: &state))
            }
            return (false, [])
        }
        for (notify, notice) in notices { notify(notice) }
        return dropped
    }

    /// A closed document: its locks released, its requests dropped, what waited granted.
    func leave(_ client: ObjectIdentifier) {
        let notices = state.withLock { state -> [(@Sendable (Notice) -> Void, Notice)] in
            guard let origin = state.clients.removeValue(forKey: client)?.origin else { return [] }
            var names: Set<String> = []
            for (name, holders) in state.held[origin] ?? [:] where holders.contains(where: { $0.client == client }) {
                state.held[origin]?[name] = holders.filter { $0.client != client }
                names.insert(name)
            }
            for (name, waiting) in state.waiting[origin] ?? [:] where waiting.contains(where: { $0.client == client }) {
                state.waiting[origin]?[name] = waiting.filter { $0.client != client }
                names.insert(name)
            }
            return names.flatMap { Self.grantWaiting($0, origin, in: &state) }
        }
        for (notify, notice) in notices { notify(notice) }
    }

    /// The origin's held locks and waiting requests, for `query()`.
    func query(by client: ObjectIdentifier) -> (held: [Snapshot], pending: [Snapshot]) {
        state.withLock { state in
            guard let origin = state.clients[client]?.origin else { return ([], []) }
            func snapshots(_ byName: [String: [Request]]?) -> [Snapshot] {
                (byName ?? [:]).sorted { $0.key < $1.key }.flatMap { _, requests in
                    requests.map { Snapshot(name: $0.name, exclusive: $0.exclusive, clientID: state.clients[$0.client]?.id ?? "") }
                }
            }
            return (snapshots(state.held[origin]), snapshots(state.waiting[origin]))
        }
    }

    /// Grants the waiting requests of `name` that now can be, in order.
    private static func grantWaiting(
        _ name: String, _ origin: SecurityOrigin, in state: inout State
    ) -> [(@Sendable (Notice) -> Void, Notice)] {
        var notices: [(@Sendable (Notice) -> Void, Notice)] = []
        while let next = state.waiting[origin]?[name]?.first {
            let holders = state.held[origin]?[name] ?? []
            guard holders.isEmpty || !next.exclusive && holders.allSatisfy({ !$0.exclusive }) else { break }
            state.waiting[origin]?[name]?.removeFirst()
            state.held[origin, default: [:]][name, default: []].append(next)
            if let notify = state.clients[next.client]?.notify { notices.append((notify, .granted(next.id))) }
        }
        if state.held[origin]?[name]?.isEmpty == true { state.held[origin]?[name] = nil }
        if state.waiting[origin]?[name]?.isEmpty == true { state.waiting[origin]?[name] = nil }
        return notices
    }
}
