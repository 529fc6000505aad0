import Foundation
import Synchronization

extension CookieJar {
    /// What the jar needs to know of one domain name; found once, then remembered.
    struct DomainFacts: Sendable {
        /// The name is an IP address.
        var isIP: Bool
        /// The name is a public suffix (always `false` without a list or for an IP address).
        var isPublicSuffix: Bool
        /// The jar's group: the registrable domain (see ``CookieJar/groupKey(for:isIP:)``).
        var key: String
    }

    /// A request URL a cookie was set from, with its parts and its host's group.
    final class ResolvedRequest: Sendable {
        let url: URL
        let request: CookieURL
        let hostKey: String

        init(url: URL, request: CookieURL, hostKey: String) {
            self.url = url
            self.request = request
            self.hostKey = hostKey
        }
    }

    /// How many domains' facts the jar remembers.
    static let domainFactsCacheSize = 1024

    /// What the jar knows of `domain` (ASCII lower-case), from the cache when it can: a jar
    /// sees few distinct domains, and the list walk allocates and hashes each candidate.
    func facts(for domain: String) -> DomainFacts {
        if let known = domainFacts.withLock({ $0[domain] }) { return known }
        let isIP = CookieURL.isIPAddress(domain)
        let facts = DomainFacts(
            isIP: isIP,
            isPublicSuffix: !isIP && (publicSuffixList?.isPublicSuffix(domain) ?? false),
            key: isIP ? domain : registrableGroupKey(for: domain))
        domainFacts.withLock { cache in
            if cache.count >= Self.domainFactsCacheSize { cache.removeAll(keepingCapacity: true) }
            cache[domain] = facts
        }
        return facts
    }

    /// The group (registrable domain, or the address itself) a domain's cookies are kept in.
    func groupKey(for domain: String, isIP: Bool) -> String {
        isIP ? domain : facts(for: domain).key
    }

    func groupKey(for cookie: Cookie) -> String {
        facts(for: cookie.domain).key
    }

    private func registrableGroupKey(for domain: String) -> String {
        if let publicSuffixList {
            return publicSuffixList.registrableDomain(of: domain) ?? domain
        }
        if let dot = domain.utf8.lastIndex(of: UInt8(ascii: ".")) {
            return String(domain[domain.index(after: dot)...])
        }
        return domain
    }

    /// The parts of `url` the storage model reads, `nil` without a host. The last URL is
    /// remembered: a response's fields, or a page's `document.cookie` writes, come from one
    /// URL in a row.
    func resolve(_ url: URL) -> ResolvedRequest? {
        if let known = lastRequest.withLock({ $0 }), known.url == url { return known }
        guard let request = CookieURL(url) else { return nil }
        let resolved = ResolvedRequest(
            url: url, request: request, hostKey: groupKey(for: request.host, isIP: request.isIPAddress))
        lastRequest.withLock { $0 = resolved }
        return resolved
    }
}
