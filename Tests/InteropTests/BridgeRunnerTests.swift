import Foundation
import SessionBridgeTestSupport
import Testing

extension Interop {
    /// `bridge-runner run` against the third-party server, as a user types it: discovery from
    /// `--issuer`, secrets from files, a page script whose refresh goes through native code.
    @Suite(.timeLimit(.minutes(4)), .hangWatchdog) struct BridgeRunner {
        static let script = """
            const session = window.webkit.messageHandlers.session;
            const before = await session.postMessage({ action: "status" });
            console.log("signed in:", before.signedIn);
            const refreshed = await session.postMessage({ action: "refresh" });
            console.log("refresh ok:", refreshed.ok);
            """

        /// Writes the page script and the secrets to files; returns the folder.
        static func files(_ server: InteropServer, secret: String? = nil) throws -> URL {
            let folder = try temporaryFolder()
            try Self.script.write(to: folder.appending(path: "refresh.js"), atomically: true, encoding: .utf8)
            try server.configuration.password.write(to: folder.appending(path: "password"), atomically: true, encoding: .utf8)
            if let secret { try secret.write(to: folder.appending(path: "client-secret"), atomically: true, encoding: .utf8) }
            return folder
        }

        static func arguments(_ server: InteropServer, _ folder: URL, _ more: [String]) -> [String] {
            [
                "run", folder.appending(path: "refresh.js").path, "--issuer", server.issuer.absoluteString, "--scope", "openid read",
                "--user", server.configuration.username, "--password-file", folder.appending(path: "password").path,
            ] + more
        }

        @Test func publicClientSignsInAndThePageRefreshes() async throws {
            try await InteropServer.withRunning { server async throws in
                let folder = try Self.files(server)
                defer { try? FileManager.default.removeItem(at: folder) }
                let run = try await RunnerInvocation.run(Self.arguments(server, folder, ["--client-id", InteropClient.publicClient]))
                #expect(run.exitCode == 0, "\(run.output)")
                #expect(run.stdout.contains("signed in natively as \(server.configuration.username)"))
                #expect(run.stdout.contains("console.log signed in: true"))
                #expect(run.stdout.contains("console.log refresh ok: true"))
                // The sign-in, then the refresh before the navigation (the page's may share it).
                #expect(server.tokenRequestCount >= 2)
                #expect(!run.output.contains(server.configuration.password))
            }
        }

        @Test func confidentialClientWithASecretFile() async throws {
            try await InteropServer.withRunning { server async throws in
                let folder = try Self.files(server, secret: server.configuration.postClientSecret)
                defer { try? FileManager.default.removeItem(at: folder) }
                let run = try await RunnerInvocation.run(
                    Self.arguments(
                        server, folder,
                        [
                            "--client-id", InteropClient.postClient, "--client-auth", "client_secret_post",
                            "--client-secret-file", folder.appending(path: "client-secret").path,
                        ]))
                #expect(run.exitCode == 0, "\(run.output)")
                #expect(run.stdout.contains("console.log refresh ok: true"))
                #expect(!run.output.contains(server.configuration.postClientSecret))
            }
        }

        @Test func authorizationCodeFlowThroughTheLoginForm() async throws {
            try await InteropServer.withRunning { server async throws in
                let folder = try Self.files(server)
                defer { try? FileManager.default.removeItem(at: folder) }
                let run = try await RunnerInvocation.run(
                    Self.arguments(
                        server, folder,
                        [
                            "--client-id", InteropClient.codeClient, "--redirect-uri", "com.example.sessionbridge:/oauth/callback",
                        ]))
                #expect(run.exitCode == 0, "\(run.output)")
                #expect(run.stdout.contains("authorization code flow and PKCE"))
                #expect(run.stdout.contains("console.log refresh ok: true"))
                #expect(server.log.contains("POST /accounts/login/ 302"))
            }
        }

        @Test func wrongClientSecretIsARefusedSignInNotAnUnreachableServer() async throws {
            try await InteropServer.withRunning { server async throws in
                let wrong = "not-" + server.configuration.basicClientSecret
                let folder = try Self.files(server, secret: wrong)
                defer { try? FileManager.default.removeItem(at: folder) }
                let run = try await RunnerInvocation.run(
                    Self.arguments(
                        server, folder,
                        [
                            "--client-id", InteropClient.basicClient, "--client-secret-file", folder.appending(path: "client-secret").path,
                        ]))
                #expect(run.exitCode == 5, "\(run.output)")
                #expect(run.output.contains("invalid_client"))
                #expect(!run.output.contains(wrong))
                #expect(!run.output.contains(server.configuration.password))
            }
        }

        /// A configuration error reaches the page with its own code, `retryable: false`, and the
        /// session stays signed in.
        @Test func configurationErrorReachesThePageAndKeepsTheSession() async throws {
            try await InteropServer.withRunning { server async throws in
                let configuration = server.configuration
                let wrong = "not-" + configuration.basicClientSecret
                let folder = try Self.files(server, secret: wrong)
                defer { try? FileManager.default.removeItem(at: folder) }
                // A refresh token the client got while its secret was right.
                let token = try await HTTPExchange.withClient { http in
                    let answer = try await http.postForm(
                        server.tokenEndpoint,
                        [("grant_type", "password"), ("username", configuration.username), ("password", configuration.password)],
                        basic: (InteropClient.basicClient, configuration.basicClientSecret))
                    return try #require(try answer.json()["refresh_token"] as? String)
                }
                try token.write(to: folder.appending(path: "refresh-token"), atomically: true, encoding: .utf8)
                try """
                const session = window.webkit.messageHandlers.session;
                try {
                  await session.postMessage({ action: "refresh" });
                  console.log("refreshed");
                } catch (e) {
                  console.log("refresh failed:", e.code, "retryable:", e.retryable);
                }
                const after = await session.postMessage({ action: "status" });
                console.log("still signed in:", after.signedIn);
                """.write(to: folder.appending(path: "refresh.js"), atomically: true, encoding: .utf8)
                let run = try await RunnerInvocation.run([
                    "run", folder.appending(path: "refresh.js").path, "--issuer", server.issuer.absoluteString,
                    "--client-id", InteropClient.basicClient, "--client-secret-file", folder.appending(path: "client-secret").path,
                    "--refresh-token-file", folder.appending(path: "refresh-token").path,
                ])
                #expect(run.exitCode == 0, "\(run.output)")
                #expect(run.stdout.contains("console.log refresh failed: invalid_client retryable: false"))
                #expect(run.stdout.contains("console.log still signed in: true"))
                #expect(!run.output.contains(token))
                #expect(!run.output.contains(wrong))
                #expect(try String(contentsOf: folder.appending(path: "refresh-token"), encoding: .utf8) == token)
            }
        }

        /// `login` with the code flow from a `--config` file stores the session in a profile;
        /// a later `run --profile` uses it without credentials.
        @Test func loginStoresTheSessionForALaterRun() async throws {
            try await InteropServer.withRunning { server async throws in
                let folder = try Self.files(server)
                defer { try? FileManager.default.removeItem(at: folder) }
                let config = folder.appending(path: "provider.json")
                try """
                {"issuer": "\(server.issuer.absoluteString)", "client_id": "\(InteropClient.codeClient)",
                 "redirect_uri": "com.example.sessionbridge:/oauth/callback", "scope": "openid read"}
                """.write(to: config, atomically: true, encoding: .utf8)
                let profile = folder.appending(path: "profile").path
                let login = try await RunnerInvocation.run([
                    "login", "--config", config.path, "--user", server.configuration.username,
                    "--password-file", folder.appending(path: "password").path, "--profile", profile,
                ])
                #expect(login.exitCode == 0, "\(login.output)")
                #expect(!login.output.contains(server.configuration.password))
                #expect(server.log.contains("POST /accounts/login/ 302"))

                let run = try await RunnerInvocation.run([
                    "run", folder.appending(path: "refresh.js").path, "--config", config.path, "--profile", profile,
                ])
                #expect(run.exitCode == 0, "\(run.output)")
                #expect(run.stdout.contains("using the session in the profile"))
                #expect(run.stdout.contains("console.log signed in: true"))
                #expect(run.stdout.contains("console.log refresh ok: true"))
                // One code exchange by login, at least one refresh by run; no second sign-in.
                #expect(server.log.components(separatedBy: "POST /accounts/login/").count == 2)
                #expect(server.tokenRequestCount >= 2)
            }
        }
    }
}
