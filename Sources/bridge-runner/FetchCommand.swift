import ArgumentParser
import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeTesting

/// `bridge-runner fetch URL`: one native request through the session's own client
/// (``SessionHTTPClient``), printing the names of the cookies sent, set and deleted.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Make a native request through the session's own HTTP client and show the cookies sent and set.",
        discussion: """
            The request carries the native store's cookies (and the access token with --bearer); a 401 refreshes the \
            session once and sends it again. Cookie values and tokens are never printed. Exit codes: 0 an answer below \
            400, 1 an answer of 400 or more, 4 server unreachable, 5 sign-in refused, 64 bad arguments.
            """)

    @Argument(help: "An absolute URL, or a path on the server such as /api/me.")
    var target: String

    @Option(help: "The HTTP method.")
    var method: String = "GET"

    @Option(help: ArgumentHelp("A request header (repeatable).", valueName: "NAME: VALUE"))
    var header: [String] = []

    @Option(help: "A request body.")
    var data: String?

    @Flag(help: "Send the session's access token as Authorization: Bearer.")
    var bearer = false

    @Flag(help: "Use a cookie store of the client's own, in memory only, instead of the native store.")
    var ephemeral = false

    @Option(help: "Use this server instead of starting the embedded reference server.")
    var server: String?

    @Option(help: "Sign in natively with this user (the password from --password-file, SESSIONBRIDGE_PASSWORD or a prompt).")
    var user: String?

    @Option(help: "A file holding the password for --user.")
    var passwordFile: String?

    @Option(help: "A file holding a refresh token to adopt instead of signing in.")
    var refreshTokenFile: String?

    @Flag(help: "One JSON object per event.")
    var json = false

    @OptionGroup(title: "Authorization server") var authorization: AuthorizationServerOptions

    @OptionGroup(title: "Web session") var webSession: WebSessionOptions

    func validate() throws {
        if WebSessionOptions.isInvalid(target) { throw ValidationError("the target must be an absolute URL or a path such as /api/me") }
        if let server, URL(string: server)?.host == nil {
            throw ValidationError("--server must be an absolute URL such as http://127.0.0.1:8080")
        }
        if refreshTokenFile != nil && user != nil { throw ValidationError("use either --user or --refresh-token-file") }
        if user == nil, passwordFile != nil { throw ValidationError("--password-file goes with --user") }
        for line in header where !line.contains(":") { throw ValidationError("--header \(line) is not NAME: VALUE") }
        if method.isEmpty || !method.allSatisfy({ $0.isLetter }) { throw ValidationError("--method must be a method name such as GET") }
    }

    func run() async throws {
        let transcript = Transcript(json: json)
        let settings = try authorization.settings()
        let fixture: AppWiring
        let noPage: @Sendable (inout WebPageConfiguration) -> Void = { _ in }
        // A vault file's rotated token is saved back to it (``SignIn/vault(at:)``).
        let vault: any TokenVault = refreshTokenFile.flatMap(SignIn.vault(at:)) ?? InMemoryTokenVault()
        if let server = server ?? settings.server {
            guard let serverURL = URL(string: server) else { throw ValidationError("--server \(server) is not an absolute URL") }
            var configuration = settings.sessionConfiguration(server: serverURL)
            webSession.apply(to: &configuration, server: serverURL)
            fixture = await AppWiring(
                server: nil, baseURL: serverURL, configuration: configuration, vault: vault,
                nativeCookieStore: nil, allowedOrigins: [], configure: noPage)
            transcript.note("using the server at \(server)")
        } else {
            fixture = try await AppWiring.embedded(
                server: ReferenceServerConfiguration(), webSession: webSession, vault: vault,
                nativeCookieStore: nil, allowedOrigins: [], configure: noPage)
            transcript.note("embedded reference server on \(fixture.baseURL.absoluteString) (demo user: demo / demo)")
        }
        let exit = await fetch(fixture, codeFlow: settings.redirectURI != nil, transcript: transcript)
        if let refreshTokenFile, vault is InMemoryTokenVault, let note = SignIn.keepRotated(from: vault, inPlainFile: refreshTokenFile) {
            transcript.note(note)
        }
        transcript.nativeStore(fixture.nativeCookies())
        await fixture.stop()
        if exit != .success { throw exit }
    }

    private func fetch(_ fixture: AppWiring, codeFlow: Bool, transcript: Transcript) async -> ExitCode {
        do {
            try await signIn(fixture, codeFlow: codeFlow, transcript: transcript)
        } catch {
            return SignIn.report(error, to: transcript, codeFlow: codeFlow && refreshTokenFile == nil && user != nil)
        }
        let url = WebSessionOptions.resolve(target, on: fixture.baseURL)
        let headers = header.map { line in
            let colon = line.firstIndex(of: ":")!
            return (
                String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            )
        }
        let client = SessionHTTPClient(session: fixture.session, configuration: .init(sendsAccessToken: bearer, isEphemeral: ephemeral))
        defer { Task { try? await client.shutdown() } }
        do {
            let answer = try await client.send(
                SessionHTTPRequest(url: url, method: method, headers: headers, body: data.map { Data($0.utf8) }))
            transcript.nativeRequest(method: method.uppercased(), url: url, answer: answer)
            return answer.status < 400 ? .success : .failure
        } catch {
            transcript.failure("fetch \(method.uppercased()) \(Transcript.shown(url)) failed (\(error.code.rawValue)): \(error.message)")
            return error.code == .network ? .serverUnreachable : .failure
        }
    }

    private func signIn(_ fixture: AppWiring, codeFlow: Bool, transcript: Transcript) async throws {
        if let refreshTokenFile {
            try await SignIn.adopt(fixture.session, from: refreshTokenFile)
            return transcript.note("adopted the refresh token from \(refreshTokenFile)")
        }
        if let user {
            let password = try SignIn.password(flag: nil, file: passwordFile, user: user)
            return transcript.note(try await SignIn.signIn(fixture.session, user: user, password: password, codeFlow: codeFlow))
        }
        guard let server = fixture.server else { return transcript.note("no credentials given: the request goes without a session") }
        _ = try await fixture.session.login(username: server.configuration.username, password: server.configuration.password)
        transcript.note("signed in natively as the demo user '\(server.configuration.username)'")
    }
}

