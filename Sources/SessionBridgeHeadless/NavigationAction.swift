public import Foundation

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
    /// The `Referer` the request sends, from the document that started it.
    var referrer: Referrer?
    /// Whether the next document takes the current one's place in the session history
    /// (`location.replace`).
    var replacesHistoryEntry = false
    /// For a ``NavigationType/backForward`` navigation, the session history's entry it goes to.
    var historyEntry: Int?

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
