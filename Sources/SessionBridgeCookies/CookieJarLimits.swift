/// Limits a ``CookieJar`` enforces.
public struct CookieJarLimits: Sendable, Hashable {
    /// Most cookies sharing one domain field.
    public var perDomain: Int
    /// Most cookies in the jar.
    public var total: Int
    /// The longest lifetime a cookie may be given, in seconds (the draft: 400 days or less).
    public var maximumAge: Double

    /// Creates limits; the defaults are 180 per domain, 3000 in all, 400 days.
    public init(perDomain: Int = 180, total: Int = 3000, maximumAge: Double = 400 * 86_400) {
        self.perDomain = perDomain
        self.total = total
        self.maximumAge = maximumAge
    }

    /// 180 per domain, 3000 in all, 400 days.
    public static let `default` = CookieJarLimits()

    /// What WebKit's store keeps: no limit per domain (WebKitGTK's keeps a page's 200 cookies
    /// of one host, where a jar limited to 180 a domain evicted the oldest non-`Secure` ones,
    /// a session's CSRF cookie among them), 3000 in all (a bound of this process's own), 400 days.
    public static let webKit = CookieJarLimits(perDomain: 3000, total: 3000)
}
