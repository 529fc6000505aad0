import Foundation
import Synchronization

/// What servers' preflights allowed, kept for their `Access-Control-Max-Age` (5 seconds
/// without one, 10 minutes at most): a request a recent preflight allowed goes out without
/// asking again. One per data store, as WebKit keeps one per network session; 1,000 entries at
/// most, the oldest dropped first.
final class CORSPreflightCache: Sendable {
    /// What one preflight allowed, for one origin and URL.
    struct Grant: Sendable {
        var methods: Set<String>
        /// Lowercased.
        var headerNames: Set<String>
        var withCredentials: Bool
        var maxAge: Duration

        /// Why this grant does not allow `preflight`'s request, in WebKit's words; `nil` when it
        /// does. A wildcard (`*`) allows any method or header name to a request without
        /// credentials.
        func refusal(of preflight: CrossOriginFetch.Preflight) -> String? {
            if preflight.withCredentials && !withCredentials { return "Preflight was made without credentials." }
            let wildcard = !preflight.withCredentials
            if !CORSSafelist.isSafelistedMethod(preflight.method) && !methods.contains(preflight.method)
                && !(wildcard && methods.contains("*"))
            {
                return "Method \(preflight.method) is not allowed by Access-Control-Allow-Methods."
            }
            // A wildcard allows `Authorization` too, as in WebKit (the Fetch standard has a server
            // name it).
            for name in preflight.headerNames where !headerNames.contains(name) && !(wildcard && headerNames.contains("*")) {
                return "Request header field \(Self.displayName(name)) is not allowed by Access-Control-Allow-Headers."
            }
            return nil
        }

        /// A header name as browsers print it in this message (`content-type` → `Content-Type`).
        private static func displayName(_ name: String) -> String {
            name.split(separator: "-", omittingEmptySubsequences: false).map { $0.prefix(1).uppercased() + $0.dropFirst() }
                .joined(separator: "-")
        }
    }

    private struct Key: Hashable {
        var origin: String
        var url: String
    }

    private struct Entry {
        var grant: Grant
        var expires: ContinuousClock.Instant
    }

    private static let capacity = 1000
    private let entries = Mutex<[Key: Entry]>([:])

    init() {}

    /// Whether a grant still in date allows `preflight` from `origin` to `url`.
    func allows(_ preflight: CrossOriginFetch.Preflight, from origin: String, to url: URL) -> Bool {
        let key = Key(origin: origin, url: url.absoluteString), now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[key] else { return false }
            guard entry.expires > now else {
                entries[key] = nil
                return false
            }
            return entry.grant.refusal(of: preflight) == nil
        }
    }

    /// Keeps `grant`, replacing what an earlier preflight allowed.
    func store(_ grant: Grant, from origin: String, to url: URL) {
        guard grant.maxAge > .zero else { return }
        let key = Key(origin: origin, url: url.absoluteString), now = ContinuousClock.now
        entries.withLock { entries in
            if entries.count >= Self.capacity, entries[key] == nil {
                entries = entries.filter { $0.value.expires > now }
                if entries.count >= Self.capacity, let oldest = entries.min(by: { $0.value.expires < $1.value.expires })?.key {
                    entries[oldest] = nil
                }
            }
            entries[key] = Entry(grant: grant, expires: now + grant.maxAge)
        }
    }

    /// Forgets every grant (the data store's data removed).
    func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}
