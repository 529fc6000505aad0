import Dispatch
import Foundation

/// When a document's navigation started and how its request went, for the document's
/// `performance` (its time origin, its navigation entry and `performance.timing`), as
/// Navigation Timing Level 2 and High Resolution Time define them: the time origin is the
/// moment the navigation started, before its policy and its request.
struct NavigationTiming: Sendable {
    /// How the navigation came about, as the entry's `type` names it.
    enum Kind: String, Sendable {
        case navigate, reload
        case backForward = "back_forward"
    }

    /// The navigation's start: milliseconds since the epoch, and the uptime in nanoseconds
    /// that `performance.now()` counts from.
    let origin: (epochMilliseconds: Double, uptime: UInt64)
    let kind: Kind
    var redirectCount: Int
    /// Uptimes of the request's start and of its response's end; `nil` for a document that
    /// was not fetched (a string loaded as the page).
    var requestStart: UInt64?
    var responseEnd: UInt64?

    /// A navigation starting now.
    init(kind: Kind, redirectCount: Int = 0) {
        origin = (Date().timeIntervalSince1970 * 1000, DispatchTime.now().uptimeNanoseconds)
        self.kind = kind
        self.redirectCount = redirectCount
    }

    init(_ action: NavigationAction) {
        self.init(
            kind: action.navigationType == .reload ? .reload : action.navigationType == .backForward ? .backForward : .navigate)
    }

    /// `uptime` as milliseconds since the origin, coarsened to 100 µs as `performance.now()` is.
    func milliseconds(at uptime: UInt64) -> Double {
        Double((uptime &- origin.uptime) / 100_000) / 10
    }
}