extension Transcript {
    /// One native request: status, and the names of the cookies sent, set and deleted.
    func nativeRequest(method: String, url: URL, answer: SessionHTTPResponse) {
        let list: ([String]) -> String = { $0.isEmpty ? "—" : $0.joined(separator: ",") }
        let retried = answer.retriedAfterRefresh ? " (401: refreshed the session, sent again)" : ""
        emit(
            [
                "type": "native-request", "method": method, "url": Self.shown(url), "status": answer.status,
                "sent": answer.cookiesSent, "set": answer.cookiesSet, "deleted": answer.cookiesDeleted,
                "retriedAfterRefresh": answer.retriedAfterRefresh, "bytes": answer.body.count,
            ],
            text:
                "fetch \(method) \(Self.shown(url)) → \(answer.status)\(retried)  sent \(list(answer.cookiesSent))  set \(list(answer.cookiesSet))  deleted \(list(answer.cookiesDeleted))  (\(answer.body.count) bytes)"
        )
    }

    /// The native store after the request: names, sizes and attributes, never values.
    func nativeStore(_ cookies: [Cookie]) {
        if style != .json { section("native store") }
        for cookie in cookies.sorted(by: { ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name) }) {
            emit(
                ["type": "cookie", "domain": cookie.domain, "path": cookie.path, "name": cookie.name, "native": Self.shown(cookie)],
                text: "  \(cookie.name)  \(Self.shown(cookie))  \(cookie.domain)\(cookie.path)")
        }
    }
}
