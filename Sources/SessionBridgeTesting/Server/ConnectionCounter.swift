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

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { opened(context.channel) }
    }

    func channelActive(context: ChannelHandlerContext) {
        opened(context.channel)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if counted, case .end? = unwrapInboundIn(data) as? HTTPRequestPart {
            let connection = ObjectIdentifier(context.channel)
            core.withState { $0.requestRead(on: connection) }
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if counted {
            counted = false
            let connection = ObjectIdentifier(context.channel)
            core.withState { $0.connectionClosed(connection) }
        }
        context.fireChannelInactive()
    }

    private var counted = false

    private func opened(_ channel: any Channel) {
        guard !counted else { return }
        counted = true
        let connection = ObjectIdentifier(channel)
        core.withState { $0.connectionOpened(connection) }
    }
}
