import HummingbirdCore

/// Counts each connection in ``ServerStats/openConnections`` from when the server accepted it
/// (on the listening channel, before the connection's own channel is set up on its event loop)
/// until its channel has closed.
struct ConnectionAcceptance: AvailableConnectionsDelegate {
    let core: ServerCore

    mutating func connectionOpened() {
        core.withState { $0.connectionAccepted() }
    }

    mutating func connectionClosed() {
        core.withState { $0.connectionEnded() }
    }

    func isAcceptingNewConnections() -> Bool { true }
}
