public import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
public import NIOSSL
import NIOWebSocket
import ServiceLifecycle
import Synchronization

/// A WebSocket server on loopback for tests of a page's sockets, with one endpoint, `/ws/echo`
/// (``url``): it sends back each message as it came (text as text, bytes as bytes), picks the
/// first subprotocol the client offers (or the query's `protocol`, offered or not), sets the
/// cookie `ws_set=1` when the query has `set-cookie`, and answers four commands:
/// - `cookies`: the names of the cookies the opening handshake carried, sorted, comma-separated;
/// - `origin`: the handshake's `Origin`;
/// - `fetch-metadata`: its `Sec-Fetch-Dest`, `Sec-Fetch-Mode`, `Sec-Fetch-Site` and `Cache-Control`,
///   space-separated (`-` for one it lacks);
/// - `sockets`: how many of its WebSockets are open, this one included;
/// - `close CODE REASON`: closes with that code and reason.
///
/// Cookies do not tell ports apart: on the reference server's host, the handshake carries the
/// cookies the reference server set.
///
/// ```swift
/// let echo = try await WebSocketEchoServer.start()
/// defer { Task { try? await echo.stop() } }
/// // In the page: new WebSocket("\(echo.url)")
/// ```
public final class WebSocketEchoServer: Sendable {
    /// The endpoint's `ws:` (or, with TLS, `wss:`) URL.
    public let url: URL
    private let serviceGroup: ServiceGroup
    private let task: Task<Void, any Error>

    private init(url: URL, serviceGroup: ServiceGroup, task: Task<Void, any Error>) {
        self.url = url
        self.serviceGroup = serviceGroup
        self.task = task
    }

    static let path = "/ws/echo"

    /// Starts a server on 127.0.0.1 and a free port, speaking TLS with `tlsConfiguration`.
    public static func start(tlsConfiguration: TLSConfiguration? = nil) async throws -> WebSocketEchoServer {
        let openSockets = OpenSockets()
        let logger = Logger(label: "sessionbridge.websocket-echo", factory: { _ in SwiftLogNoOpLogHandler() })
        let upgrading = HTTPServerBuilder.http1WebSocketUpgrade { request, _, _ in upgrade(request, openSockets: openSockets) }
        let running = try await ListeningApplication.start(logger: logger) { onServerRunning in
            Application(
                router: Router(),
                server: try tlsConfiguration.map { try .tls(upgrading, tlsConfiguration: $0) } ?? upgrading,
                configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: nil),
                onServerRunning: onServerRunning,
                logger: logger
            )
        }
        let port = running.port
        let url = URL(string: "\(tlsConfiguration == nil ? "ws" : "wss")://127.0.0.1:\(port)\(path)")!
        return WebSocketEchoServer(url: url, serviceGroup: running.serviceGroup, task: running.task)
    }

    /// Stops the server; a connection that never asked for anything is not waited for long.
    public func stop() async throws {
        await serviceGroup.triggerGracefulShutdown()
        let task = self.task
        let watchdog = Task {
            try await Task.sleep(for: .seconds(2))
            task.cancel()
        }
        defer { watchdog.cancel() }
        _ = try? await task.value
    }

    private static func upgrade(
        _ request: HTTPRequest, openSockets: OpenSockets
    ) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let parts = (request.path ?? "").split(separator: "?", maxSplits: 1)
        guard parts.first.map(String.init) == path else { return .dontUpgrade }
        let query = parts.count > 1 ? parts[1].split(separator: "&").map(String.init) : []
        let cookies = request.headerFields[values: .cookie].flatMap { $0.split(separator: ";") }
            .compactMap { $0.split(separator: "=", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces) }.sorted()
        let origin = request.headerFields[.origin] ?? ""
        let metadata = ["Sec-Fetch-Dest", "Sec-Fetch-Mode", "Sec-Fetch-Site", "Cache-Control"].map { name in
            HTTPField.Name(name).flatMap { request.headerFields[$0] } ?? "-"
        }.joined(separator: " ")
        var headers = HTTPFields()
        if let forced = query.first(where: { $0.hasPrefix("protocol=") }) {
            headers[.secWebSocketProtocol] = String(forced.dropFirst("protocol=".count))
        } else if let offered = request.headerFields[.secWebSocketProtocol]?.split(separator: ",").first {
            headers[.secWebSocketProtocol] = offered.trimmingCharacters(in: .whitespaces)
        }
        if query.contains("set-cookie") { headers[.setCookie] = "ws_set=1; Path=/; Secure; SameSite=Lax" }
        return .upgrade(headers) { inbound, outbound, _ in
            openSockets.count.withLock { $0 += 1 }
            defer { openSockets.count.withLock { $0 -= 1 } }
            for try await message in inbound.messages(maxSize: 1 << 20) {
                switch message {
                case .binary(let bytes):
                    try await outbound.write(.binary(bytes))
                case .text("cookies"):
                    try await outbound.write(.text(cookies.joined(separator: ",")))
                case .text("origin"):
                    try await outbound.write(.text(origin))
                case .text("fetch-metadata"):
                    try await outbound.write(.text(metadata))
                case .text("sockets"):
                    try await outbound.write(.text(String(openSockets.count.withLock { $0 })))
                case .text(let text) where text.hasPrefix("close "):
                    let parts = text.split(separator: " ", maxSplits: 2)
                    let code = parts.count > 1 ? UInt16(parts[1]) ?? 1000 : 1000
                    try await outbound.close(.init(codeNumber: Int(code)), reason: parts.count > 2 ? String(parts[2]) : nil)
                    return
                case .text(let text):
                    try await outbound.write(.text(text))
                }
            }
        }
    }
}

/// How many of the server's WebSockets are open.
final class OpenSockets: Sendable {
    let count = Mutex(0)
}
