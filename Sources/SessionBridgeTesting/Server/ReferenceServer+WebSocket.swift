import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// How many of the server's WebSockets are open.
final class OpenSockets: Sendable {
    let count = Mutex(0)
}

extension ReferenceServer {
    /// The server's WebSocket endpoint, `/ws/echo`: it sends back each message as it came
    /// (text as text, bytes as bytes), picks the first subprotocol the client offers (or the
    /// query's `protocol`, offered or not), sets the cookie `ws_set=1` when the query has
    /// `set-cookie`, and answers three commands, for tests of a page's sockets:
    /// - `cookies`: the names of the cookies the opening handshake carried, sorted, comma-separated;
    /// - `origin`: the handshake's `Origin`;
    /// - `sockets`: how many of the server's WebSockets are open, this one included;
    /// - `close CODE REASON`: closes with that code and reason.
    static let webSocketPath = "/ws/echo"

    static func webSocketUpgrade(
        _ request: HTTPRequest, openSockets: OpenSockets
    ) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let parts = (request.path ?? "").split(separator: "?", maxSplits: 1)
        guard parts.first.map(String.init) == webSocketPath else { return .dontUpgrade }
        let query = parts.count > 1 ? parts[1].split(separator: "&").map(String.init) : []
        let cookies = request.headerFields[values: .cookie].flatMap { $0.split(separator: ";") }
            .compactMap { $0.split(separator: "=", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces) }.sorted()
        let origin = request.headerFields[.origin] ?? ""
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
