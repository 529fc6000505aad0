/// Sleeps a millisecond at a time until `condition` holds or `limit` passes (a thread the test
/// waits for may never answer); returns whether it held.
@discardableResult
func poll(within limit: Duration = .seconds(10), until condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: .milliseconds(1))
    }
    return true
}
