import Foundation
import JWTKit
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// `login` and `run` against a standards authorization server (the reference server on
/// loopback, started by the test): discovery, client authentication, the code flow, refused
/// sign-ins with their own exit code, secrets kept out of argv and output.
@Suite(.serialized, .timeLimit(.minutes(4)), .hangWatchdog) struct LoginCommandTests {
    static let redirectURI = "com.example.app:/callback"

    func configuration() -> ReferenceServerConfiguration {
        var configuration = ReferenceServerConfiguration()
        configuration.clients = [
            RegisteredClient(id: "app", redirectURIs: [Self.redirectURI]),
            RegisteredClient(
                id: "confidential", authentication: .clientSecretBasic(secret: "cli-secret-9f2"), redirectURIs: [Self.redirectURI]),
        ]
        return configuration
    }

    /// `login` as user `demo` by the code flow of the public client `app`, into `vault`.
    func logIn(_ server: ReferenceServer, passwordFile: URL, vault: URL) async throws -> RunnerProcess {
        try await runner([
            "login", "--issuer", server.issuer, "--client-id", "app", "--redirect-uri", Self.redirectURI,
            "--scope", "openid offline_access", "--user", "demo", "--password-file", passwordFile.path, "--refresh-token-file", vault.path,
        ])
    }

    /// A plain token file (as an app's own sign-in would leave) holding a refresh token the
    /// runner's code-flow `login` obtained from `server`.
    func plainTokenFile(_ server: ReferenceServer, named name: String) async throws -> URL {
        let password = try RunnerProcess.temporaryFile("password.txt", "demo\n")
        let vault = password.deletingLastPathComponent().appendingPathComponent("login.vault")
        let login = try await logIn(server, passwordFile: password, vault: vault)
        #expect(login.exitCode == 0, "\(login.stdout)\(login.stderr)")
        return try RunnerProcess.temporaryFile(name, try #require(server.issuedRefreshTokens().last) + "\n")
    }

    @Test func loginWithTheCodeFlowThenRunWithTheStoredSession() async throws {
        try await ReferenceServer.withRunning(configuration()) { server in
            // A file written on Windows: its CRLF is no part of the password.
            let password = try RunnerProcess.temporaryFile("password.txt", "demo\r\n")
            let vault = password.deletingLastPathComponent().appendingPathComponent("session.vault")
            let login = try await logIn(server, passwordFile: password, vault: vault)
            #expect(login.exitCode == 0, "\(login.stdout)\(login.stderr)")
            #expect(login.stdout.contains("authorization code flow and PKCE (ID token subject demo)"))
            #expect(FileManager.default.fileExists(atPath: vault.path))
            #expect(server.stats().logins == 1)

            let script = try RunnerProcess.temporaryFile(
                "refresh.js",
                """
                const reply = await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
                console.log("refreshed", reply.ok);
                """)
            let run = try await runner([
                "run", script.path, "--url", server.url("/run/refresh.js").absoluteString, "--server", server.baseURL.absoluteString,
                "--issuer", server.issuer, "--client-id", "app", "--refresh-token-file", vault.path,
            ])
            #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains("refreshed true"))
            #expect(server.stats().refreshes == 1)
            // The rotated token was saved to the vault: the next run refreshes with it (it had
            // sent the first token again, which the server took for reuse and ended the session).
            let again = try await runner([
                "run", script.path, "--url", server.url("/run/refresh.js").absoluteString, "--server", server.baseURL.absoluteString,
                "--issuer", server.issuer, "--client-id", "app", "--refresh-token-file", vault.path,
            ])
            #expect(again.stdout.contains("refreshed true"), "\(again.stdout)")
            #expect(server.stats().refreshes == 2)
            #expect(server.stats().reuseEvents == 0)
            for token in server.issuedRefreshTokens() {
                #expect(!run.stdout.contains(token) && !login.stdout.contains(token) && !again.stdout.contains(token))
            }
        }
    }

    /// A plain refresh token (the one an app obtained, pasted into a file) keeps working across
    /// runs against a rotating server: the token the run ended with is saved back to the file,
    /// owner-only. The file had kept the spent token, which the next run sent, ending the
    /// session as reuse.
    @Test(arguments: ["headless", "webkit"])
    func aPlainTokenFileKeepsTheRotatedToken(engine: String) async throws {
        try await ReferenceServer.withRunning(configuration()) { server in
            let plain = try await plainTokenFile(server, named: "plain-token.txt")
            let script = try RunnerProcess.temporaryFile(
                "refresh-plain.js",
                """
                const reply = await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
                console.log("refreshed", reply.ok);
                """)
            for round in 1...2 {
                let run = try await runner([
                    "run", script.path, "--url", server.url("/run/refresh-plain.js").absoluteString, "--server",
                    server.baseURL.absoluteString, "--issuer", server.issuer, "--client-id", "app", "--refresh-token-file", plain.path,
                    "--engine", engine,
                ])
                #expect(run.stdout.contains("refreshed true"), "round \(round): \(run.stdout)")
                // WebKit sends no Secure cookie over http, which the runner says.
                #expect(run.stdout.contains("WebKit keeps and sends Secure cookies") == (engine == "webkit"), "\(run.stdout)")
                #expect(run.stdout.contains("saved the rotated refresh token to \(plain.path)"), "\(run.stdout)")
                for issued in server.issuedRefreshTokens() { #expect(!run.stdout.contains(issued)) }
            }
            let saved = try String(contentsOf: plain, encoding: .utf8)
            #expect(saved == (server.issuedRefreshTokens().last ?? "") + "\n")
            let mode = try #require(FileManager.default.attributesOfItem(atPath: plain.path)[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0)
            #expect(server.stats().reuseEvents == 0)
        }
    }

    /// A run given a token the server refuses (spent, revoked, another server's) fails with
    /// the refused sign-in's exit code and says so, on both engines; the file is kept as it
    /// was. The run had passed (exit 0) when the page caught its refresh's rejection, and
    /// failed as a script error (exit 1) without naming the token when it did not.
    @Test(arguments: ["headless", "webkit"])
    func aRefusedTokenFileFailsTheRunAsARefusedSignIn(engine: String) async throws {
        try await ReferenceServer.withRunning(configuration()) { server in
            let plain = try RunnerProcess.temporaryFile("refused-token.txt", "sbrt_never_issued_by_this_server\n")
            for caught in [true, false] {
                let ask = "await window.webkit.messageHandlers.session.postMessage({action: 'refresh'});"
                let script = try RunnerProcess.temporaryFile(
                    "refused.js", caught ? "try { \(ask) } catch (error) { console.log('handled', error.message); }" : ask)
                let run = try await runner([
                    "run", script.path, "--url", server.url("/run/refused.js").absoluteString, "--server",
                    server.baseURL.absoluteString, "--issuer", server.issuer, "--client-id", "app", "--refresh-token-file", plain.path,
                    "--engine", engine,
                ])
                #expect(run.stdout.contains("handled") == caught, "\(run.stdout)")
                #expect(run.exitCode == 5, "\(run.stdout)\(run.stderr)")
                #expect(run.stdout.contains("the server refused the refresh token from \(plain.path) (invalid_grant)"), "\(run.stdout)")
                #expect(!run.stdout.contains("sbrt_never_issued"))
                #expect(try String(contentsOf: plain, encoding: .utf8) == "sbrt_never_issued_by_this_server\n")
            }
        }
    }

    /// A page whose timers multiply (each firing sets fifty more) keeps its engine thread
    /// busy with timers already due: the run still ends at `--timeout`, its transcript
    /// complete, and the plain token file keeps the token the run's refresh rotated to. The
    /// run had gone on to the hard deadline, which ended it before the file was written, and
    /// the next run's spent token had the session ended as reuse.
    @Test func aPageWhoseTimersMultiplyEndsAtTheTimeoutAndKeepsTheRotatedToken() async throws {
        try await ReferenceServer.withRunning(configuration()) { server in
            let plain = try await plainTokenFile(server, named: "timers-token.txt")
            let script = try RunnerProcess.temporaryFile(
                "timers.js", "function spawn() { for (let i = 0; i < 50; i++) setTimeout(spawn, 0); }\nspawn();")
            let started = ContinuousClock.now
            let run = try await runner([
                "run", script.path, "--url", server.url("/run/timers.js").absoluteString, "--server", server.baseURL.absoluteString,
                "--issuer", server.issuer, "--client-id", "app", "--refresh-token-file", plain.path, "--timeout", "2",
            ])
            #expect(run.exitCode == 3, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains("the page was still busy after 2.0 s"), "\(run.stdout)")
            #expect(run.stdout.contains("== cookie stores"), "\(run.stdout)")
            #expect(run.stdout.contains("saved the rotated refresh token to \(plain.path)"), "\(run.stdout)")
            #expect(ContinuousClock.now - started < .seconds(30))
            #expect(try String(contentsOf: plain, encoding: .utf8) == (server.issuedRefreshTokens().last ?? "") + "\n")
            let script2 = try RunnerProcess.temporaryFile("after-timers.js", "console.log('ran');")
            let next = try await runner([
                "run", script2.path, "--url", server.url("/run/after-timers.js").absoluteString, "--server",
                server.baseURL.absoluteString, "--issuer", server.issuer, "--client-id", "app", "--refresh-token-file", plain.path,
            ])
            #expect(next.exitCode == 0, "\(next.stdout)\(next.stderr)")
            #expect(server.stats().reuseEvents == 0)
        }
    }

    /// A run told to stop (`SIGTERM`, `SIGINT` at a terminal) after its refresh rotated the
    /// token still writes the rotated token to the plain token file before it ends (exit 143):
    /// the signal's default action had ended it at once, and the next run's spent token had
    /// the session ended as reuse.
    @Test func aRunToldToStopKeepsTheRotatedToken() async throws {
        try await ReferenceServer.withRunning(configuration()) { server in
            let plain = try await plainTokenFile(server, named: "signal-token.txt")
            let script = try RunnerProcess.temporaryFile(
                "waits.js",
                """
                await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
                await new Promise(resolve => setTimeout(resolve, 60000));
                """)
            // Starts the runner, waits for the server to count its refresh, then sends SIGTERM.
            let driver = try RunnerProcess.temporaryFile(
                "driver.py",
                """
                import json, signal, subprocess, sys, time, urllib.request
                stats = lambda: json.load(urllib.request.urlopen(sys.argv[1]))["refreshes"]
                before = stats()
                child = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                deadline = time.time() + 40
                while stats() == before and time.time() < deadline and child.poll() is None:
                    time.sleep(0.05)
                time.sleep(0.3)
                child.send_signal(signal.SIGTERM)
                out, _ = child.communicate(timeout=30)
                print("exit", child.returncode)
                print(out.decode())
                """)
            let run = try await ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/python3"),
                [
                    driver.path, server.url("/debug/stats").absoluteString, RunnerProcess.executable.path, "run", script.path,
                    "--url", server.url("/run/waits.js").absoluteString, "--server", server.baseURL.absoluteString,
                    "--issuer", server.issuer, "--client-id", "app", "--refresh-token-file", plain.path, "--timeout", "120",
                ], timeout: .seconds(90))
            #expect(run.stdout.contains("exit 143"), "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains("the run was interrupted"), "\(run.stdout)")
            #expect(run.stdout.contains("saved the rotated refresh token to \(plain.path)"), "\(run.stdout)")
            #expect(try String(contentsOf: plain, encoding: .utf8) == (server.issuedRefreshTokens().last ?? "") + "\n")
            for issued in server.issuedRefreshTokens() { #expect(!run.stdout.contains(issued)) }
        }
    }

    /// A `--refresh-token-file` that is neither a vault `login` wrote nor a plain token (a
    /// vault cut short, another file named by mistake) is refused before anything is sent: it
    /// had gone to the token endpoint as the token, whatever it held.
    @Test func aFileThatIsNeitherAVaultNorATokenIsNeverSentAsOne() async throws {
        try await ReferenceServer.withRunning(configuration()) { server in
            let script = try RunnerProcess.temporaryFile("quiet.js", "console.log('ran');")
            for (name, text) in [("accounts.txt", "root:x:0:0:root:/root\ndaemon:x:1:1\n"), ("cut.vault", #"{"refreshToken":"abc"#)] {
                let file = try RunnerProcess.temporaryFile(name, text)
                let run = try await runner([
                    "run", script.path, "--server", server.baseURL.absoluteString, "--issuer", server.issuer, "--client-id", "app",
                    "--refresh-token-file", file.path,
                ])
                #expect(run.exitCode == 66, "\(run.stdout)\(run.stderr)")
                #expect(run.stdout.contains("is neither a vault `login` wrote nor a plain refresh token"), "\(run.stdout)")
            }
            #expect(server.stats().tokenRequests == 0)
        }
    }

    @Test func aConfidentialClientFromAConfigFileWithTheSecretInTheEnvironment() async throws {
        try await ReferenceServer.withRunning(configuration()) { server in
            let config = try RunnerProcess.temporaryFile(
                "client.json",
                """
                {"issuer": "\(server.issuer)", "client_id": "confidential", "client_auth": "client_secret_basic",
                 "scope": "openid offline_access", "user": "demo"}
                """)
            let vault = config.deletingLastPathComponent().appendingPathComponent("session.vault")
            let login = try await runner(
                ["login", "--config", config.path, "--refresh-token-file", vault.path],
                environment: ["SESSIONBRIDGE_CLIENT_SECRET": "cli-secret-9f2", "SESSIONBRIDGE_PASSWORD": "demo"])
            #expect(login.exitCode == 0, "\(login.stdout)\(login.stderr)")
            #expect(login.stdout.contains("signed in natively as demo"))

            let refused = try await runner(
                ["login", "--config", config.path, "--refresh-token-file", vault.path],
                environment: ["SESSIONBRIDGE_CLIENT_SECRET": "wrong-secret-71", "SESSIONBRIDGE_PASSWORD": "demo"])
            #expect(refused.exitCode == 5, "\(refused.stdout)\(refused.stderr)")
            #expect(refused.stderr.contains("sign-in refused (invalid_client)"))
            #expect(!(refused.stdout + refused.stderr).contains("wrong-secret-71"))
        }
    }

    @Test func privateKeyJWTFromAPEMFileWithResourceAndParameters() async throws {
        let key = ES256PrivateKey()
        var configuration = configuration()
        configuration.clients.append(
            RegisteredClient(id: "jwt", authentication: .privateKeyJWT(publicKeyPEM: key.publicKey.pemRepresentation)))
        try await ReferenceServer.withRunning(configuration) { server in
            let pem = try RunnerProcess.temporaryFile("client.pem", key.pemRepresentation)
            let vault = pem.deletingLastPathComponent().appendingPathComponent("session.vault")
            let arguments = [
                "login", "--issuer", server.issuer, "--client-id", "jwt", "--client-auth", "private_key_jwt", "--client-key", pem.path,
                "--resource", "https://api.example", "--param", "audience=https://api.example", "--scope", "openid offline_access",
                "--user", "demo", "--refresh-token-file", vault.path,
            ]
            let login = try await runner(arguments, environment: ["SESSIONBRIDGE_PASSWORD": "demo"])
            #expect(login.exitCode == 0, "\(login.stdout)\(login.stderr)")
            #expect(!(login.stdout + login.stderr).contains("PRIVATE KEY"))
            let wrongKey = try RunnerProcess.temporaryFile("other.pem", ES256PrivateKey().pemRepresentation)
            let refused = try await runner(
                arguments.map { $0 == pem.path ? wrongKey.path : $0 }, environment: ["SESSIONBRIDGE_PASSWORD": "demo"])
            #expect(refused.exitCode == 5, "\(refused.stdout)\(refused.stderr)")
            #expect(refused.stderr.contains("invalid_client"))
            let badMethod = try await runner(
                [
                    "login", "--issuer", server.issuer, "--client-id", "jwt", "--client-auth", "magic", "--user", "demo",
                    "--refresh-token-file", vault.path,
                ], environment: ["SESSIONBRIDGE_PASSWORD": "demo"])
            #expect(badMethod.exitCode == 64)
            #expect(badMethod.stderr.contains("--client-auth must be one of"))
        }
    }

    @Test func aWrongPasswordIsRefusedNotUnreachable() async throws {
        try await ReferenceServer.withRunning(configuration()) { server in
            let script = try RunnerProcess.temporaryFile("noop.js", "console.log('ran')")
            let result = try await runner(
                ["run", script.path, "--server", server.baseURL.absoluteString, "--client-id", "app", "--user", "demo"],
                environment: ["SESSIONBRIDGE_PASSWORD": "not-the-password-3"])
            #expect(result.exitCode == 5, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("sign-in refused (invalid_grant)"))
            #expect(!result.stdout.contains("not-the-password-3"))
        }
    }

    @Test func aConfigurationErrorReachesThePageAsNotRetryable() async throws {
        let script = try RunnerProcess.temporaryFile(
            "refused.js",
            """
            try { await window.webkit.messageHandlers.session.postMessage({action: "refresh"}); console.log("refreshed"); }
            catch (e) { console.log("refused", e.code, e.retryable); }
            """)
        let result = try await runner(["run", script.path, "--token-error", "invalid_client"])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("signed in natively as the demo user"))
        #expect(result.stdout.contains("console.log refused invalid_client false"))
    }

    @Test func anUnreachableIssuerExitsFour() async throws {
        let vault = FileManager.default.temporaryDirectory.appendingPathComponent("unreachable-\(UUID().uuidString).vault")
        let result = try await runner(
            ["login", "--issuer", "http://127.0.0.1:9", "--client-id", "app", "--user", "demo", "--refresh-token-file", vault.path],
            environment: ["SESSIONBRIDGE_PASSWORD": "demo"])
        #expect(result.exitCode == 4, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("unreachable"))
    }

    @Test func aMissingPasswordWithoutATerminalIsABadArgument() async throws {
        let vault = FileManager.default.temporaryDirectory.appendingPathComponent("nopassword-\(UUID().uuidString).vault")
        let result = try await runner(
            [
                "login", "--issuer", "http://127.0.0.1:9", "--client-id", "app", "--user", "demo",
                "--refresh-token-file", vault.path,
            ], environment: ["SESSIONBRIDGE_PASSWORD": ""])
        #expect(result.exitCode == 64, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("no password"))
    }
}

func runner(_ arguments: [String], environment: [String: String] = [:]) async throws -> RunnerProcess {
    try await RunnerProcess.run(arguments, environment: environment)
}
