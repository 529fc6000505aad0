import Synchronization

extension ReferenceServer {
    /// Replace the protocol faults (``OAuthFaults``).
    public func setOAuthFaults(_ faults: OAuthFaults) {
        self.core.withState { $0.oauthFaults = faults }
    }

    /// The protocol faults now in force.
    public var oauthFaults: OAuthFaults {
        self.core.withState { $0.oauthFaults }
    }

    /// The issuer identifier, `http://HOST:PORT`, as the discovery documents name it.
    public var issuer: String {
        self.core.issuer.withLock { $0 }
    }
}
