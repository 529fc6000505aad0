import Foundation
import Hummingbird

/// The request context of the reference server: the basic context plus the connection, so that
/// faults can close it.
struct ReferenceRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// Closes the underlying connection at once.
    let closeConnection: @Sendable () -> Void
    /// The connection's channel, as ``ServerState/connections`` knows it.
    let connection: ObjectIdentifier

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        let channel = source.channel
        self.connection = ObjectIdentifier(channel)
        self.closeConnection = { channel.close(promise: nil) }
    }
}

enum HTTPHelpers {
    /// The `Pragma` header name (a valid token, so the initializer cannot fail).
    static let pragma = HTTPFields.Element.Name("Pragma")!

    static let jsonEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A JSON answer.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        let data = (try? jsonEncoder.encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// An HTML answer.
    static func html(_ text: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// A `302 Found` to `location`.
    static func redirect(to location: String, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.location] = location
        headers[.contentLength] = "0"
        return Response(status: .found, headers: headers)
    }

    /// Parse an `application/x-www-form-urlencoded` body.
    static func form(_ request: inout Request) async throws -> [String: String] {
        let buffer = try await request.collectBody(upTo: 64 * 1024)
        return parseForm(String(buffer: buffer))
    }

    static func parseForm(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decodeFormComponent(parts[0])
            let value = parts.count > 1 ? decodeFormComponent(parts[1]) : ""
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    static func decodeFormComponent(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// The value of a cookie of the request.
    static func cookie(_ name: String, in request: Request) -> String? {
        for field in request.headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2 else { continue }
                if parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// The token of an `Authorization: Bearer` header.
    static func bearerToken(in request: Request) -> String? {
        guard let value = request.headers[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// The scheme (lowercased) and token of an `Authorization` header, such as `Bearer` or `DPoP`.
    static func authorization(in request: Request) -> (scheme: String, token: String)? {
        guard let value = request.headers[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        return (parts[0].lowercased(), parts[1].trimmingCharacters(in: .whitespaces))
    }

    /// Percent-encode a value for a query string.
    static func queryEscape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~/")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

extension HTTPFields {
    /// Append each line as its own `Set-Cookie` field.
    mutating func appendSetCookies(_ lines: [String]) {
        for line in lines {
            self.append(HTTPFields.Element(name: .setCookie, value: line))
        }
    }
}
