public import Foundation
import Synchronization

/// A cookie jar implementing the RFC 6265bis storage model.
///
/// Thread-safe and synchronous (it is called from inside JavaScript callbacks). Cookies are
/// indexed by registrable domain and then by domain, so a lookup costs in proportion to the
/// host's labels and the cookies of its site, not to the size of the jar.
///
/// ```swift
/// let jar = CookieJar()
/// jar.setCookie("sid=abc; Path=/; HttpOnly; Secure", from: URL(string: "https://example.com/login")!)
/// let header = jar.cookieHeader(for: URL(string: "https://example.com/")!)  // "sid=abc"
/// ```
public final class CookieJar: Sendable {
    /// The list used to refuse public-suffix domains; `nil` turns that check off.
    public let publicSuffixList: PublicSuffixList?
    /// The jar's limits.
    public let limits: CookieJarLimits
    /// Whether a `SameSite=None` cookie without `Secure` is refused, as RFC 6265bis has it (and
    /// Chrome and Firefox do). WebKit keeps such a cookie: a web view's store made to behave as
    /// WebKit's sets this to `false`.
    public let sameSiteNoneRequiresSecure: Bool
    let clock: @Sendable () -> Date
    let state: Mutex<State>
    /// Domain → ``facts(for:)``, bounded by ``domainFactsCacheSize``.
    let domainFacts = Mutex<[String: DomainFacts]>([:])
    /// The last URL a cookie was set from (see ``resolve(_:)``).
    let lastRequest = Mutex<ResolvedRequest?>(nil)

    typealias Observer = @Sendable (CookieChange) -> Void
    typealias BatchObserver = @Sendable ([CookieChange]) -> Void

    /// The observers to call for one commit, taken under the lock.
    struct Listeners {
        var each: [Observer] = []
        var batch: [BatchObserver] = []

        init() {}

        init(_ state: State, _ changes: [CookieChange]) {
            guard !changes.isEmpty else { return }
            each = Array(state.observers.values)
            batch = Array(state.batchObservers.values)
        }
    }

    struct Entry {
        var cookie: Cookie
        var sequence: UInt64
    }

    struct State {
        /// registrable domain (or host) → domain → cookies
        var groups: [String: [String: CookieBucket]] = [:]
        var count = 0
        var sequence: UInt64 = 0
        /// No stored cookie expires before this (a lower bound: it may be earlier than the
        /// earliest expiry, never later). Until `now` reaches it, setting a cookie skips the
        /// scan for expired ones.
        var earliestExpiry = Date.distantFuture
        var observers: [UInt64: Observer] = [:]
        var batchObservers: [UInt64: BatchObserver] = [:]
        var nextObserver: UInt64 = 0
    }

    /// Creates an empty jar.
    ///
    /// - Parameters:
    ///   - publicSuffixList: the list for public-suffix refusal; defaults to the system list
    ///     (``PublicSuffixList/system``), `nil` when that is missing.
    ///   - limits: per-domain and total limits, and the longest cookie lifetime.
    ///   - sameSiteNoneRequiresSecure: whether `SameSite=None` without `Secure` is refused (RFC
    ///     6265bis); `false` keeps such cookies, as WebKit does.
    ///   - clock: the current time; inject a fixed one in tests.
    public init(
        publicSuffixList: PublicSuffixList? = PublicSuffixList.system,
        limits: CookieJarLimits = .default,
        sameSiteNoneRequiresSecure: Bool = true,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.publicSuffixList = publicSuffixList
        self.limits = limits
        self.sameSiteNoneRequiresSecure = sameSiteNoneRequiresSecure
        self.clock = clock
        self.state = Mutex(State())
    }

    // MARK: - Index keys

    /// The host itself, then each parent domain (none for IP addresses).
    static func candidateDomains(of host: String, isIP: Bool) -> [Substring] {
        var result: [Substring] = [Substring(host)]
        if isIP { return result }
        var i = host.startIndex
        while let dot = host[i...].firstIndex(of: ".") {
            let next = host.index(after: dot)
            if next < host.endIndex { result.append(host[next...]) }
            i = next
        }
        return result
    }

    // MARK: - Setting cookies

