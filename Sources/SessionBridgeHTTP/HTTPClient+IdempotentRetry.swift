package import AsyncHTTPClient
import Glibc
package import NIOCore
import NIOHTTP1

extension HTTPClient {
    /// Sends `request` and waits for its response's head, by `deadline`.
    ///
    /// An idempotent request (RFC 9110 §9.2.2) whose connection ended before any of its answer
    /// arrived is sent once more, as WebKit's network layer sends it again: a server may close a
    /// kept-alive connection (its idle timeout) while the next request is on its way, and that
    /// is not the server's answer. A request of any other method is not sent again (the server
    /// may have acted on it), nor is one that timed out, was cancelled or was refused.
    ///
    /// WebKit sends a request again only when its connection had carried one before; the pool
    /// does not say which connection a request went on, so a request whose new connection
    /// closed unanswered is sent once more too.
    package func executeSendingIdempotentOnceMore(
        _ request: HTTPClientRequest, deadline: NIODeadline
    ) async throws -> HTTPClientResponse {
        do {
            return try await execute(request, deadline: deadline)
        } catch let error where Self.idempotentMethods.contains(request.method) && Self.endedBeforeAnAnswer(error) {
            return try await execute(request, deadline: deadline)
        }
    }

    /// RFC 9110's idempotent methods.
    static let idempotentMethods: [HTTPMethod] = [.GET, .HEAD, .OPTIONS, .TRACE, .PUT, .DELETE]

    /// Whether `error` says the connection ended (closed or reset by the server) before the
    /// response's head arrived.
    static func endedBeforeAnAnswer(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError { return error == .remoteConnectionClosed }
        if let error = error as? ChannelError { return error == .eof || error == .ioOnClosedChannel || error == .outputClosed }
        if let error = error as? IOError { return [ECONNRESET, EPIPE].contains(error.errnoCode) }
        return false
    }
}
