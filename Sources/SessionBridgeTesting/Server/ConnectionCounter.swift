import NIOCore
import NIOHTTPTypes

/// Counts the server's open connections (``ServerStats/openConnections``), so a test that killed
/// a client can wait until the kernel closed the dead client's connections and the server
/// handled whatever request they still carried. A connection's whole requests are counted as
/// they are read: one closed with a request whose handling has not started counts as open
/// until it starts.
final class ConnectionCounter: ChannelInboundHandler, RemovableChannelHandler {
    // Reads pass through untouched.
    typealias InboundIn = Any

    let core: ServerCore

    init(core: ServerCore) {
        self.core = core
    }

    // Counted from when the connection's channel is set up, just after it was accepted (not
    // from its activation, later: the kernel no longer holds it as waiting meanwhile), until
    // it is closed or its pipeline torn down.
    func handlerAdded(context: ChannelHandlerContext) {
        opened(context.channel)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closed(context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if counted, case .end? = unwrapInboundIn(data) as? HTTPRequestPart {
            let connection = ObjectIdentifier(context.channel)
            core.withState { $0.requestRead(on: connection) }
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed(context.channel)
        context.fireChannelInactive()
    }

    private func closed(_ channel: any Channel) {
        guard counted else { return }
        counted = false
        let connection = ObjectIdentifier(channel)
        core.withState { $0.connectionClosed(connection) }
    }

    private var counted = false

    private func opened(_ channel: any Channel) {
        guard !counted else { return }
        counted = true
        let connection = ObjectIdentifier(channel)
        core.withState { $0.connectionOpened(connection) }
    }
}
