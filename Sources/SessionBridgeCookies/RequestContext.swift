/// The context of an HTTP request, for `SameSite` decisions (RFC 6265bis, "Same-site and
/// cross-site requests").
public struct RequestContext: Sendable, Hashable {
    /// The request is cross-site (its initiator's site differs from the target's).
    public var isCrossSite: Bool
    /// The request navigates a top-level browsing context (not a subresource or frame).
    public var isTopLevelNavigation: Bool
    /// The HTTP method, upper-case.
    public var method: String
    /// The site of the top-level document the request is made for (`https://example.com`:
    /// scheme and registrable domain), which keys `Partitioned` cookies (CHIPS); `nil` means the
    /// request's own site, as for a top-level navigation.
    public var topLevelSite: String?

    /// Creates a context; the defaults describe a same-site top-level `GET` navigation.
    public init(isCrossSite: Bool = false, isTopLevelNavigation: Bool = true, method: String = "GET", topLevelSite: String? = nil) {
        self.isCrossSite = isCrossSite
        self.isTopLevelNavigation = isTopLevelNavigation
        self.method = method
        self.topLevelSite = topLevelSite
    }

    /// A same-site top-level `GET` navigation.
    public static let sameSite = RequestContext()

    /// A cross-site request.
    public static func crossSite(topLevelNavigation: Bool = true, method: String = "GET") -> RequestContext {
        RequestContext(isCrossSite: true, isTopLevelNavigation: topLevelNavigation, method: method)
    }

    /// Whether the method is "safe" (GET, HEAD, OPTIONS, TRACE).
    public var isSafeMethod: Bool {
        switch method.uppercased() {
        case "GET", "HEAD", "OPTIONS", "TRACE": return true
        default: return false
        }
    }
}
