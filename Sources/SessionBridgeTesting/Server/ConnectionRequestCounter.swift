import NIOCore
import NIOHTTPTypes

/// Counts the whole requests read off a connection (``ServerState/connections``), so that one
/// closed with a request whose handling has not started still counts in
/// ``ServerStats/openConnections`` (``ConnectionAcceptance`` counts it until its close): a test
/// that killed a client waits until the server handled whatever request its connections still
/// carried.
final class ConnectionRequestCounter: ChannelInboundHandler, RemovableChannelHandler {
    // Reads pass through untouched.
    typealias InboundIn = Any

    let core: ServerCore

    init(core: ServerCore) {
        self.core = core
    }

    // From when the connection's channel is set up until it is closed or its pipeline torn down.
    func handlerAdded(context: ChannelHandlerContext) {
        opened(context.channel)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closed(context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if tracked, case .end? = unwrapInboundIn(data) as? HTTPRequestPart {
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
        guard tracked else { return }
        tracked = false
        let connection = ObjectIdentifier(channel)
        core.withState { $0.connectionClosed(connection) }
    }

    private var tracked = false

    private func opened(_ channel: any Channel) {
        guard !tracked else { return }
        tracked = true
        let connection = ObjectIdentifier(channel)
        core.withState { $0.connectionSetUp(connection) }
    }
}