    /// Stores one `Set-Cookie` header value received in a response to `url`.
    ///
    /// Never split a header on commas: pass each `Set-Cookie` field separately.
    @discardableResult
    public func setCookie(_ header: String, from url: URL, context: RequestContext = .sameSite) -> SetCookieOutcome {
        switch SetCookieParser.parse(header) {
        case .failure(let error):
            return .rejected(error)
        case .success(let parsed):
            return store(parsed, from: url, context: context, fromScript: false)
        }
    }

    /// Stores several `Set-Cookie` header values (one per field, in order) from `url`.
    @discardableResult
    public func setCookies(
        _ headers: [String], from url: URL, context: RequestContext = .sameSite
    )
        -> [SetCookieOutcome]
    {
        headers.map { setCookie($0, from: url, context: context) }
    }

    /// Stores an already parsed `Set-Cookie` value, as the storage model says.
    @discardableResult
    public func store(
        _ parsed: ParsedSetCookie, from url: URL, context: RequestContext = .sameSite, fromScript: Bool = false
    ) -> SetCookieOutcome {
        guard let resolved = resolve(url) else { return .rejected(.missingHost) }
        let now = clock()
        var domainKey: String? = nil
        // The request's parts are read in place: a copy would retain and release its strings.
        let made = makeCookie(
            parsed, request: resolved.request, context: context, fromScript: fromScript, now: now, domainKey: &domainKey)
        switch consume made {
        case .failure(let error):
            return .rejected(error)
        case .success(let cookie):
            let key = cookie.domain == resolved.request.host ? resolved.hostKey : domainKey ?? groupKey(for: cookie)
            return commit(cookie, key: key, request: resolved.request, fromScript: fromScript, now: now)
        }
    }

    /// Steps of the storage model that need no jar state. When they look up the `Domain`
    /// attribute's facts, `domainKey` receives its group key, which the commit needs next.
    func makeCookie(
        _ parsed: ParsedSetCookie, request: CookieURL, context: RequestContext, fromScript: Bool, now: Date,
        domainKey: inout String?
    ) -> Result<Cookie, SetCookieError> {
        if parsed.name.isEmpty && parsed.value.isEmpty { return .failure(.emptyNameAndValue) }
        var expiresAt: Date? = nil
        if let maxAge = parsed.maxAge {
            expiresAt = maxAge <= 0 ? .distantPast : now.addingTimeInterval(min(Double(maxAge), limits.maximumAge))
        } else if let expires = parsed.expires {
            expiresAt = min(expires, now.addingTimeInterval(limits.maximumAge))
        }
        var domainAttribute = parsed.domain ?? ""
        if domainAttribute.utf8.contains(where: { $0 >= 0x80 }) {
            return .failure(.nonASCIIDomain(domainAttribute))
        }
        if !domainAttribute.isEmpty, publicSuffixList != nil {
            let facts = facts(for: domainAttribute)
            if facts.isPublicSuffix {
                if domainAttribute != request.host { return .failure(.publicSuffixDomain(domainAttribute)) }
                domainAttribute = ""
            } else {
                domainKey = facts.key
            }
        }
        // An IP address's own address without a leading dot sets a host-only cookie, as WebKit
        // (libsoup) and Chrome have it: a later `Domain=127.0.0.1; Max-Age=0` deletes the
        // host-only cookie of that name, and `a=2` replaces `a=1; Domain=127.0.0.1`.
        if request.isIPAddress, !parsed.domainHasLeadingDot, domainAttribute == request.host {
            domainAttribute = ""
        }
        let isHostOnly: Bool
        let domain: String
        if !domainAttribute.isEmpty {
            guard CookieURL.domainMatches(host: request.host, isIP: request.isIPAddress, domain: domainAttribute)
            else {
                return .failure(.domainMismatch(domain: domainAttribute, host: request.host))
            }
            isHostOnly = false
            domain = domainAttribute
        } else {
            isHostOnly = true
            domain = request.host
        }
        let pathAttribute = parsed.path
        let path = (pathAttribute?.isEmpty ?? true) ? CookieURL.defaultPath(request.path) : pathAttribute!
        let isSecure = parsed.isSecure
        if isSecure && !request.isSecure { return .failure(.secureFromInsecureOrigin) }
        let isHttpOnly = parsed.isHttpOnly
        if isHttpOnly && fromScript { return .failure(.httpOnlyFromScript) }
        let sameSite = parsed.sameSite ?? .unspecified
        if sameSite != .none, !fromScript, context.isCrossSite, !context.isTopLevelNavigation {
            return .failure(.sameSiteFromCrossSiteRequest)
        }
        if sameSite == .none && !isSecure && sameSiteNoneRequiresSecure { return .failure(.sameSiteNoneRequiresSecure) }
        if parsed.name.isEmpty,
            Self.hasPrefixIgnoringCase(parsed.value, "__secure-") || Self.hasPrefixIgnoringCase(parsed.value, "__host-")
        {
            return .failure(.namelessWithPrefix)
        }
        let underscored = parsed.name.utf8.first == UInt8(ascii: "_")
        if underscored && Self.hasPrefixIgnoringCase(parsed.name, "__secure-") && !isSecure {
            return .failure(.securePrefixRequirements)
        }
        if underscored && Self.hasPrefixIgnoringCase(parsed.name, "__host-") {
            guard isSecure, isHostOnly, pathAttribute != nil, path == "/" else {
                return .failure(.hostPrefixRequirements)
            }
        }
        return .success(
            Cookie(
                name: parsed.name, value: parsed.value, domain: domain, path: path, expiresAt: expiresAt,
                creationTime: now, lastAccessTime: now, isSecure: isSecure, isHttpOnly: isHttpOnly,
                isHostOnly: isHostOnly, sameSite: sameSite, isPartitioned: parsed.isPartitioned,
                partitionKey: parsed.isPartitioned ? partitionKey(for: request, context: context) : nil))
    }

