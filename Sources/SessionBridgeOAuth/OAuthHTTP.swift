import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SessionBridgeHTTP

/// The few HTTP exchanges the OAuth client makes itself (discovery, keys, revocation), each
/// bounded in time and size; a `GET` whose kept-alive connection the server closed before
/// answering is sent once more (``/AsyncHTTPClient/HTTPClient/executeSendingIdempotentOnceMore(_:deadline:)``).
enum OAuthHTTP {
    struct Answer: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: Data
    }

    static func get(_ url: URL, client: HTTPClient, timeout: Duration) async throws(OAuthError) -> Answer {
        guard url.hasPortInRange else { throw OAuthError(.invalidConfiguration, "the URL's port is out of range (0-65535)") }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        return try await send(request, client: client, timeout: timeout)
    }

    /// Sends `request`; the head and the body (at most 1 MiB) must arrive within `timeout`.
    static func send(_ request: HTTPClientRequest, client: HTTPClient, timeout: Duration) async throws(OAuthError) -> Answer {
        do {
            return try await withThrowingTaskGroup(of: Answer?.self) { group in
                group.addTask {
                    // A GET (discovery, keys, userinfo) whose kept-alive connection closed
                    // unanswered is sent once more; a POST never is.
                    let response = try await client.executeSendingIdempotentOnceMore(request, deadline: .now() + TimeAmount(timeout))
                    let buffer = try await response.body.collect(upTo: 1 << 20)
                    return Answer(
                        status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
                        body: Data(buffer.readableBytesView))
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let answer = first else {
                    throw OAuthError(.network, "no answer within \(timeout)")
                }
                return answer
            }
        } catch let error as OAuthError {
            throw error
        } catch let error as IOError where error.errnoCode == ECONNREFUSED {
            throw OAuthError(.network, "the server refused the connection")
        } catch let error as MalformedResponseStatus {
            throw OAuthError(.network, error.description)
        } catch is NIOTooManyBytesError {
            throw OAuthError(.network, "the answer is larger than the 1 MiB it may have")
        } catch {
            throw OAuthError(.network, "the request failed: \(HTTPFailure.describe(error))")
        }
    }
}
