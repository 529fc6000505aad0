import Foundation

/// A request a page sends: what a navigation or `fetch` asks for.
public struct PageRequest: Sendable, Hashable {
    public var url: URL
    public var method: String
    /// Header fields in order; repeated names stay separate.
    public var headers: [HTTPHeader]
    public var body: [UInt8]?

    public init(url: URL, method: String = "GET", headers: [HTTPHeader] = [], body: [UInt8]? = nil) {
        self.url = url
        // Browsers normalise the case of the six standard methods only.
        self.method = FetchRequestRules.normalizedMethods.contains(method.uppercased()) ? method.uppercased() : method
        self.headers = headers
        self.body = body
    }
}

/// One header field.
public struct HTTPHeader: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A navigation the page is about to make, for the ``NavigationDelegate`` to decide.
/// (WebKit's `WKNavigationAction`.)
public struct NavigationAction: Sendable, Hashable {
    /// What started it.
    public enum NavigationType: String, Sendable, Hashable {
        /// The app called `load`.
        case other
        /// A script set `location` or called `location.assign`/`replace`.
        case scriptInitiated
        /// `location.reload()` or the app's `reload()`.
        case reload
        /// `window.open` or a `target=_blank` request.
        case newWindow
        /// A link was followed (reported by the WebKit engine).
        case linkActivated
        /// A form was submitted (reported by the WebKit engine).
        case formSubmitted
        /// Back or forward in the history (reported by the WebKit engine).
        case backForward
    }

    public var request: PageRequest
    public var navigationType: NavigationType
    /// Whether a person started it (the app's own `load` counts as one).
    public var isUserInitiated: Bool
    /// Whether it targets the main frame (false only for new windows).
    public var isMainFrame: Bool
    /// The document that asked, if any.
    public var sourceURL: URL?
    /// Whether a server redirected the navigation here: each hop of a navigation's redirect
    /// chain is offered to the delegate as its own action, with the request the hop will send
    /// (a hop to a custom scheme, such as an OAuth redirect URI, included, so it can be caught).
    public var isRedirect: Bool

    public init(
        request: PageRequest, navigationType: NavigationType, isUserInitiated: Bool, isMainFrame: Bool, sourceURL: URL?,
        isRedirect: Bool = false
    ) {
        self.request = request
        self.navigationType = navigationType
        self.isUserInitiated = isUserInitiated
        self.isMainFrame = isMainFrame
        self.sourceURL = sourceURL
        self.isRedirect = isRedirect
    }
}

/// What the delegate decides about a ``NavigationAction``.
public enum NavigationActionPolicy: Sendable, Hashable {
    case allow
    case cancel
}

/// A response a navigation received, for the ``NavigationDelegate`` to accept or refuse.
/// It carries the status and header names and values, with `Set-Cookie` values removed.
public struct NavigationResponse: Sendable, Hashable {
    public var url: URL
    public var statusCode: Int
    /// Header fields, `Set-Cookie` excluded.
    public var headers: [HTTPHeader]
    /// The names of the cookies the response set (values never shown).
    public var setCookieNames: [String]

    public init(url: URL, statusCode: Int, headers: [HTTPHeader], setCookieNames: [String]) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.setCookieNames = setCookieNames
    }
}

/// What the delegate decides about a ``NavigationResponse``.
public enum NavigationResponsePolicy: Sendable, Hashable {
    case allow
    case cancel
}

/// The outcome of a committed navigation.
public struct Navigation: Sendable, Hashable {
    /// The document's URL after redirects.
    public var url: URL
    public var statusCode: Int
    /// Each redirect hop's URL, in order.
    public var redirects: [URL]
    /// The document's title, when its HTML has one.
    public var title: String?

    public init(url: URL, statusCode: Int, redirects: [URL], title: String?) {
        self.url = url
        self.statusCode = statusCode
        self.redirects = redirects
        self.title = title
    }
}