    static func hasPrefixIgnoringCase(_ s: String, _ lowerPrefix: String) -> Bool {
        var it = s.utf8.makeIterator()
        for p in lowerPrefix.utf8 {
            guard var c = it.next() else { return false }
            if c >= 0x41 && c <= 0x5A { c |= 0x20 }
            if c != p { return false }
        }
        return true
    }

    /// Steps of the storage model that read or change the jar, under the lock.
    func commit(_ cookie: Cookie, key: String, request: CookieURL, fromScript: Bool, now: Date) -> SetCookieOutcome {
        let (outcome, changes, listeners) = state.withLock { state -> (SetCookieOutcome, [CookieChange], Listeners) in
            let (outcome, changes) = Self.commitLocked(
                &state, cookie, key: key, request: request, fromScript: fromScript,
                limits: limits, now: now)
            return (outcome, changes, Listeners(state, changes))
        }
        Self.notify(listeners, changes)
        return outcome
    }

    static func commitLocked(
        _ state: inout State, _ cookie: Cookie, key: String, request: CookieURL, fromScript: Bool,
        limits: CookieJarLimits, now: Date
    ) -> (SetCookieOutcome, [CookieChange]) {
        let cause: CookieChange.Cause = fromScript ? .script : .httpResponse
        // Changes are only built for observers to read.
        let recording = !state.observers.isEmpty || !state.batchObservers.isEmpty
        var changes: [CookieChange] = []
        // Secure cookies are not overwritten or shadowed from insecure origins.
        if !cookie.isSecure, !request.isSecure, let group = state.groups[key] {
            for (domain, bucket) in group
            where CookieURL.domainMatches(host: domain, isIP: false, domain: cookie.domain)
                || CookieURL.domainMatches(host: cookie.domain, isIP: false, domain: domain)
            {
                for entry in bucket.entries
                where entry.cookie.isSecure && entry.cookie.name == cookie.name
                    && CookieURL.pathMatches(requestPath: cookie.path, cookiePath: entry.cookie.path)
                    && !entry.cookie.isExpired(at: now)
                {
                    return (.rejected(.wouldOverwriteSecureCookie), [])
                }
            }
        }
        // Expired cookies are dropped lazily, all at once when the earliest expiry has passed.
        let swept = sweepIfDue(&state, now: now)
        // The domain's bucket is changed in place: copying it would cost a retain of every
        // cookie it holds, for every cookie set.
        let sequence = state.sequence &+ 1
        let ((outcome, delta), bucketCount) = withBucket(&state, key: key, domain: cookie.domain) {
            bucket -> (SetCookieOutcome, Int) in
            let oldIndex = bucket.index(of: cookie)
            if fromScript, let oldIndex, bucket.entries[oldIndex].cookie.isHttpOnly,
                !bucket.entries[oldIndex].cookie.isExpired(at: now)
            {
                return (.rejected(.wouldOverwriteHttpOnlyCookie), 0)
            }
            if cookie.isExpired(at: now) {
                guard let oldIndex else { return (.deleted(nil), 0) }
                let old = bucket.remove(at: oldIndex).cookie
                if recording { changes.append(CookieChange(kind: .deleted, cookie: old, cause: cause)) }
                return (.deleted(old), -1)
            }
            if let oldIndex {
                // The stored cookie keeps the old one's creation time; the outcome shares the
                // stored cookie's values (one copy, not one per step).
                let old = bucket.exchangeCookie(at: oldIndex, with: cookie, keepingCreationTime: true)
                let stored = bucket.entries[oldIndex].cookie
                if recording { changes.append(CookieChange(kind: .replaced, cookie: stored, previous: old, cause: cause)) }
                return (.replaced(stored, previous: old), 0)
            }
            bucket.append(Entry(cookie: cookie, sequence: sequence))
            if recording { changes.append(CookieChange(kind: .added, cookie: cookie, cause: cause)) }
            return (.stored(cookie), 1)
        }
        if case .rejected = outcome { return (outcome, swept) }
        if delta > 0 { state.sequence = sequence }
        switch outcome {
        case .stored, .replaced:
            if let expiresAt = cookie.expiresAt { state.earliestExpiry = min(state.earliestExpiry, expiresAt) }
        default: break
        }
        state.count += delta
        if bucketCount > limits.perDomain || state.count > limits.total {
            changes += evict(&state, key: key, domain: cookie.domain, limits: limits, now: now)
        }
        return (outcome, swept.isEmpty ? changes : swept + changes)
    }

