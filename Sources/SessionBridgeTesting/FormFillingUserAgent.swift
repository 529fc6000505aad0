public import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1
import SessionBridgeCookies
import SessionBridgeHeadless
public import SessionBridgeOAuth

/// An `AuthorizationUserAgent` that signs in by itself, for tests and the CLI: it loads the
/// authorization URL with its own cookie jar, fills the HTML sign-in form's `username` and
/// `password` fields (keeping every hidden field), posts it, and follows redirects until one
/// goes to the redirect URI, which it returns without ever requesting it.
///
/// ```swift
/// let agent = FormFillingUserAgent(username: "demo", password: Secret("demo"))
/// try await session.signIn(with: agent)
/// ```
public struct FormFillingUserAgent: AuthorizationUserAgent {
    /// Why the agent could not finish.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong; never the password.
        public var description: String
    }

    /// The user to sign in as.
    public var username: String
    /// The password.
    public var password: Secret
    /// The most redirects and forms followed before giving up.
    public var maxSteps: Int
    /// How long each request may take.
    public var requestTimeout: Duration
    /// The HTTP client; it must not follow redirects.
    public var httpClient: HTTPClient

    /// Creates an agent.
    public init(
        username: String, password: Secret, maxSteps: Int = 10, requestTimeout: Duration = .seconds(10),
        httpClient: HTTPClient = OAuthClientConfiguration.defaultHTTPClient
    ) {
        self.username = username
        self.password = password
        self.maxSteps = maxSteps
        self.requestTimeout = requestTimeout
        self.httpClient = httpClient
    }

    public func authorize(_ url: URL, redirectURI: URL) async throws -> URL {
        let jar = CookieJar()
        var next: (url: URL, form: [(String, String)]?) = (url, nil)
        var formsPosted = 0
        for _ in 0..<maxSteps {
            if AuthorizationRequest.matches(next.url, redirectURI: redirectURI) { return next.url }
            guard next.url.scheme == "http" || next.url.scheme == "https" else {
                throw Failure(description: "the sign-in went to \(next.url.scheme ?? "?"):, not to the redirect URI")
            }
            var request = HTTPClientRequest(url: next.url.absoluteString)
            request.headers.add(name: "Accept", value: "text/html")
            if let cookies = jar.cookieHeader(for: next.url) { request.headers.add(name: "Cookie", value: cookies) }
            if let form = next.form {
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(Array(FormEncoding.encode(form).utf8))
            }
            let response: HTTPClientResponse
            let body: String
            do {
                response = try await httpClient.execute(request, timeout: TimeAmount(requestTimeout))
                body = String(buffer: try await response.body.collect(upTo: 1 << 20))
            } catch {
                throw Failure(description: "the sign-in page at \(next.url.host ?? "?") could not be loaded (\(type(of: error)))")
            }
            jar.setCookies(response.headers["set-cookie"], from: next.url)
            let status = Int(response.status.code)
            if (300..<400).contains(status) {
                guard let location = response.headers.first(name: "location"),
                    let target = URL(string: location, relativeTo: next.url)?.absoluteURL
                else {
                    throw Failure(description: "a redirect without a usable Location (HTTP \(status))")
                }
                next = (target, nil)
                continue
            }
            guard status == 200 || (status == 401 && formsPosted == 0) else {
                throw Failure(
                    description: formsPosted > 0 && status == 401
                        ? "the sign-in form refused the username or password"
                        : "the sign-in page answered HTTP \(status)")
            }
            let form = HTMLForm(html: body, baseURL: next.url)
            guard formsPosted == 0, let form else {
                throw Failure(
                    description: formsPosted == 0
                        ? "the sign-in page has no form with username and password fields"
                        : form != nil
                            ? "the sign-in form was shown again: the username or password was refused"
                            : "after the password, the provider showed a page this sign-in cannot fill (a consent, a second factor)")
            }
            formsPosted += 1
            next = (form.action, form.filled(username: username, password: password.exposedValue))
        }
        throw Failure(description: "the sign-in did not reach the redirect URI within \(maxSteps) steps")
    }
}

/// The first `<form>` of a page that has a `password` input: its action, its fields, and the
/// button that submits it.
struct HTMLForm {
    var action: URL
    var fields: [(name: String, value: String, type: String)]
    /// The name and value of the form's first submit button, which HTML sends with the form when
    /// it submits it (a page may tell "sign in" from "cancel" by it).
    var submitter: (name: String, value: String)?

