import NIOCore

/// Counts the server's open connections (``ServerStats/openConnections``), so a test that killed
/// a client can wait until the kernel closed the dead client's connections and the server
/// handled whatever request they still carried.
final class ConnectionCounter: ChannelInboundHandler, RemovableChannelHandler {
    // Reads pass through untouched (the default `channelRead` forwards them).
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