    /// Drops every expired cookie once `now` has reached ``State/earliestExpiry``, and moves
    /// that mark to the earliest expiry left.
    static func sweepIfDue(_ state: inout State, now: Date) -> [CookieChange] {
        guard now >= state.earliestExpiry else { return [] }
        let changes = removeExpired(&state, now: now)
        var earliest = Date.distantFuture
        for group in state.groups.values {
            for bucket in group.values {
                for entry in bucket.entries { if let expiresAt = entry.cookie.expiresAt, expiresAt < earliest { earliest = expiresAt } }
            }
        }
        state.earliestExpiry = earliest
        return changes
    }

    /// Runs `body` on the bucket of `domain` in place, drops the bucket (and its group) when
    /// it is left empty, and returns `body`'s result with the number of cookies left.
    @inline(__always)
    static func withBucket<Result>(
        _ state: inout State, key: String, domain: String, _ body: (inout CookieBucket) -> Result
    ) -> (Result, count: Int) {
        func run(_ bucket: inout CookieBucket) -> (Result, count: Int) {
            let result = body(&bucket)
            return (result, bucket.count)
        }
        let (result, count) = run(&state.groups[key, default: [:]][domain, default: CookieBucket()])
        if count == 0 { setBucket(&state, key: key, domain: domain, CookieBucket()) }
        return (result, count)
    }

    static func setBucket(_ state: inout State, key: String, domain: String, _ bucket: CookieBucket) {
        if bucket.isEmpty {
            state.groups[key]?[domain] = nil
            if state.groups[key]?.isEmpty == true { state.groups[key] = nil }
        } else {
            state.groups[key, default: [:]][domain] = bucket
        }
    }

    /// Calls every observer for each change, then every batch observer once with all of them.
    static func notify(_ listeners: Listeners, _ changes: [CookieChange]) {
        guard !changes.isEmpty else { return }
        if !listeners.each.isEmpty {
            for change in changes {
                for observer in listeners.each { observer(change) }
            }
        }
        for observer in listeners.batch { observer(changes) }
    }

    // MARK: - Eviction

