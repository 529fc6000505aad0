public import Foundation

/// Why a load, navigation or fetch failed.
public struct PageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable code for programs.
    public enum Code: String, Sendable, Hashable {
        case invalidURL = "invalid_url"
        /// A method or header field that cannot be sent (not an HTTP token, a control
        /// character in a value, a forbidden method).
        case invalidRequest = "invalid_request"
        case unsupportedScheme = "unsupported_scheme"
        case network
        /// The CORS protocol refused the request, or its answer to the page: another origin
        /// that does not allow the document's (Fetch's `same-origin` and `cors` modes).
        case accessControl = "access_control"
        /// A secure document's request for an `http:` URL, blocked as mixed content, as WebKit
        /// blocks it (loopback hosts included).
        case mixedContent = "mixed_content"
        /// The document's Content Security Policy refused the request (`connect-src`, a
        /// script's source), as WebKit refuses it.
        case contentSecurityPolicy = "content_security_policy"
        /// A request for one of the Fetch Standard's restricted ("bad") ports, refused before it
        /// is sent, as WebKit refuses it.
        case restrictedPort = "restricted_port"
        case timeout
        case tooManyRedirects = "too_many_redirects"
        case redirectLoop = "redirect_loop"
        case responseTooLarge = "response_too_large"
        case cancelled
        case superseded
        case closed
    }

    public var code: Code
    /// What happened, for a person. Never holds cookie or token values.
    public var message: String
    /// The URL concerned.
    public var url: URL?

    public init(_ code: Code, _ message: String, url: URL? = nil) {
        self.code = code
        self.message = message
        self.url = url
    }

    public var description: String {
        "\(code.rawValue): \(message)" + (url.map { " (\($0.absoluteString))" } ?? "")
    }
}
