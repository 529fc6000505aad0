public import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOHTTP2

extension HTTPClient.Configuration {
    /// Fails a request whose answer's status code is below 100, and closes its connection,
    /// before AsyncHTTPClient reads the answer: on every HTTP/1.1 connection and HTTP/2 stream
    /// of a client made with this configuration (an initializer set before is still called).
    ///
    /// No server should send `HTTP/1.1 000`, and a hostile one may: NIO's decoder gives such an
    /// answer a body, while AsyncHTTPClient 1.37 takes every code below 200 for an informational
    /// answer, drops its head and then stops the process on the body that follows (a
    /// precondition in `HTTPRequestStateMachine`). WebKit refuses the answer ("Could not parse
    /// HTTP response"); here the request fails with ``MalformedResponseStatus``. Every client
    /// SessionBridge makes has it; give it to a client of your own that pages' or a session's
    /// requests use.
    public mutating func refusingMalformedStatusCodes() {
        let http1 = http1_1ConnectionDebugInitializer
        http1_1ConnectionDebugInitializer = { channel in
            channel.eventLoop.submit {
                let sync = channel.pipeline.syncOperations
                let decoder = try sync.handler(type: ByteToMessageHandler<HTTPResponseDecoder>.self)
                try sync.addHandler(ResponseStatusCheck(), position: .after(decoder))
            }
            .flatMap { http1?(channel) ?? channel.eventLoop.makeSucceededVoidFuture() }
        }
        let stream = http2StreamChannelDebugInitializer
        http2StreamChannelDebugInitializer = { channel in
            channel.eventLoop.submit {
                let sync = channel.pipeline.syncOperations
                let codec = try sync.handler(type: HTTP2FramePayloadToHTTP1ClientCodec.self)
                try sync.addHandler(ResponseStatusCheck(), position: .after(codec))
            }
            .flatMap { stream?(channel) ?? channel.eventLoop.makeSucceededVoidFuture() }
        }
    }
}

/// An answer whose status code HTTP does not have (below 100): the request fails with it.
public struct MalformedResponseStatus: Error, CustomStringConvertible, Sendable {
    /// The status code the server sent.
    public let code: Int

    public var description: String { "the server answered with status code \(code), which HTTP does not have" }
}

/// Sits between the response decoder and AsyncHTTPClient's handler (see
/// ``HTTPClient/Configuration/refusingMalformedStatusCodes()``): an answer whose status code
/// is below 100 becomes an error, and the connection is closed; what follows of it is dropped.
final class ResponseStatusCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        if case .head(let head) = unwrapInboundIn(data), head.status.code < 100 {
            refused = true
            context.fireErrorCaught(MalformedResponseStatus(code: Int(head.status.code)))
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }
}
