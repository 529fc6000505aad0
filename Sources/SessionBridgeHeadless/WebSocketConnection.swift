import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization

/// A page's WebSocket connection (RFC 6455): the opening handshake carries what the page
/// gives it (the cookies the jar sends to the URL, the document's origin, the user agent,
/// the subprotocols asked for), then messages go both ways until either side closes.
///
/// What happens is told through `deliver`, on the connection's own task, in order: `open`,
/// the messages, and `closed` last, once.
final class WebSocketConnection: Sendable {
    /// What the page hears of its connection.
    enum Event: Sendable {
        /// It opened, with the subprotocol the server chose ("" for none).
        case open(protocol: String)
        case text(String)
        case binary([UInt8])
        /// The connection ended: `failed` when it never opened or broke without a closing
        /// handshake (the page then gets `error` before `close`).
        case closed(code: Int, reason: String, wasClean: Bool, failed: Bool)
    }

    /// What the page asks of its connection.
    enum Command: Sendable {
        case text(String)
        case binary([UInt8])
        case close(code: Int, reason: String)
    }

    /// The largest message a page is given; a larger one fails the connection (1006).
    static let maximumMessageSize = 16 << 20

    private let commands: AsyncStream<Command>.Continuation
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    /// `handshake` is told of the server's answer to the opening handshake (`nil` for none, or
    /// one that was no upgrade), before anything else, and decides whether the connection opens.
    init(
        url: URL, headers: HTTPFields, tlsConfiguration: TLSConfiguration?,
        handshake: @escaping @Sendable (HTTPResponseHead?) -> Bool, deliver: @escaping @Sendable (Event) -> Void
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: Command.self)
        commands = continuation
        let started = Task {
            await Self.run(
                url: url, headers: headers, tlsConfiguration: tlsConfiguration, commands: (stream, continuation), handshake: handshake,
                deliver: deliver)
        }
        task.withLock { $0 = started }
    }

    /// Sends a message, or closes; nothing once the connection ended.
    func send(_ command: Command) {
        commands.yield(command)
    }

    /// Closes with 1001 ("going away"), as a browser does when the page's document goes away,
    /// and ends the connection if the server does not answer in time.
    func goAway() {
        commands.yield(.close(code: 1001, reason: ""))
        commands.finish()
        let running = task.withLock { $0 }
        Task {
            try? await Task.sleep(for: .seconds(5))
            running?.cancel()
        }
    }

    /// Whether this side sent its close frame (one only, whichever side closed first).
    private final class CloseSent: Sendable {
        private let sent = Atomic<Bool>(false)
        /// `true` the first time only: the caller sends it.
        func send() -> Bool { !sent.exchange(true, ordering: .relaxed) }
    }

    /// A connection's outcome as the page hears it.
    private struct Ending: Error {
        var code = 1006
        var reason = ""
        var wasClean = false
        var failed = true
    }

    private enum Upgrade: Sendable {
        case webSocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, HTTPResponseHead)
        case refused
    }

    private static func run(
        url: URL, headers: HTTPFields, tlsConfiguration: TLSConfiguration?,
        commands: (stream: AsyncStream<Command>, continuation: AsyncStream<Command>.Continuation),
        handshake: @escaping @Sendable (HTTPResponseHead?) -> Bool, deliver: @escaping @Sendable (Event) -> Void
    ) async {
        let ending: Ending
        do {
            ending = try await talk(
                url: url, headers: headers, tlsConfiguration: tlsConfiguration, commands: commands, handshake: handshake, deliver: deliver)
        } catch let failure as Ending {
            ending = failure
        } catch {
            ending = Ending()
        }
        commands.continuation.finish()
        deliver(.closed(code: ending.code, reason: ending.reason, wasClean: ending.wasClean, failed: ending.failed))
    }

    /// The opening handshake, then the messages both ways until the closing handshake.
    private static func talk(
        url: URL, headers: HTTPFields, tlsConfiguration: TLSConfiguration?,
        commands: (stream: AsyncStream<Command>, continuation: AsyncStream<Command>.Continuation),
        handshake: @escaping @Sendable (HTTPResponseHead?) -> Bool, deliver: @escaping @Sendable (Event) -> Void
    ) async throws -> Ending {
        guard let host = url.host, !host.isEmpty else {
            _ = handshake(nil)
            throw Ending()
        }
        let secure = url.scheme?.lowercased() == "wss"
        let port = url.port ?? (secure ? 443 : 80)
        let sslContext = try secure ? NIOSSLContext(configuration: tlsConfiguration ?? .makeClientConfiguration()) : nil
        var target = url.path.isEmpty ? "/" : url.path(percentEncoded: true)
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        var requestHeaders = HTTPHeaders()
        let hostName = host.contains(":") ? "[\(host)]" : host
        requestHeaders.add(name: "Host", value: url.port.map { "\(hostName):\($0)" } ?? hostName)
        for field in headers { requestHeaders.add(name: field.name.rawName, value: field.value) }
        let requestHead = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: requestHeaders)
        let opened = Mutex<(any Channel)?>(nil)
        let upgrade: EventLoopFuture<Upgrade>
        do {
            upgrade = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .connect(host: host, port: port) { channel in
                    opened.withLock { $0 = channel }
                    return channel.eventLoop.makeCompletedFuture {
                        if let sslContext {
                            let serverName = host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : host
                            try channel.pipeline.syncOperations.addHandler(
                                NIOSSLClientHandler(context: sslContext, serverHostname: serverName))
                        }
                        let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: maximumMessageSize) { channel, head in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(
                                    NIOWebSocketFrameAggregator(
                                        minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: .max,
                                        maxAccumulatedFrameSize: maximumMessageSize))
                                return .webSocket(try NIOAsyncChannel(wrappingChannelSynchronously: channel), head)
                            }
                        }
                        let configuration = NIOTypedHTTPClientUpgradeConfiguration<Upgrade>(
                            upgradeRequestHead: requestHead, upgraders: [upgrader],
                            notUpgradingCompletionHandler: { channel in channel.eventLoop.makeCompletedFuture { .refused } })
                        return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                            configuration: .init(upgradeConfiguration: configuration))
                    }
                }
        } catch {
            _ = handshake(nil)
            throw Ending()
        }
        // A server that accepts the connection but never answers the handshake is given up on.
        let timeout = Task {
            try await Task.sleep(for: .seconds(30))
            try await opened.withLock { $0 }?.close()
        }
        defer { timeout.cancel() }
        let result: Upgrade
        do {
            result = try await upgrade.get()
        } catch {
            _ = handshake(nil)
            try? await opened.withLock { $0 }?.close()
            throw Ending()
        }
        timeout.cancel()
        // An answer that is no upgrade (a 404), or one the page cannot take, ends the connection.
        guard case .webSocket(let channel, let head) = result, handshake(head) else {
            if case .refused = result { _ = handshake(nil) }
            try? await opened.withLock { $0 }?.close()
            throw Ending()
        }
        deliver(.open(protocol: head.headers["Sec-WebSocket-Protocol"].first ?? ""))
        let closeSent = CloseSent()
        return try await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: Ending?.self) { group in
                // The page's messages, and its close.
                group.addTask {
                    for await command in commands.stream {
                        let frame: WebSocketFrame
                        switch command {
                        case .text(let text):
                            frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text))
                        case .binary(let bytes):
                            frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: ByteBuffer(bytes: bytes))
                        case .close(let code, let reason):
                            if closeSent.send() { try await outbound.write(Self.closeFrame(code, reason: reason)) }
                            // The server answers with its own close; one that does not is cut off.
                            try await Task.sleep(for: .seconds(5))
                            return Ending()
                        }
                        try await outbound.write(frame)
                    }
                    return nil
                }
                // The server's messages, until its close.
                group.addTask {
                    for try await frame in inbound {
                        switch frame.opcode {
                        case .text:
                            guard let text = String(validating: frame.unmaskedData.readableBytesView, as: UTF8.self) else {
                                if closeSent.send() { try? await outbound.write(Self.closeFrame(1007)) }
                                return Ending(code: 1006)
                            }
                            deliver(.text(text))
                        case .binary:
                            deliver(.binary(Array(buffer: frame.unmaskedData)))
                        case .ping:
                            try await outbound.write(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData))
                        case .connectionClose:
                            var data = frame.unmaskedData
                            let code = data.readWebSocketErrorCode().map { Int(UInt16(webSocketErrorCode: $0)) }
                            let reason = data.readString(length: data.readableBytes) ?? ""
                            // Answered with the same code, unless the page closed first.
                            if closeSent.send() { try? await outbound.write(Self.closeFrame(code ?? 1000)) }
                            return Ending(code: code ?? 1005, reason: reason, wasClean: true, failed: false)
                        default:
                            continue
                        }
                    }
                    return Ending()
                }
                var ending = Ending()
                while let finished = try await group.next() {
                    if let finished {
                        ending = finished
                        break
                    }
                }
                group.cancelAll()
                return ending
            }
        }
    }

    private static func closeFrame(_ code: Int, reason: String = "") -> WebSocketFrame {
        var data = ByteBuffer()
        data.write(webSocketErrorCode: WebSocketErrorCode(codeNumber: code))
        data.writeString(reason)
        return WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
    }
}
