import Foundation

/// One session: a family of refresh tokens, each rotated into the next.
struct SessionFamily: Sendable {
    let id: String
    let username: String
    var currentRefreshToken: String
    var refreshExpiresAt: Date
    var revoked = false
    var revocationReason: String?
    /// The RFC 7638 thumbprint of the DPoP key the family's tokens are bound to, if any.
    var boundKey: String?
    /// The session this one was obtained from by token exchange, if any.
    var parentSessionID: String?
}

/// What is known of one refresh token ever issued.
struct RefreshTokenRecord: Sendable {
    enum State: Sendable { case current, rotated, revoked }
    let sessionID: String
    var state: State
    /// When it was rotated, and into which token.
    var rotation: (at: Date, successor: String)?
}

/// Outcome of presenting a refresh token.
enum RefreshOutcome: Sendable, Equatable {
    /// Rotated: the new refresh token and the session.
    case rotated(newToken: String, sessionID: String, username: String)
    /// A token rotated less than the reuse grace ago, whose successor is still unused, was
    /// presented again: the successor is issued again (the answer to the first use was lost).
    case replayed(newToken: String, sessionID: String, username: String)
    /// Unknown, expired or revoked token; the reason is safe to show.
    case invalid(reason: String)
    /// An already rotated token was used again: the family is now revoked.
    case reuse
}

/// Refresh token families, rotation and reuse detection. Lives inside ``ServerState``, under
/// the server's lock.
struct RefreshTokenStore: Sendable {
    private(set) var families: [String: SessionFamily] = [:]
    private(set) var records: [String: RefreshTokenRecord] = [:]
    /// Every refresh token ever issued, oldest first.
    private(set) var issued: [String] = []

    /// Start a new family for `username`; returns the session id and its first refresh token.
    mutating func startSession(
        username: String, lifetime: Duration, now: Date, boundKey: String? = nil, parentSessionID: String? = nil
    ) -> (sessionID: String, refreshToken: String) {
        let sessionID = RandomToken.make(prefix: "sid_", byteCount: 12)
        let token = self.mint(sessionID: sessionID)
        self.families[sessionID] = SessionFamily(
            id: sessionID,
            username: username,
            currentRefreshToken: token,
            refreshExpiresAt: now.addingTimeInterval(lifetime.timeInterval),
            boundKey: boundKey,
            parentSessionID: parentSessionID
        )
        return (sessionID, token)
    }

    /// Present a refresh token: rotate it, replay its rotation within `reuseGrace`, or detect
    /// reuse.
    mutating func use(_ token: String, lifetime: Duration, reuseGrace: Duration = .zero, now: Date) -> RefreshOutcome {
        guard let record = self.records[token], var family = self.families[record.sessionID] else {
            return .invalid(reason: "The refresh token is unknown.")
        }
        switch record.state {
        case .rotated:
            if reuseGrace > .zero, !family.revoked, let rotation = record.rotation,
                now.timeIntervalSince(rotation.at) <= reuseGrace.timeInterval
            {
                // A repeat within the grace is never taken for theft: it gets the same successor
                // while that is unused, and a plain refusal once the client has moved on (the
                // late original of a request the client already asked again). `now` was read
                // before the lock, so it may even precede the rotation: a zero grace is checked
                // on its own, never by comparing times.
                guard self.records[rotation.successor]?.state == .current, family.refreshExpiresAt > now else {
                    return .invalid(reason: "The refresh token was already rotated.")
                }
                return .replayed(newToken: rotation.successor, sessionID: family.id, username: family.username)
            }
            if !family.revoked {
                self.revoke(sessionID: family.id, reason: "refresh token reuse")
            }
            return .reuse
        case .revoked:
            return .invalid(reason: "The session was revoked.")
        case .current:
            break
        }
        if family.revoked { return .invalid(reason: "The session was revoked.") }
        if family.refreshExpiresAt <= now {
            self.revoke(sessionID: family.id, reason: "expired")
            return .invalid(reason: "The refresh token has expired.")
        }
        let next = self.mint(sessionID: family.id)
        self.records[token]?.state = .rotated
        self.records[token]?.rotation = (now, next)
        family.currentRefreshToken = next
        family.refreshExpiresAt = now.addingTimeInterval(lifetime.timeInterval)
        self.families[family.id] = family
        return .rotated(newToken: next, sessionID: family.id, username: family.username)
    }

    /// Present a refresh token to a server that does not rotate: the same token stays valid
    /// (its family's lifetime is extended) and is answered as the "new" one.
    mutating func useWithoutRotation(_ token: String, lifetime: Duration, now: Date) -> RefreshOutcome {
        guard let record = self.records[token], var family = self.families[record.sessionID], record.state == .current else {
            return .invalid(reason: "The refresh token is unknown or revoked.")
        }
        if family.revoked { return .invalid(reason: "The session was revoked.") }
        if family.refreshExpiresAt <= now {
            self.revoke(sessionID: family.id, reason: "expired")
            return .invalid(reason: "The refresh token has expired.")
        }
        family.refreshExpiresAt = now.addingTimeInterval(lifetime.timeInterval)
        self.families[family.id] = family
        return .rotated(newToken: token, sessionID: family.id, username: family.username)
    }

    /// Revoke a whole family. Returns whether it was active.
    @discardableResult
    mutating func revoke(sessionID: String, reason: String) -> Bool {
        guard var family = self.families[sessionID], !family.revoked else { return false }
        family.revoked = true
        family.revocationReason = reason
        self.families[sessionID] = family
        for (token, record) in self.records where record.sessionID == sessionID {
            self.records[token]?.state = record.state == .current ? .revoked : record.state
        }
        return true
    }

    /// The session a refresh token belongs to, whatever its state.
    func sessionID(ofRefreshToken token: String) -> String? {
        self.records[token]?.sessionID
    }

    /// The family of a refresh token, whatever the token's state.
    func family(ofRefreshToken token: String) -> SessionFamily? {
        self.records[token].flatMap { self.families[$0.sessionID] }
    }

    /// The state of a refresh token ever issued.
    func state(ofRefreshToken token: String) -> RefreshTokenRecord.State? {
        self.records[token]?.state
    }

    func isActive(sessionID: String, now: Date) -> Bool {
        guard let family = self.families[sessionID] else { return false }
        return !family.revoked && family.refreshExpiresAt > now
    }

    func activeSessionCount(now: Date) -> Int {
        self.families.values.count { !$0.revoked && $0.refreshExpiresAt > now }
    }

    private mutating func mint(sessionID: String) -> String {
        let token = RandomToken.make(prefix: "sbrt_", byteCount: 32)
        self.records[token] = RefreshTokenRecord(sessionID: sessionID, state: .current)
        self.issued.append(token)
        return token
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = self.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
