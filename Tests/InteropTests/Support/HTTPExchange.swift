import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// One answer, read whole.
struct HTTPAnswer: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: String

    func json() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(self.body.utf8))
        return try #require(object as? [String: Any])
    }

    /// The `error` member of an RFC 6749 §5.2 answer.
    var oauthError: String? { (try? self.json())?["error"] as? String }
}

/// Plain HTTP to the interop server with AsyncHTTPClient, redirects not followed.
struct HTTPExchange: Sendable {
    let http: HTTPClient

    static func withClient<T>(_ body: (HTTPExchange) async throws -> T) async throws -> T {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let result = try await body(HTTPExchange(http: http))
            try await http.shutdown()
            return result
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    func get(_ url: URL) async throws -> HTTPAnswer {
        try await self.send(HTTPClientRequest(url: url.absoluteString))
    }

    /// POST `fields` form-encoded; `basic` adds RFC 6749 §2.3.1 client authentication.
    func postForm(_ url: URL, _ fields: [(String, String)], basic: (id: String, secret: String)? = nil) async throws -> HTTPAnswer {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        if let basic {
            let credentials = "\(formEncode(basic.id)):\(formEncode(basic.secret))"
            request.headers.add(name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString())
        }
        request.body = .bytes(Array(fields.map { "\(formEncode($0.0))=\(formEncode($0.1))" }.joined(separator: "&").utf8))
        return try await self.send(request)
    }

    private func send(_ request: HTTPClientRequest) async throws -> HTTPAnswer {
        let response = try await self.http.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return HTTPAnswer(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: String(buffer: body))
    }
}

/// `application/x-www-form-urlencoded` escaping of one name or value.
func formEncode(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
}
