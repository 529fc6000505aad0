import Crypto
import Foundation
import Logging
import Synchronization

/// The shared core of a running server: configuration, signing key and state. Routes and
/// middleware capture it; it is `Sendable` because every mutable part sits in a `Mutex`.
final class ServerCore: Sendable {
    let configuration: ReferenceServerConfiguration
    let signingKey: SymmetricKey
    /// Signs ID tokens; its public half is the published key set.
    let idTokenKeys: IDTokenKeys
    let state: Mutex<ServerState>
    /// Set once the port is known; the JWT issuer.
    let issuer: Mutex<String>
    /// Set when the server stops; releases requests held by ``FaultConfiguration/stopResponding``.
    let stopping = Mutex(false)

    init(configuration: ReferenceServerConfiguration) {
        self.configuration = configuration
        self.signingKey = SymmetricKey(size: .bits256)
        self.idTokenKeys = IDTokenKeys(algorithm: configuration.idTokenAlgorithm)
        var state = ServerState(faults: configuration.faults)
        state.oauthFaults = configuration.oauthFaults
        self.state = Mutex(state)
        self.issuer = Mutex("http://\(configuration.host)")
    }

    var accessLifetimeSeconds: Int { self.configuration.accessTokenLifetime.wholeSecondsRoundedUp }
    var refreshLifetimeSeconds: Int { self.configuration.refreshTokenLifetime.wholeSecondsRoundedUp }

    func withState<T>(_ body: (inout ServerState) throws -> T) rethrows -> T {
        try self.state.withLock { try body(&$0) }
    }

    /// Sign an access token for a session; records its id.
    func makeAccessToken(username: String, sessionID: String, now: Date, boundKey: String? = nil) -> (String, AccessTokenClaims) {
        let iat = Int(now.timeIntervalSince1970)
        // Round the expiry up so that a token lives at least its configured lifetime.
        // At most a century ahead: a configured lifetime past `Int`'s range must not trap.
        let lifetime = min(self.configuration.accessTokenLifetime.timeInterval, 100 * 365 * 86_400)
        let exp = Int((now.timeIntervalSince1970 + lifetime).rounded(.up))
        let claims = AccessTokenClaims(
            iss: self.issuer.withLock { $0 },
            sub: username,
            iat: iat,
            exp: exp,
            sid: sessionID,
            jti: RandomToken.make(prefix: "", byteCount: 12),
            cnf: boundKey.map { AccessTokenClaims.Confirmation(jkt: $0) }
        )
        _ = self.withState { $0.issuedAccessTokenIDs.insert(claims.jti) }
        return (JWT.sign(claims, key: self.signingKey), claims)
    }

    /// Check a password sign-in; on success start a session and issue tokens.
    func signIn(username: String, password: String, boundKey: String? = nil) -> IssuedTokens? {
        guard Self.constantTimeEquals(username, self.configuration.username),
            Self.constantTimeEquals(password, self.configuration.password)
        else { return nil }
        let now = Date()
        let (sessionID, refreshToken) = self.withState { state in
            state.stats.logins += 1
            return state.refreshTokens.startSession(
                username: username,
                lifetime: self.configuration.refreshTokenLifetime,
                now: now,
                boundKey: boundKey
            )
        }
        let (accessToken, claims) = self.makeAccessToken(username: username, sessionID: sessionID, now: now, boundKey: boundKey)
        self.configuration.logger.debug("sign-in", metadata: ["sid": "\(sessionID)", "refresh_token": "<redacted>"])
        return IssuedTokens(accessToken: accessToken, refreshToken: refreshToken, claims: claims, expiresIn: self.accessLifetimeSeconds)
    }

    enum RefreshResult: Sendable {
        case success(IssuedTokens)
        case invalid(String)
        case reuse
    }

    /// Rotate a refresh token; counts refreshes and reuse events.
    func refresh(_ token: String, web: Bool) -> RefreshResult {
        let now = Date()
        let outcome = self.withState { state in
            let outcome =
                self.configuration.rotatesRefreshTokens
                ? state.refreshTokens.use(
                    token, lifetime: self.configuration.refreshTokenLifetime, reuseGrace: self.configuration.refreshTokenReuseGrace,
                    now: now)
                : state.refreshTokens.useWithoutRotation(token, lifetime: self.configuration.refreshTokenLifetime, now: now)
            switch outcome {
            case .rotated:
                state.stats.refreshes += 1
                if web { state.stats.webRefreshes += 1 }
            case .replayed:
                state.stats.graceReplays += 1
            case .reuse:
                state.stats.reuseEvents += 1
            case .invalid:
                break
            }
            return outcome
        }
        switch outcome {
        case .rotated(let newToken, let sessionID, let username), .replayed(let newToken, let sessionID, let username):
            let boundKey = self.withState { $0.refreshTokens.families[sessionID]?.boundKey }
            let (accessToken, claims) = self.makeAccessToken(username: username, sessionID: sessionID, now: now, boundKey: boundKey)
            self.configuration.logger.debug("refresh", metadata: ["sid": "\(sessionID)", "refresh_token": "<redacted>"])
            return .success(
                IssuedTokens(accessToken: accessToken, refreshToken: newToken, claims: claims, expiresIn: self.accessLifetimeSeconds)
            )
        case .reuse:
            self.configuration.logger.notice("refresh token reuse: session family revoked", metadata: ["refresh_token": "<redacted>"])
            return .reuse
        case .invalid(let reason):
            return .invalid(reason)
        }
    }

    /// Verify an access token: signature, expiry, early expiry and session revocation.
    /// Which access tokens a check accepts.
    enum Binding {
        /// Only tokens bound to no key (a bearer token, a cookie).
        case unbound
        /// Bound or not: the caller checks the binding (a DPoP request, a revocation).
        case any
    }

    func verifyAccessToken(_ token: String?, binding: Binding = .unbound) -> Result<AccessTokenClaims, AccessTokenRejection> {
        guard let token, !token.isEmpty else { return .failure(.missing) }
        let claims: AccessTokenClaims
        do {
            claims = try JWT.verify(token, key: self.signingKey)
        } catch {
            switch error {
            case .expired: return .failure(.expired)
            case .badSignature: return .failure(.badSignature)
            case .malformed, .unsupportedAlgorithm: return .failure(.malformed)
            }
        }
        if binding == .unbound, claims.cnf != nil { return .failure(.boundToKey) }
        let now = Date()
        return self.withState { state in
            if state.expiredAccessTokenIDs.contains(claims.jti) { return .failure(.expired) }
            if !state.refreshTokens.isActive(sessionID: claims.sid, now: now) { return .failure(.revoked) }
            return .success(claims)
        }
    }

    /// Revoke the session of a token or id; counts a logout when it was active.
    @discardableResult
    func endSession(sessionID: String, reason: String) -> Bool {
        self.withState { state in
            let ended = state.refreshTokens.revoke(sessionID: sessionID, reason: reason)
            if ended { state.stats.logouts += 1 }
            return ended
        }
    }

    func countUnauthorized() {
        self.withState { $0.stats.unauthorized += 1 }
    }

    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            let left = index < x.count ? x[index] : 0
            let right = index < y.count ? y[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }
}
