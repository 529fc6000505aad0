import Synchronization

/// Waits for work within the page's `--timeout`: the run goes on to its end (exit 3, the stores
/// shown) when the budget ends first, where the hard deadline (``RunDeadline``) would end the
/// process. The work is left running; the process ends soon after.
enum RunBudget {
    /// `work`'s value, or nil when `deadline` came first.
    static func within<T: Sendable>(
        _ deadline: ContinuousClock.Instant, _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        let settled = Mutex<CheckedContinuation<T?, any Error>?>(nil)
        let resume = { @Sendable (result: Result<T?, any Error>) in
            settled.withLock { continuation in
                continuation?.resume(with: result)
                continuation = nil
            }
        }
        return try await withCheckedThrowingContinuation { continuation in
            settled.withLock { $0 = continuation }
            Task {
                do { resume(.success(try await work())) } catch { resume(.failure(error)) }
            }
            Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                resume(.success(nil))
            }
        }
    }
}
