import NIOCore
import NIOHTTPTypes

/// Counts the server's open connections (``ServerStats/openConnections``) and the requests read
/// off them (``ServerStats/requestsRead``), so a test that killed a client can wait until the
/// kernel closed the dead client's connections and the server handled whatever request they
/// still carried. A request is counted as it is read: its connection may close (the client's
/// end read with it) before the request's handling starts.
final class ConnectionCounter: ChannelInboundHandler, RemovableChannelHandler {
    // Reads pass through untouched.
    typealias InboundIn = Any

    let core: ServerCore

    init(core: ServerCore) {
        self.core = core
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { opened() }
    }

    func channelActive(context: ChannelHandlerContext) {
        opened()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head? = unwrapInboundIn(data) as? HTTPRequestPart {
            core.withState { $0.stats.requestsRead += 1 }
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if counted {
            counted = false
            core.withState { $0.stats.openConnections -= 1 }
        }
        context.fireChannelInactive()
    }

    private var counted = false

    private func opened() {
        guard !counted else { return }
        counted = true
        core.withState { $0.stats.openConnections += 1 }
    }
}
