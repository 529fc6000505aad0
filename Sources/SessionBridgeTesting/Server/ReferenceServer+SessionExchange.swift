extension ReferenceServer {
    /// Makes the next `count` requests to `POST /session/exchange` fail with a `503`, as a web
    /// product that is briefly down does.
    public func failSessionExchanges(_ count: Int) {
        self.core.withState { $0.sessionExchangeFailuresRemaining = count }
    }
}
