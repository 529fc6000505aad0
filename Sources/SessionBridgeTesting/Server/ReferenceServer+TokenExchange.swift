extension ReferenceServer {
    /// What the server knows of a refresh token it issued.
    public enum RefreshTokenState: String, Sendable {
        /// The session's current token, unused.
        case current
        /// Used once and rotated into a successor.
        case rotated
        /// Its session was revoked (logout, revocation, reuse).
        case revoked
    }

    /// The state of a refresh token, or `nil` when the server never issued it.
    public func refreshTokenState(_ token: String) -> RefreshTokenState? {
        self.core.withState { state in
            switch state.refreshTokens.state(ofRefreshToken: token) {
            case .current: .current
            case .rotated: .rotated
            case .revoked: .revoked
            case nil: nil
            }
        }
    }

    /// Every refresh token presented to the token endpoint, in order, so a test can say which
    /// tokens a client spent.
    public func presentedRefreshTokens() -> [String] {
        self.core.withState { $0.presentedRefreshTokens }
    }

    /// The session a refresh token's session was obtained from by token exchange (its
    /// `sid`), or `nil`.
    public func parentSessionID(ofRefreshToken token: String) -> String? {
        self.core.withState { $0.refreshTokens.family(ofRefreshToken: token)?.parentSessionID }
    }

    /// The session (`sid`) a refresh token belongs to.
    public func sessionID(ofRefreshToken token: String) -> String? {
        self.core.withState { $0.refreshTokens.sessionID(ofRefreshToken: token) }
    }
}