    /// Keeps the domain and the jar within limits: expired cookies first, then (per domain)
    /// non-secure before secure, oldest last access first.
    static func evict(
        _ state: inout State, key: String, domain: String, limits: CookieJarLimits, now: Date
    )
        -> [CookieChange]
    {
        var changes: [CookieChange] = []
        if var bucket = state.groups[key]?[domain], bucket.count > limits.perDomain {
            bucket.removeAll { entry in
                guard entry.cookie.isExpired(at: now) else { return false }
                changes.append(CookieChange(kind: .expired, cookie: entry.cookie, cause: .expiry))
                return true
            }
            if bucket.count > limits.perDomain {
                let excess = bucket.count - limits.perDomain
                let entries = bucket.entries
                let order = entries.indices.sorted { a, b in
                    let x = entries[a], y = entries[b]
                    if x.cookie.isSecure != y.cookie.isSecure { return !x.cookie.isSecure }
                    if x.cookie.lastAccessTime != y.cookie.lastAccessTime {
                        return x.cookie.lastAccessTime < y.cookie.lastAccessTime
                    }
                    return x.sequence < y.sequence
                }
                let victims = Set(order.prefix(excess).map { entries[$0].sequence })
                bucket.removeAll { entry in
                    guard victims.contains(entry.sequence) else { return false }
                    changes.append(CookieChange(kind: .evicted, cookie: entry.cookie, cause: .eviction))
                    return true
                }
            }
            state.count -= changes.count
            setBucket(&state, key: key, domain: domain, bucket)
        }
        if state.count > limits.total {
            changes += removeExpired(&state, now: now)
        }
        if state.count > limits.total {
            var all: [(key: String, domain: String, entry: Entry)] = []
            all.reserveCapacity(state.count)
            for (k, group) in state.groups {
                for (d, bucket) in group {
                    for e in bucket.entries { all.append((k, d, e)) }
                }
            }
            all.sort { a, b in
                if a.entry.cookie.lastAccessTime != b.entry.cookie.lastAccessTime {
                    return a.entry.cookie.lastAccessTime < b.entry.cookie.lastAccessTime
                }
                return a.entry.sequence < b.entry.sequence
            }
            for victim in all.prefix(state.count - limits.total) {
                changes.append(CookieChange(kind: .evicted, cookie: victim.entry.cookie, cause: .eviction))
                var bucket = state.groups[victim.key]?[victim.domain] ?? CookieBucket()
                bucket.removeAll { $0.sequence == victim.entry.sequence }
                setBucket(&state, key: victim.key, domain: victim.domain, bucket)
                state.count -= 1
            }
        }
        return changes
    }

    static func removeExpired(_ state: inout State, now: Date) -> [CookieChange] {
        var changes: [CookieChange] = []
        for (key, group) in state.groups {
            for (domain, entries) in group where entries.entries.contains(where: { $0.cookie.isExpired(at: now) }) {
                var bucket = entries
                bucket.removeAll { entry in
                    guard entry.cookie.isExpired(at: now) else { return false }
                    changes.append(CookieChange(kind: .expired, cookie: entry.cookie, cause: .expiry))
                    return true
                }
                setBucket(&state, key: key, domain: domain, bucket)
            }
        }
        state.count -= changes.count
        return changes
    }

    /// Drops every expired cookie now (expired cookies are otherwise dropped lazily).
    public func removeExpiredCookies() {
        let now = clock()
        let (changes, observers) = state.withLock { state -> ([CookieChange], Listeners) in
            let changes = Self.removeExpired(&state, now: now)
            return (changes, Listeners(state, changes))
        }
        Self.notify(observers, changes)
    }

    // MARK: - Reading cookies

