/// The requests of one connection the server accepted: how many were read off it whole, and how
/// many the server started handling.
struct ConnectionRequests: Sendable {
    var read = 0
    var started = 0
    var closed = false
}

extension ServerState {
    /// A connection was accepted (counted open until its channel has closed).
    mutating func connectionAccepted() {
        stats.openConnections += 1
    }

    /// An accepted connection's channel has closed, and is no longer counted as open by itself.
    mutating func connectionEnded() {
        stats.openConnections -= 1
    }

    /// An accepted connection's channel was set up.
    mutating func connectionSetUp(_ connection: ObjectIdentifier) {
        connections[connection] = ConnectionRequests()
    }

    /// A whole request was read off `connection`.
    mutating func requestRead(on connection: ObjectIdentifier) {
        connections[connection]?.read += 1
    }

    /// The server started handling a request of `connection`.
    mutating func requestStarted(on connection: ObjectIdentifier) {
        guard var requests = connections[connection] else { return }
        requests.started += 1
        guard requests.closed, requests.started >= requests.read else { return connections[connection] = requests }
        connections[connection] = nil
        stats.openConnections -= 1
    }

    /// `connection` closed. (The client's end, read with its last request, closes the
    /// connection before that request's handling starts.) One with a request whose handling
    /// has not started still counts as open until it starts.
    mutating func connectionClosed(_ connection: ObjectIdentifier) {
        guard var requests = connections.removeValue(forKey: connection), requests.started < requests.read else { return }
        requests.closed = true
        connections[connection] = requests
        stats.openConnections += 1
    }
}
