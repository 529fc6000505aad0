import Foundation

/// How a token-endpoint request is retried: a bounded number of attempts with exponential
/// backoff and full jitter, honouring `Retry-After` up to a ceiling.
///
/// Failures that prove the request was not processed are retried: a connection that could not
/// be made, and `429`/`502`/`503`/`504` answers. A refresh that timed out or lost its answer may
/// have rotated the refresh token on the server, so it is sent again with the same token only
/// within the server's ``SessionConfiguration/refreshTokenReuseGrace``.
public struct RetryPolicy: Sendable, Hashable {
    /// Most attempts in all (the first included).
    public var maxAttempts: Int
    /// The delay before the second attempt, doubled for each later one.
    public var baseDelay: Duration
    /// The longest delay between attempts.
    public var maxDelay: Duration
    /// The longest `Retry-After` honoured; a longer one fails at once (retryable).
    public var maxRetryAfter: Duration

    /// Creates a policy; the defaults are 3 attempts, 200 ms doubling, at most 5 s.
    public init(
        maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(5),
        maxRetryAfter: Duration = .seconds(10)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// No retries.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The pause before attempt `attempt + 1` (attempt counts from 1), given the server's
    /// `Retry-After`, or `nil` when no further attempt should be made.
    public func delay(after attempt: Int, retryAfter: Duration?) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        if let retryAfter {
            return retryAfter <= maxRetryAfter ? retryAfter : nil
        }
        let exponential = baseDelay * (1 << min(attempt - 1, 20))
        let capped = min(exponential, maxDelay)
        // Full jitter: anywhere in [capped/2, capped].
        let fraction = Double.random(in: 0.5...1.0)
        return capped * fraction
    }

    /// Parses a `Retry-After` value: delta-seconds or an HTTP date.
    static func parseRetryAfter(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return .seconds(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .seconds(max(0, date.timeIntervalSince(now)))
    }
}