    /// The cookies to send to `request`, in the draft's order (longer paths first, then earlier
    /// creation), updating their last-access time when `touch` is set.
    func matchingCookies(for request: CookieURL, context: RequestContext, httpAPI: Bool, touch: Bool) -> [Cookie] {
        let now = clock()
        let key = groupKey(for: request.host, isIP: request.isIPAddress)
        let candidates = Self.candidateDomains(of: request.host, isIP: request.isIPAddress)
        let partition = partitionKey(for: request, context: context)
        let (found, changes, observers) = state.withLock {
            state -> ([Entry], [CookieChange], Listeners) in
            guard state.groups[key] != nil else { return ([], [], Listeners()) }
            var found: [Entry] = []
            var changes: [CookieChange] = []
            for candidate in candidates {
                let domain = String(candidate)
                guard var bucket = state.groups[key]?[domain] else { continue }
                var modified = false
                if bucket.entries.contains(where: { $0.cookie.isExpired(at: now) }) {
                    bucket.removeAll { entry in
                        guard entry.cookie.isExpired(at: now) else { return false }
                        changes.append(CookieChange(kind: .expired, cookie: entry.cookie, cause: .expiry))
                        return true
                    }
                    modified = true
                }
                for i in bucket.entries.indices {
                    let cookie = bucket.entries[i].cookie
                    if Self.shouldSend(
                        cookie, to: request, domainIsHost: domain == request.host,
                        context: context, httpAPI: httpAPI),
                        cookie.partitionKey == nil || cookie.partitionKey == partition
                    {
                        if touch {
                            bucket.touch(at: i, now: now)
                            modified = true
                        }
                        found.append(bucket.entries[i])
                    }
                }
                if modified { Self.setBucket(&state, key: key, domain: domain, bucket) }
            }
            state.count -= changes.count
            return (found, changes, Listeners(state, changes))
        }
        Self.notify(observers, changes)
        return found.sorted(by: Self.sendOrder).map(\.cookie)
    }

    /// The partition a request's cookies are read from and set into: the context's top-level
    /// site, or the request's own site for a top-level navigation.
    func partitionKey(for request: CookieURL, context: RequestContext) -> String {
        context.topLevelSite ?? Self.site(scheme: request.scheme, host: request.host, publicSuffixList)
    }

    /// The site of `host` under `scheme`: `scheme://registrable-domain` (the host itself for IP
    /// addresses and hosts without a registrable domain).
    public static func site(scheme: String, host: String, _ list: PublicSuffixList?) -> String {
        let host = host.lowercased()
        let domain = CookieURL.isIPAddress(host) ? host : (list?.registrableDomain(of: host) ?? host)
        return scheme.lowercased() + "://" + domain
    }

    /// The site of `url` (see ``site(scheme:host:_:)``), `nil` without a host.
    public func site(of url: URL) -> String? {
        guard let request = CookieURL(url) else { return nil }
        return Self.site(scheme: request.scheme, host: request.host, publicSuffixList)
    }

    static func sendOrder(_ a: Entry, _ b: Entry) -> Bool {
        let pa = a.cookie.path.utf8.count, pb = b.cookie.path.utf8.count
        if pa != pb { return pa > pb }
        if a.cookie.creationTime != b.cookie.creationTime { return a.cookie.creationTime < b.cookie.creationTime }
        return a.sequence < b.sequence
    }

    static func shouldSend(
        _ cookie: Cookie, to request: CookieURL, domainIsHost: Bool, context: RequestContext, httpAPI: Bool
    ) -> Bool {
        if cookie.isHostOnly && !domainIsHost { return false }
        if !CookieURL.pathMatches(requestPath: request.path, cookiePath: cookie.path) { return false }
        if cookie.isSecure && !request.isSecure { return false }
        if cookie.isHttpOnly && !httpAPI { return false }
        if cookie.sameSite != .none && context.isCrossSite {
            if cookie.sameSite == .strict { return false }
            if !(context.isTopLevelNavigation && context.isSafeMethod) { return false }
        }
        return true
    }

    /// The `Cookie` header value for a request to `url`, or `nil` when no cookie applies.
    ///
    /// Cookies are ordered longer paths first, then earlier creation; their last-access times
    /// are updated.
    public func cookieHeader(for url: URL, context: RequestContext = .sameSite) -> String? {
        let cookies = cookiesToSend(to: url, context: context)
        return cookies.isEmpty ? nil : Self.cookieHeader(cookies)
    }

    /// The cookies a request to `url` carries, in the `Cookie` header's order (see
    /// ``cookieHeader(for:context:)``, which is ``cookieHeader(_:)`` of them); their last-access
    /// times are updated, as sending them does.
    ///
    /// For a caller that reports what it sent: the names are the cookies' own (a nameless
    /// cookie's header entry is its value alone, which a reader of the header would take for a
    /// name).
    public func cookiesToSend(to url: URL, context: RequestContext = .sameSite) -> [Cookie] {
        guard let request = CookieURL(url) else { return [] }
        return matchingCookies(for: request, context: context, httpAPI: true, touch: true)
    }

