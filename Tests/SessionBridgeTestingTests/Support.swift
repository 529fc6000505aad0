import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SessionBridgeTesting
import Testing

/// One answer, read whole.
struct HTTPResult: Sendable {
    var status: Int
    var headerLines: [(name: String, value: String)]
    var body: String

    /// `Set-Cookie` lines, each as received on its own header line.
    var setCookies: [String] { self.values("Set-Cookie") }

    func values(_ name: String) -> [String] {
        self.headerLines.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    func header(_ name: String) -> String? { self.values(name).first }

    /// The first `Set-Cookie` line for a cookie name.
    func setCookie(named name: String) -> String? {
        self.setCookies.first { $0.hasPrefix(name + "=") }
    }

    /// A `Cookie` header built from the values of every `Set-Cookie` line with a value.
    var cookieHeader: String {
        self.setCookies.compactMap { line -> String? in
            let pair = line.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let equals = pair.firstIndex(of: "="), pair[pair.index(after: equals)...].isEmpty == false else { return nil }
            return pair
        }.joined(separator: "; ")
    }

    func json() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(self.body.utf8))
        return try #require(object as? [String: Any])
    }
}

/// A client that never follows redirects, bound to one server.
struct TestClient: Sendable {
    let http: HTTPClient
    let baseURL: String

    func request(
        _ method: String,
        _ path: String,
        headers: [(String, String)] = [],
        body: String? = nil,
        timeout: Int64 = 10
    ) async throws -> HTTPResult {
        var request = HTTPClientRequest(url: self.baseURL + path)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(Array(body.utf8)) }
        let response = try await self.http.execute(request, timeout: .seconds(timeout))
        let buffer = try await response.body.collect(upTo: 1 << 20)
        return HTTPResult(
            status: Int(response.status.code),
            headerLines: response.headers.map { ($0.name, $0.value) },
            body: String(buffer: buffer)
        )
    }

    func get(_ path: String, headers: [(String, String)] = []) async throws -> HTTPResult {
        try await self.request("GET", path, headers: headers)
    }

    func postForm(_ path: String, _ fields: [(String, String)], headers: [(String, String)] = []) async throws -> HTTPResult {
        let body = fields.map { "\(formEscape($0.0))=\(formEscape($0.1))" }.joined(separator: "&")
        return try await self.request(
            "POST",
            path,
            headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers,
            body: body
        )
    }

    func login(username: String = "demo", password: String = "demo") async throws -> HTTPResult {
        try await self.postForm("/oauth/token", [("grant_type", "password"), ("username", username), ("password", password)])
    }

    func refresh(_ token: String) async throws -> HTTPResult {
        try await self.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", token)])
    }
}

func formEscape(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
}

func makeHTTPClient() -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.redirectConfiguration = .disallow
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}

/// Start a server and a client, run `body`, then stop both whatever happens.
func withServer(
    _ configuration: ReferenceServerConfiguration = .init(),
    _ body: (ReferenceServer, TestClient) async throws -> Void
) async throws {
    let server = try await ReferenceServer.start(configuration)
    let http = makeHTTPClient()
    let client = TestClient(http: http, baseURL: server.baseURL.absoluteString)
    do {
        try await body(server, client)
    } catch {
        try? await http.shutdown()
        try? await server.stop()
        throw error
    }
    try await http.shutdown()
    try await server.stop()
}

/// Decode a JWT part (base64url, no padding) as a JSON object.
func jwtPart(_ part: Substring) throws -> [String: Any] {
    var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    let data = try #require(Data(base64Encoded: base64))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

/// Attributes of a `Set-Cookie` line, lowercased names, without the name=value pair.
func cookieAttributes(_ line: String) -> [String: String] {
    var attributes: [String: String] = [:]
    for part in line.split(separator: ";").dropFirst() {
        let pieces = part.split(separator: "=", maxSplits: 1)
        let name = pieces[0].trimmingCharacters(in: .whitespaces).lowercased()
        attributes[name] = pieces.count > 1 ? pieces[1].trimmingCharacters(in: .whitespaces) : ""
    }
    return attributes
}

func cookieValue(_ line: String) -> String {
    let pair = line.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    return pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first.map(String.init) ?? ""
}
