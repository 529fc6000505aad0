public import Foundation
import Synchronization

/// A wall clock a test sets and moves forward, so that expiries pass without waiting.
///
/// Pass ``read`` wherever the library takes a wall clock: `SessionConfiguration.now`, or
/// `CookieJar`'s `clock`.
///
/// ```swift
/// let clock = ManualWallClock()
/// var configuration = SessionConfiguration(server: server.baseURL)
/// configuration.now = clock.read
/// // …
/// clock.advance(by: .seconds(3600))   // the session's tokens and cookies now look an hour older
/// ```
public final class ManualWallClock: Sendable {
    private let date: Mutex<Date>

    /// A clock that starts at `start` (now by default) and moves only when told.
    public init(_ start: Date = Date()) { self.date = Mutex(start) }

    /// The clock's current time.
    public var now: Date { self.date.withLock { $0 } }

    /// Moves the clock forward by `duration`.
    public func advance(by duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        self.date.withLock { $0 += seconds }
    }

    /// The clock as the closure the library's configurations take.
    public var read: @Sendable () -> Date { { [self] in self.now } }
}