    /// The `Cookie` header value carrying `cookies`, in their order.
    public static func cookieHeader(_ cookies: [Cookie]) -> String {
        var out = ""
        for (i, cookie) in cookies.enumerated() {
            if i > 0 { out += "; " }
            if !cookie.name.isEmpty {
                out += cookie.name
                out += "="
            }
            out += cookie.value
        }
        return out
    }

    /// The cookies an HTTP request to `url` would carry (HttpOnly included), in send order,
    /// without touching their last-access times.
    public func cookies(for url: URL) -> [Cookie] {
        guard let request = CookieURL(url) else { return [] }
        return matchingCookies(for: request, context: .sameSite, httpAPI: true, touch: false)
    }

    /// Every unexpired cookie, oldest first.
    public var allCookies: [Cookie] {
        let now = clock()
        let entries = state.withLock { state in
            var all: [Entry] = []
            all.reserveCapacity(state.count)
            for group in state.groups.values {
                for bucket in group.values {
                    for e in bucket.entries where !e.cookie.isExpired(at: now) { all.append(e) }
                }
            }
            return all
        }
        return entries.sorted { a, b in
            a.cookie.creationTime != b.cookie.creationTime
                ? a.cookie.creationTime < b.cookie.creationTime : a.sequence < b.sequence
        }.map(\.cookie)
    }

    /// The number of cookies held (expired ones not yet dropped included).
    public var count: Int { state.withLock { $0.count } }

    // MARK: - Direct changes

    /// Stores `cookie` as given (no parsing or origin checks), replacing one with the same
    /// identity. Eviction limits apply. Note that a domain cookie on a public suffix inserted
    /// this way is only found for requests to that exact host.
    package func insert(_ cookie: Cookie) {
        insert([cookie], cause: .api)
    }

    func insert(_ cookies: [Cookie], cause: CookieChange.Cause) {
        let now = clock()
        let keyed = cookies.map { (groupKey(for: $0), $0) }
        let (changes, listeners) = state.withLock { state -> ([CookieChange], Listeners) in
            var changes: [CookieChange] = []
            for (key, cookie) in keyed {
                changes += Self.insertLocked(&state, cookie, key: key, cause: cause, limits: limits, now: now)
            }
            return (changes, Listeners(state, changes))
        }
        Self.notify(listeners, changes)
    }

    static func insertLocked(
        _ state: inout State, _ cookie: Cookie, key: String, cause: CookieChange.Cause, limits: CookieJarLimits, now: Date
    ) -> [CookieChange] {
        var changes: [CookieChange] = []
        let sequence = state.sequence &+ 1
        if let expiresAt = cookie.expiresAt { state.earliestExpiry = min(state.earliestExpiry, expiresAt) }
        let (appended, _) = withBucket(&state, key: key, domain: cookie.domain) { bucket -> Bool in
            if let i = bucket.index(of: cookie) {
                let old = bucket.exchangeCookie(at: i, with: cookie)
                changes.append(CookieChange(kind: .replaced, cookie: cookie, previous: old, cause: cause))
                return false
            }
            bucket.append(Entry(cookie: cookie, sequence: sequence))
            changes.append(CookieChange(kind: .added, cookie: cookie, cause: cause))
            return true
        }
        if appended {
            state.sequence = sequence
            state.count += 1
        }
        changes += evict(&state, key: key, domain: cookie.domain, limits: limits, now: now)
        return changes
    }

    /// Removes the cookies with this name, domain and path (host-only or not).
    public func remove(name: String, domain: String, path: String) {
        let (domain, key) = removalKey(domain)
        let (changes, listeners) = state.withLock { state -> ([CookieChange], Listeners) in
            let changes = Self.removeLocked(&state, name: name, domain: domain, path: path, key: key)
            return (changes, Listeners(state, changes))
        }
        Self.notify(listeners, changes)
    }

