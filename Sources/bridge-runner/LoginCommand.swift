import ArgumentParser
import Foundation
import SessionBridge

/// `bridge-runner login`: signs in once and keeps the refresh token for later runs.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in to an authorization server and store the refresh token for later runs.",
        discussion: """
            Stores the session in --refresh-token-file (a vault file, mode 0600, that 'run --refresh-token-file' adopts) \
            or in --profile DIR (which 'run --profile DIR' uses). With --redirect-uri it signs in with the authorization \
            code flow and PKCE, filling the server's HTML sign-in form; otherwise with the password grant. \
            Exit codes: 0 signed in, 4 server unreachable, 5 sign-in refused, 64 bad arguments, 66 missing file.
            """)

    @Option(help: "The web product's origin (and, without --issuer or --token-endpoint, the server with /oauth/token).")
    var server: String?

    @Option(help: "The user to sign in as.")
    var user: String?

    @Option(help: "The password (visible in the process list: prefer --password-file, SESSIONBRIDGE_PASSWORD or the prompt).")
    var password: String?

    @Option(help: "A file holding the password.")
    var passwordFile: String?

    @Option(help: "Where to store the session (a vault file).")
    var refreshTokenFile: String?

    @Option(help: "A profile directory to store the session in.")
    var profile: String?

    @OptionGroup(title: "Authorization server") var authorization: AuthorizationServerOptions

    func run() async throws {
        let settings = try authorization.settings()
        guard let origin = server ?? settings.server ?? settings.issuer?.absoluteString, let serverURL = URL(string: origin),
            serverURL.host != nil
        else {
            throw ValidationError("login needs --server URL or --issuer URL")
        }
        guard let user = user ?? settings.user else { throw ValidationError("login needs --user") }
        let vaultURL: URL
        if let file = refreshTokenFile ?? settings.refreshTokenFile {
            vaultURL = URL(fileURLWithPath: file)
        } else if let profile {
            try FileManager.default.createDirectory(atPath: profile, withIntermediateDirectories: true)
            vaultURL = URL(fileURLWithPath: profile).appendingPathComponent("vault")
        } else {
            throw ValidationError("login needs --refresh-token-file FILE or --profile DIR")
        }
        let password = try SignIn.password(flag: password, file: passwordFile ?? settings.passwordFile, user: user)
        let session = SessionController(
            configuration: settings.sessionConfiguration(server: serverURL), vault: FileTokenVault(url: vaultURL))
        let line: String
        do {
            line = try await SignIn.signIn(session, user: user, password: password, codeFlow: settings.redirectURI != nil)
        } catch {
            throw SignIn.failure(error, codeFlow: settings.redirectURI != nil)
        }
        print("• \(line)")
        print("• session stored in \(vaultURL.path)")
    }
}
