/// The requests of one connection the server accepted: how many were read off it whole, and how
/// many the server started handling.
struct ConnectionRequests: Sendable {
    var read = 0
    var started = 0
    var closed = false
}

extension ServerState {
    /// A connection was accepted.
    mutating func connectionOpened(_ connection: ObjectIdentifier) {
        connections[connection] = ConnectionRequests()
        stats.openConnections += 1
    }

    /// A whole request was read off `connection`.
    mutating func requestRead(on connection: ObjectIdentifier) {
        connections[connection]?.read += 1
    }

    /// The server started handling a request of `connection`.
    mutating func requestStarted(on connection: ObjectIdentifier) {
        guard connections[connection] != nil else { return }
        connections[connection]?.started += 1
        endIfDone(connection)
    }

    /// `connection` closed: it stops counting as open once every request read off it has
    /// started being handled. (The client's end, read with its last request, closes the
    /// connection before that request's handling starts.)
    mutating func connectionClosed(_ connection: ObjectIdentifier) {
        guard connections[connection] != nil else { return }
        connections[connection]?.closed = true
        endIfDone(connection)
    }

    private mutating func endIfDone(_ connection: ObjectIdentifier) {
        guard let requests = connections[connection], requests.closed, requests.started >= requests.read else { return }
        connections[connection] = nil
        stats.openConnections -= 1
    }
}