    init?(html: String, baseURL: URL) {
        // Tag and attribute names are ASCII case-insensitive: only ASCII letters are lowered,
        // so that every position found in `lower` is the same byte offset in `html` (lowering
        // "İ" makes it longer, and cut the page at the wrong places).
        let lower = Self.asciiLowercased(html)
        var searchStart = lower.startIndex
        while let open = lower.range(of: "<form", range: searchStart..<lower.endIndex) {
            guard let close = lower.range(of: "</form>", range: open.upperBound..<lower.endIndex) else { return nil }
            let tagEnd = lower.range(of: ">", range: open.upperBound..<close.lowerBound)?.lowerBound ?? close.lowerBound
            let formTag = Self.slice(html, lower, open.lowerBound..<tagEnd)
            let inner = Self.slice(html, lower, tagEnd..<close.lowerBound)
            let controls = Self.controls(in: inner)
            let fields = controls.compactMap { control -> (String, String, String)? in
                guard control.tag == "input", let name = control.attributes["name"] else { return nil }
                return (name, control.attributes["value"] ?? "", control.attributes["type"]?.lowercased() ?? "text")
            }
            if fields.contains(where: { $0.2 == "password" }) {
                let attributes = Self.attributes(of: formTag)
                action = URL(string: attributes["action"] ?? "", relativeTo: baseURL)?.absoluteURL ?? baseURL
                self.fields = fields
                // A `<button>` submits unless its type says otherwise; an `<input>` as `submit` or `image`.
                let submit = controls.first { control in
                    let type = control.attributes["type"]?.lowercased()
                    return control.tag == "button" ? (type == nil || type == "submit") : (type == "submit" || type == "image")
                }
                submitter = submit.flatMap { control in control.attributes["name"].map { ($0, control.attributes["value"] ?? "") } }
                return
            }
            searchStart = close.upperBound
        }
        return nil
    }

    /// The fields as posted: hidden fields kept, the text field named `username` (or the first
    /// text or email field) and the password field filled, and the submit button's name and value.
    func filled(username: String, password: String) -> [(String, String)] {
        let userField = fields.first { $0.name == "username" }?.name ?? fields.first { ["text", "email"].contains($0.type) }?.name
        var posted: [(String, String)] = fields.compactMap { field in
            switch field.type {
            case "password": return (field.name, password)
            case "submit", "image", "button", "reset", "checkbox", "radio", "file": return nil
            default: return (field.name, field.name == userField ? username : field.value)
            }
        }
        if let submitter { posted.append(submitter) }
        return posted
    }

    /// The `<input>` and `<button>` start tags of `html`, in order, with their attributes.
    static func controls(in html: String) -> [(tag: String, attributes: [String: String])] {
        var result: [(tag: String, attributes: [String: String])] = []
        let lower = asciiLowercased(html)
        var start = lower.startIndex
        while let open = lower.range(of: "<", range: start..<lower.endIndex) {
            let end = lower.range(of: ">", range: open.upperBound..<lower.endIndex)?.lowerBound ?? lower.endIndex
            for tag in ["input", "button"] where lower[open.upperBound...].hasPrefix(tag) {
                let afterName = lower.index(open.upperBound, offsetBy: tag.count)
                // `<inputs>` or `<buttonx>` are other tags.
                if afterName < end, let next = lower[afterName].asciiValue, next != UInt8(ascii: "/"), !next.isASCIIWhitespace { continue }
                result.append((tag, attributes(of: slice(html, lower, afterName..<end))))
            }
            start = end
        }
        return result
    }

    /// `html`'s text over `range`, a range of `lower` (``asciiLowercased(_:)``, the same bytes).
    static func slice(_ html: String, _ lower: String, _ range: Range<String.Index>) -> String {
        let from = lower.utf8.distance(from: lower.startIndex, to: range.lowerBound)
        let to = lower.utf8.distance(from: lower.startIndex, to: range.upperBound)
        let utf8 = html.utf8
        return String(html[utf8.index(utf8.startIndex, offsetBy: from)..<utf8.index(utf8.startIndex, offsetBy: to)])
    }

    /// `text` with its ASCII letters lowered and every other byte as it was.
    static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// `name="value"`, `name='value'` and `name=value` attributes, names lowercased, character
    /// references decoded as HTML decodes them in attributes (`&#43;`, `&#x2B;`, `&amp;`).
    static func attributes(of tag: String) -> [String: String] {
        var attributes: [String: String] = [:]
        let scalars = Array(tag)
        var index = 0
        while index < scalars.count {
            while index < scalars.count, !(scalars[index].isLetter || scalars[index] == "-" || scalars[index] == "_") { index += 1 }
            var name = ""
            while index < scalars.count,
                scalars[index].isLetter || scalars[index].isNumber || scalars[index] == "-" || scalars[index] == "_"
                    || scalars[index] == "." || scalars[index] == "[" || scalars[index] == "]"
            {
                name.append(scalars[index]); index += 1
            }
            guard !name.isEmpty else { break }
            while index < scalars.count, scalars[index] == " " { index += 1 }
            var value = ""
            if index < scalars.count, scalars[index] == "=" {
                index += 1
                while index < scalars.count, scalars[index] == " " { index += 1 }
                if index < scalars.count, scalars[index] == "\"" || scalars[index] == "'" {
                    let quote = scalars[index]
                    index += 1
                    while index < scalars.count, scalars[index] != quote { value.append(scalars[index]); index += 1 }
                    index += 1
                } else {
                    while index < scalars.count, !scalars[index].isWhitespace { value.append(scalars[index]); index += 1 }
                }
            }
            let key = asciiLowercased(name)
            if attributes[key] == nil { attributes[key] = HTMLCharacterReferences.decode(value, inAttribute: true) }
        }
        return attributes
    }
}

extension UInt8 {
    fileprivate var isASCIIWhitespace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0C || self == 0x0D }
}
