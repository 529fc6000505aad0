extension ReferenceServer {
    /// The DPoP nonce the server hands out now (with ``ReferenceServerConfiguration/dpopNonces``).
    public var dpopNonce: String {
        self.core.currentDPoPNonce
    }

    /// Replaces the DPoP nonce; proofs with the one before are still accepted, older ones are
    /// answered `use_dpop_nonce`. Call it twice to make every nonce a client holds stale.
    public func rotateDPoPNonce() {
        self.core.withState { state in
            state.previousDPoPNonce = state.dpopNonce
            state.dpopNonce = RandomToken.make(prefix: "n_", byteCount: 12)
        }
    }

    /// The RFC 7638 thumbprint of the DPoP key a refresh token's session is bound to; `nil`
    /// for an unknown or unbound token.
    public func boundKeyThumbprint(ofRefreshToken token: String) -> String? {
        self.core.withState { $0.refreshTokens.family(ofRefreshToken: token)?.boundKey }
    }
}