    func removalKey(_ domain: String) -> (domain: String, key: String) {
        let domain = CookieURL.asciiLowercased(domain.hasPrefix(".") ? String(domain.dropFirst()) : domain)
        return (domain, groupKey(for: domain, isIP: CookieURL.isIPAddress(domain)))
    }

    /// Removes the cookies with this name and path from `domain`'s bucket; with `identity`,
    /// only the one of its host-only flag and partition (a deletion names one cookie: a
    /// host-only `a` and a domain `a` of one host are two).
    static func removeLocked(
        _ state: inout State, name: String, domain: String, path: String, key: String, identity: Cookie? = nil
    ) -> [CookieChange] {
        var changes: [CookieChange] = []
        guard var bucket = state.groups[key]?[domain] else { return changes }
        bucket.removeAll { entry in
            guard entry.cookie.name == name && entry.cookie.path == path else { return false }
            if let identity, entry.cookie.isHostOnly != identity.isHostOnly || entry.cookie.partitionKey != identity.partitionKey {
                return false
            }
            changes.append(CookieChange(kind: .deleted, cookie: entry.cookie, cause: .api))
            return true
        }
        state.count -= changes.count
        setBucket(&state, key: key, domain: domain, bucket)
        return changes
    }

    /// Removes every cookie.
    public func removeAll() {
        let (changes, observers) = state.withLock { state -> ([CookieChange], Listeners) in
            let changes = Self.takeAll(&state)
            return (changes, Listeners(state, changes))
        }
        Self.notify(observers, changes)
    }

    static func takeAll(_ state: inout State) -> [CookieChange] {
        var changes: [CookieChange] = []
        for group in state.groups.values {
            for bucket in group.values {
                for e in bucket.entries { changes.append(CookieChange(kind: .deleted, cookie: e.cookie, cause: .api)) }
            }
        }
        state.groups = [:]
        state.count = 0
        return changes
    }

    /// Replaces the whole contents with `cookies` (for example, those loaded from a store).
    /// Observers see the old cookies deleted and the new ones added.
    public func replaceAll(with cookies: [Cookie]) {
        let now = clock()
        let sorted = cookies.sorted { $0.creationTime < $1.creationTime }
        let keyed = sorted.map { (groupKey(for: $0), $0) }
        let (changes, listeners) = state.withLock { state -> ([CookieChange], Listeners) in
            var changes = Self.takeAll(&state)
            for (key, cookie) in keyed {
                changes += Self.insertLocked(&state, cookie, key: key, cause: .api, limits: limits, now: now)
            }
            return (changes, Listeners(state, changes))
        }
        Self.notify(listeners, changes)
    }

    // MARK: - Observation

    /// Calls `handler` for every later change, on the thread that made it, after the jar's lock
    /// is released. Keep the returned token; ``CookieObservation/cancel()`` stops the calls.
    public func observe(_ handler: @escaping @Sendable (CookieChange) -> Void) -> CookieObservation {
        let id = state.withLock { state in
            state.nextObserver += 1
            state.observers[state.nextObserver] = handler
            return state.nextObserver
        }
        return CookieObservation { [weak self] in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
        }
    }

    /// Calls `handler` once per commit with all the changes it made, after the jar's lock is
    /// released: a response's `Set-Cookie` fields (``applyResponseCookies(_:from:context:)``),
    /// a ``write(_:)`` or a ``replaceAll(with:)`` is one call. A persistent attachment saves
    /// once per call.
    public func observeBatches(_ handler: @escaping @Sendable ([CookieChange]) -> Void) -> CookieObservation {
        let id = state.withLock { state in
            state.nextObserver += 1
            state.batchObservers[state.nextObserver] = handler
            return state.nextObserver
        }
        return CookieObservation { [weak self] in
            _ = self?.state.withLock { $0.batchObservers.removeValue(forKey: id) }
        }
    }
}

/// A token for a ``CookieJar`` observer; ``cancel()`` removes it. The observer is not removed
/// when the token is released.
public final class CookieObservation: Sendable {
    private let onCancel: @Sendable () -> Void

    /// A token whose ``cancel()`` calls `onCancel` (for a store of its own that reports changes).
    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// Stops the observer's calls. Calling it again does nothing.
    public func cancel() {
        onCancel()
    }
}
