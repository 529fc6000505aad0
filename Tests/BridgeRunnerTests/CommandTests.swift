import Foundation
import SessionBridgeCookies
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct RunCommandTests {
    @Test func refreshThroughTheBridgeSucceeds() async throws {
        let script = try RunnerProcess.temporaryFile(
            "refresh.js",
            """
            (async () => {
              const reply = await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
              console.log("refreshed", reply.ok, typeof reply.expiresAt);
            })();
            """)
        let result = try await RunnerProcess.run(["run", script.path])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("signed in natively as the demo user"))
        #expect(result.stdout.contains("refreshed true number"))
        #expect(result.stdout.contains("bridge session.postMessage({\"action\": \"refresh\"})"))
        #expect(result.stdout.contains("cookie stores (page | native)"))
        #expect(result.stdout.contains("__Host-session"))
        #expect(!result.stdout.contains("sbrt_"), "a refresh token reached the transcript")
    }

    /// A page's WebSocket: its exchange is in the transcript (with the names of the cookies
    /// its handshake carried), and its messages reach the page.
    @Test func aPagesWebSocketIsInTheTranscript() async throws {
        let echo = try await WebSocketEchoServer.start()
        defer { Task { try? await echo.stop() } }
        let script = try RunnerProcess.temporaryFile(
            "socket.js",
            """
            const socket = new WebSocket("\(echo.url.absoluteString)");
            socket.onopen = () => socket.send("hi");
            socket.onmessage = event => { console.log("echo", event.data); socket.close(); };
            """)
        let result = try await RunnerProcess.run(["run", script.path])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("console.log echo hi"), "\(result.stdout)")
        #expect(result.stdout.contains("\(echo.url.absoluteString) → 101 [websocket]  sent __Host-session"), "\(result.stdout)")
    }

    @Test func scriptsMayAwaitAtTopLevelAndKeepTheirLineNumbers() async throws {
        let script = try RunnerProcess.temporaryFile(
            "top-level-await.js",
            """
            const reply = await window.webkit.messageHandlers.session.postMessage({action: "status"});
            console.log("signed in", reply.signedIn);
            throw new RangeError("after the await");
            """)
        let result = try await RunnerProcess.run(["run", script.path])
        #expect(result.exitCode == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("console.log signed in true"))
        #expect(result.stdout.contains("uncaught RangeError: after the await at "))
        #expect(result.stdout.contains("top-level-await.js.js:3"))
    }

    @Test func faultsStartAfterSignInAndALostAnswerIsAskedAgainWithinTheGrace() async throws {
        let script = try RunnerProcess.temporaryFile(
            "lost-answer.js",
            """
            const reply = await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
            console.log("refreshed", reply.ok);
            """)
        let lost = try await RunnerProcess.run(["run", script.path, "--close-mid-body", "--fault-limit", "1"])
        #expect(lost.exitCode == 1, "\(lost.stdout)\(lost.stderr)")
        #expect(lost.stdout.contains("signed in natively as the demo user"))
        #expect(lost.stdout.contains("✗ network"))
        let asked = try await RunnerProcess.run(["run", script.path, "--close-mid-body", "--fault-limit", "1", "--reuse-grace", "30"])
        #expect(asked.exitCode == 0, "\(asked.stdout)\(asked.stderr)")
        #expect(asked.stdout.contains("refreshed true"))
        #expect(asked.stdout.contains("1 grace replays"))
        #expect(asked.stdout.contains("0 reuse events"))
    }

    @Test func jsonGivesOneObjectPerEvent() async throws {
        let script = try RunnerProcess.temporaryFile(
            "status.js",
            "window.webkit.messageHandlers.session.postMessage({action: 'status'}).then(s => console.log('status', s.signedIn))")
        let result = try await RunnerProcess.run(["run", script.path, "--json"])
        #expect(result.exitCode == 0)
        let objects = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objects.count == result.stdout.split(separator: "\n").count)
        #expect(objects.contains { $0["type"] as? String == "bridge" && $0["name"] as? String == "session" })
        #expect(objects.contains { $0["type"] as? String == "console" && $0["text"] as? String == "status true" })
        #expect(objects.contains { $0["type"] as? String == "cookie" })
    }

    @Test func indexedDBShowsDatabasesAndSizesNeverRecords() async throws {
        let script = try RunnerProcess.temporaryFile(
            "databases.js",
            """
            const open = indexedDB.open("auth", 2);
            open.onupgradeneeded = () => open.result.createObjectStore("tokens").put("refresh-secret-789", "current");
            open.onsuccess = () => console.log("stored", open.result.version);
            """)
        let result = try await RunnerProcess.run(["run", script.path])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("stored 2"))
        #expect(result.stdout.contains("web storage (page)"))
        #expect(result.stdout.contains("indexedDB        auth (version 2)  <"), "\(result.stdout)")
        #expect(!result.stdout.contains("refresh-secret-789"))
    }

    /// A cookie's value is never printed, whatever its name: which cookie carries a session is
    /// the server's choice. The stores' table still tells a value the two stores differ on.
    @Test func theCookieStoresShowSizesNeverValues() async throws {
        let script = try RunnerProcess.temporaryFile(
            "cookies.js",
            """
            document.cookie = "PHPSESSID=k2j3h4g5f6d7s8a9q0w1; path=/";
            document.cookie = "connect.sid=s%3AabcdefGHIJKL.signature; path=/";
            document.cookie = "jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0; path=/";
            document.cookie = "theme=night; path=/";
            """)
        let result = try await RunnerProcess.run(["run", script.path])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("PHPSESSID        <20 bytes>"), "\(result.stdout)")
        let json = try await RunnerProcess.run(["run", script.path, "--json"])
        for output in [result.stdout, json.stdout] {
            for value in ["k2j3h4g5f6d7s8a9q0w1", "s%3AabcdefGHIJKL", "eyJhbGciOiJIUzI1NiJ9", "night", "light"] {
                #expect(!output.contains(value), "\(value)")
            }
        }
        // The page wrote `night` where the native store holds the server's `light`.
        let theme = json.stdout.split(separator: "\n").first { $0.contains(#""name":"theme""#) }
        #expect(theme?.contains(#""sameValue":false"#) == true, "\(json.stdout)")
    }

    /// A URL's password is printed nowhere: not where the runner shows the URL, nor in the
    /// engine's own lines that name it (a refused port's console line, the navigation's
    /// failure), in text or JSON.
    @Test func aURLsUserAndPasswordArePrintedNowhere() async throws {
        for arguments in [["--signed-out"], ["--signed-out", "--json"]] {
            let result = try await RunnerProcess.run(["run", "http://someone:Pa55-word-in-URL@127.0.0.1:1/", "--timeout", "5"] + arguments)
            #expect(result.stdout.contains("port 1 is restricted"), "\(result.stdout)")
            #expect(!(result.stdout + result.stderr).contains("Pa55-word-in-URL"), "\(result.stdout)\(result.stderr)")
        }
    }

    /// A credential in a URL's parameters (an authorization code on its way to the app's
    /// redirect URI, an implicit flow's access token) is printed nowhere either.
    @Test func aURLsCredentialParametersArePrintedNowhere() async throws {
        let script = try RunnerProcess.temporaryFile(
            "callback.js", "location.href = '/done?code=Auth-Code-7Zq&state=s1#access_token=Bearer-Tok-9Xw';")
        for arguments in [[], ["--json"]] {
            let result = try await RunnerProcess.run(["run", script.path, "--signed-out", "--timeout", "5"] + arguments)
            #expect(result.stdout.contains("state=s1"), "\(result.stdout)")
            for secret in ["Auth-Code-7Zq", "Bearer-Tok-9Xw"] {
                #expect(!(result.stdout + result.stderr).contains(secret), "\(result.stdout)")
            }
        }
    }

    /// A bridge call's body is shown as a console line is: past 64 KB, its first and last halves
    /// around its length. Each had been printed whole (31 MB of transcript for 80 calls of 400 KB).
    @Test func aLongBridgeBodyIsShownShortened() async throws {
        let script = try RunnerProcess.temporaryFile(
            "long-body.js",
            #"""
            const r = await window.webkit.messageHandlers.session.postMessage({action: "status", pad: "A".repeat(300000)});
            console.log("signed in", r.signedIn);
            """#)
        let result = try await RunnerProcess.run(["run", script.path])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout.contains("console.log signed in true"))
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("bridge session.postMessage(") })
        #expect(line.utf8.count < 70_000)
        #expect(line.contains(" bytes) … "))
    }

    /// A page that prints tokens it got itself (a token endpoint's answer, an error naming one,
    /// a JWT) shows none of them in the transcript, in either format.
    @Test func tokensAPagePrintsAreNotShown() async throws {
        let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJkZW1vLXVzZXIifQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg"
        let script = try RunnerProcess.temporaryFile(
            "tokens.js",
            """
            console.log(JSON.stringify({access_token: "\(jwt)", refresh_token: "Refresh-Tok-4Kp", token_type: "Bearer"}));
            console.log("retrying with refresh_token=Refresh-Tok-5Lq, state ok");
            console.log("bearer", "\(jwt)");
            console.log("next: /cb?to=%2Fapp%3Fcode%3DAuth-Code-7Zx%26state%3Dok2");
            console.log("sent Authorization: Bearer Opaque-Tok-8Wy");
            """)
        for arguments in [[], ["--json"]] {
            let result = try await RunnerProcess.run(["run", script.path, "--signed-out", "--timeout", "5"] + arguments)
            #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("token_type"), "\(result.stdout)")
            #expect(result.stdout.contains("state ok"), "\(result.stdout)")
            #expect(result.stdout.contains("%26state%3Dok2"), "\(result.stdout)")
            for secret in [
                "Refresh-Tok-4Kp", "Refresh-Tok-5Lq", "Auth-Code-7Zx", "Opaque-Tok-8Wy", "c2lnbmF0dXJlLW9mLXRoZS10b2tlbg",
                "eyJzdWIiOiJkZW1vLXVzZXIifQ",
            ] {
                #expect(!(result.stdout + result.stderr).contains(secret), "\(result.stdout)")
            }
        }
    }

    /// A profile whose native cookie store is no cookie store stops the run with the file's
    /// name and exit 66 (a file that cannot be used), not as a refused sign-in with exit 1, and
    /// the file is kept as it was; a profile directory that cannot be made says so.
    @Test func aProfileFileThatCannotBeUsedIsNamedAndKept() async throws {
        let script = try RunnerProcess.temporaryFile("quiet.js", "console.log('ran');")
        let profile = try TestDirectory.make(prefix: "damaged-profile")
        defer { try? FileManager.default.removeItem(at: profile) }
        #expect(try await RunnerProcess.run(["run", script.path, "--profile", profile.path]).exitCode == 0)
        let store = profile.appendingPathComponent("native.cookies")
        try Data(#"{"a":1}"#.utf8).write(to: store)
        let damaged = try await RunnerProcess.run(["run", script.path, "--profile", profile.path])
        #expect(damaged.exitCode == 66, "\(damaged.stdout)\(damaged.stderr)")
        #expect(damaged.stdout.contains("a stored file cannot be used"), "\(damaged.stdout)")
        #expect(damaged.stdout.contains(store.path), "\(damaged.stdout)")
        #expect(try Data(contentsOf: store) == Data(#"{"a":1}"#.utf8))
        // A vault that is a link to a file no longer there is named, not a signed-out session.
        let linked = try TestDirectory.make(prefix: "linked-profile")
        defer { try? FileManager.default.removeItem(at: linked) }
        let vault = linked.appendingPathComponent("vault")
        try FileManager.default.createSymbolicLink(atPath: vault.path, withDestinationPath: linked.appendingPathComponent("gone").path)
        let dangling = try await RunnerProcess.run(["run", script.path, "--profile", linked.path])
        #expect(dangling.exitCode == 66, "\(dangling.stdout)\(dangling.stderr)")
        #expect((dangling.stdout + dangling.stderr).contains(vault.path), "\(dangling.stdout)\(dangling.stderr)")
        let unmade = try await RunnerProcess.run(["run", script.path, "--profile", "/proc/no-such-profile"])
        #expect(unmade.exitCode == 66, "\(unmade.stdout)\(unmade.stderr)")
        #expect(unmade.stderr.contains("cannot make the profile directory /proc/no-such-profile"), "\(unmade.stderr)")
    }

    /// Credentials given with `--signed-out` are refused, where they had been ignored.
    @Test func credentialsGivenWithSignedOutAreRefused() async throws {
        let script = try RunnerProcess.temporaryFile("quiet.js", "console.log('ran');")
        let token = try RunnerProcess.temporaryFile("token.txt", "a-refresh-token\n")
        for extra in [["--user", "demo", "--password-file", token.path], ["--refresh-token-file", token.path]] {
            let result = try await RunnerProcess.run(["run", script.path, "--signed-out"] + extra)
            #expect(result.exitCode == 64, "\(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains("--signed-out starts without a session"), "\(result.stderr)")
        }
    }

    /// A config file's setting that is misspelled or of another type is refused with its name,
    /// where it had been ignored (a numeric client secret left the client without authentication).
    @Test func aConfigFilesUnknownOrMistypedSettingIsRefused() async throws {
        let script = try RunnerProcess.temporaryFile("quiet.js", "console.log('ran');")
        for (text, words) in [
            (#"{"isuser": "https://idp.example"}"#, #"unknown setting "isuser""#),
            (#"{"client_id": "app", "client_secret": 48151623429}"#, #""client_secret" must be a string"#),
        ] {
            let config = try RunnerProcess.temporaryFile("settings.json", text)
            let result = try await RunnerProcess.run(["run", script.path, "--config", config.path])
            #expect(result.exitCode == 64, "\(result.stdout)\(result.stderr)")
            #expect((result.stdout + result.stderr).contains(words), "\(result.stdout)\(result.stderr)")
            // The secret's value is not printed (a number the temporary path cannot hold by chance).
            #expect(!(result.stdout + result.stderr).contains("48151623429"))
        }
    }

    /// Numbers past what a flag can mean are refused with the flag's name, where an infinite
    /// `--timeout` or a lifetime past `Int` had crashed the runner, a port past 65535 had
    /// been taken modulo 65536, and a negative number read as a missing value.
    @Test func numbersOutOfRangeAreRefusedNotACrash() async throws {
        let script = try RunnerProcess.temporaryFile("quiet.js", "console.log('ran');")
        for (arguments, flag) in [
            (["run", script.path, "--timeout", "inf"], "--timeout"), (["run", script.path, "--timeout", "1e308"], "--timeout"),
            (["run", script.path, "--entry-time-limit", "inf"], "--entry-time-limit"),
            (["run", script.path, "--access-token-lifetime", "9223372036854775807"], "--access-token-lifetime"),
            (["serve", "--port", "70000"], "--port"), (["run", script.path, "--timeout", "-1"], "--timeout"),
            (["serve", "--port", "-5"], "--port"),
        ] {
            let result = try await RunnerProcess.run(arguments)
            #expect(result.exitCode == 64, "\(arguments) \(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains(flag), "\(arguments) \(result.stderr)")
        }
    }

    @Test func webStorageShowsKeysAndSizesNeverValues() async throws {
        let script = try RunnerProcess.temporaryFile(
            "storage.js", "localStorage.setItem('oidc.user', 'secret-value-123'); sessionStorage.state = 'pkce-verifier-456';")
        let result = try await RunnerProcess.run(["run", script.path])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("web storage (page)"))
        #expect(result.stdout.contains("localStorage     oidc.user  <16 bytes>"))
        #expect(result.stdout.contains("sessionStorage   state  <17 bytes>"))
        #expect(!result.stdout.contains("secret-value-123") && !result.stdout.contains("pkce-verifier-456"))
        let json = try await RunnerProcess.run(["run", script.path, "--json"])
        #expect(json.stdout.contains(#""type":"storage""#))
        #expect(!json.stdout.contains("secret-value-123"))
        // With a profile, the page's localStorage is saved beside its cookies, for its owner only.
        let profile = script.deletingLastPathComponent().appendingPathComponent("storage-profile")
        let saved = try await RunnerProcess.run(["run", script.path, "--profile", profile.path])
        #expect(saved.exitCode == 0, "\(saved.stdout)\(saved.stderr)")
        let file = profile.appendingPathComponent("page.localstorage")
        #expect(String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self).contains("oidc.user"))
        #expect((try? FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int) == 0o600)
    }

    @Test func uncaughtErrorExitsOne() async throws {
        let script = try RunnerProcess.temporaryFile("throws.js", "throw new TypeError('broken page')")
        let result = try await RunnerProcess.run(["run", script.path, "--signed-out"])
        #expect(result.exitCode == 1)
        #expect(result.stdout.contains("uncaught TypeError: broken page"))
    }

    @Test func unhandledRejectionExitsTwo() async throws {
        let script = try RunnerProcess.temporaryFile("rejects.js", "Promise.reject(new Error('nobody catches this'))")
        let result = try await RunnerProcess.run(["run", script.path, "--signed-out"])
        #expect(result.exitCode == 2)
        #expect(result.stdout.contains("unhandled rejection"))
    }

    @Test func scriptThatNeverEndsTimesOut() async throws {
        let script = try RunnerProcess.temporaryFile("forever.js", "setInterval(() => {}, 10)")
        let start = Date()
        let result = try await RunnerProcess.run(["run", script.path, "--signed-out", "--timeout", "1"])
        #expect(result.exitCode == 3)
        #expect(result.stdout.contains("still busy"))
        #expect(Date().timeIntervalSince(start) < 30)
    }

    /// Work the page waits on past `--timeout` (a refresh the token endpoint holds, a document
    /// the server never answers) ends the run at `--timeout` with exit 3 and the stores shown;
    /// the hard deadline ended the process 3 s later, saying a script held its thread.
    @Test func workPendingPastTheTimeoutEndsTheRunAtTheTimeout() async throws {
        let script = try RunnerProcess.temporaryFile(
            "held-refresh.js",
            #"console.log(JSON.stringify(await window.webkit.messageHandlers.session.postMessage({action: "refresh"})));"#)
        let held = try await RunnerProcess.run(["run", script.path, "--latency", "60000", "--timeout", "3"])
        #expect(held.exitCode == 3, "\(held.stdout)\(held.stderr)")
        #expect(held.stdout.contains("a refresh was still in flight after 3.0 s"), "\(held.stdout)")
        #expect(held.stdout.contains("cookie stores (page | native)") && !held.stdout.contains("ended the run"), "\(held.stdout)")
        let listener = try RawHTTPListener { _ in
            Thread.sleep(forTimeInterval: 12)
            return nil
        }
        defer { listener.stop() }
        let hanging = try await RunnerProcess.run(["run", listener.url.appending(path: "hang").absoluteString, "--timeout", "3"])
        #expect(hanging.exitCode == 3, "\(hanging.stdout)\(hanging.stderr)")
        #expect(hanging.stdout.contains("the page did not load within --timeout 3.0 s"), "\(hanging.stdout)")
        #expect(!hanging.stdout.contains("ended the run"), "\(hanging.stdout)")
    }

    @Test func unreachableServerExitsFour() async throws {
        let script = try RunnerProcess.temporaryFile("page.js", "console.log('never')")
        let result = try await RunnerProcess.run([
            "run", script.path, "--server", "http://127.0.0.1:9", "--user", "demo", "--password", "demo",
        ])
        #expect(result.exitCode == 4)
        #expect((result.stdout + result.stderr).lowercased().contains("server"))
    }

    @Test func badArgumentsAndMissingFiles() async throws {
        let missingPassword = try await RunnerProcess.run(["run", "x.js", "--user", "demo"])
        #expect(missingPassword.exitCode == 64)
        #expect(missingPassword.stderr.contains("--user and --password go together"))
        let missing = try await RunnerProcess.run(["run", "/nonexistent/page.js"])
        #expect(missing.exitCode == 66)
        #expect(missing.stderr.contains("no such file: /nonexistent/page.js"))
        let unknown = try await RunnerProcess.run(["frobnicate"])
        #expect(unknown.exitCode == 64)
        // The web process memory limit is a number of megabytes.
        let zeroLimit = try await RunnerProcess.run(["demo", "--engine", "webkit", "--web-process-memory-limit", "0"])
        #expect(zeroLimit.exitCode == 64)
        #expect(zeroLimit.stderr.contains("must be a positive number of megabytes"), "\(zeroLimit.stderr)")
    }

    /// Headless, the memory limit is the runner's own process's: a page that allocates without
    /// end is ended there, and said so, long before its time limit (a minute here).
    @Test func aHeadlessPageThatAllocatesWithoutEndIsEndedAtTheMemoryLimit() async throws {
        let script = try RunnerProcess.temporaryFile(
            "grow.js", "globalThis.held = []; for (;;) held.push(new Array(1 << 20).fill(1.5));")
        let result = try await RunnerProcess.run(
            ["run", script.path, "--web-process-memory-limit", "700", "--entry-time-limit", "60", "--timeout", "90"])
        #expect(result.exitCode == 1, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("uncaught MemoryLimitExceeded"), "\(result.stdout)")
        #expect(result.stdout.contains("exceeded its memory limit"), "\(result.stdout)")
        #expect(!result.stdout.contains("TimeLimitExceeded"), "\(result.stdout)")
    }

    /// A page that floods its console with long lines prints 16 MB of it in full (each line at
    /// most 64 KB), then every line shortened, and says how many were (it printed 284 MB in
    /// five seconds). No line is lost: the page's last one is printed.
    @Test func aConsoleFloodIsPrintedShortenedPastItsLimit() async throws {
        let script = try RunnerProcess.temporaryFile(
            "flood.js",
            #"""
            console.log("first"); console.log("y".repeat(1 << 20));
            const line = "x".repeat(70000);
            for (let i = 0; i < 2000; i++) console.log(line);
            console.log("last");
            """#)
        let result = try await RunnerProcess.run(["run", script.path, "--entry-time-limit", "60", "--timeout", "90"], timeout: 120)
        #expect(result.exitCode == 0, "\(result.stdout.suffix(2000))\(result.stderr)")
        #expect(result.stdout.utf8.count < 18 << 20, "\(result.stdout.utf8.count) bytes printed")
        #expect(result.stdout.contains("console.log first"))
        #expect(result.stdout.contains("… (1048576 bytes) …"))
        #expect(result.stdout.contains("longer lines are printed shortened to 256 bytes"))
        #expect(result.stdout.contains("console.log last"))
        #expect(result.stdout.contains("lines past the first 16 MB were printed shortened"), "\(result.stdout.suffix(2000))")
    }

    /// An `await` loop resumes as one short microtask after another and never calls native code.
    /// The engine runs an entry's microtasks inside the entry, so the entry time limit ends the
    /// loop like any other runaway, and the run ends then, not at the hard `--timeout` bound
    /// (which, reached, exits with code 3 and says "did not end within").
    @Test func anAwaitLoopIsEndedByTheEntryTimeLimit() async throws {
        let script = try RunnerProcess.temporaryFile("await-loop.js", "(async () => { for (;;) await 0; })();")
        let run = try await RunnerProcess.run(["run", script.path, "--timeout", "30", "--entry-time-limit", "1"], timeout: 120)
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("uncaught TimeLimitExceeded"), "\(run.stdout)")
        #expect(!run.stdout.contains("did not end within"), "\(run.stdout)")
    }

    @Test func profileThatIsAFileIsRefusedClearly() async throws {
        let file = try RunnerProcess.temporaryFile("not-a-directory", "x")
        let script = try RunnerProcess.temporaryFile("p.js", "console.log(1)")
        let run = try await RunnerProcess.run(["run", script.path, "--profile", file.path])
        #expect(run.exitCode == 64)
        #expect(run.stderr.contains("is a file; give a directory"), "\(run.stderr)")
        #expect(!run.stderr.contains("NSError") && !run.stderr.contains("Domain="))
    }

    @Test func scriptOverTheSizeLimitIsACommandLineError() async throws {
        let script = try RunnerProcess.temporaryFile("big.js", "//" + String(repeating: "x", count: 9 << 20))
        defer { RunnerProcess.removeTemporaryFile(script) }
        let run = try await RunnerProcess.run(["run", script.path])
        #expect(run.exitCode == 64)
        #expect((run.stdout + run.stderr).contains("may be at most 8388608 bytes"), "\(run.stderr)")
        #expect(!(run.stdout + run.stderr).lowercased().contains("network"))
    }

    @Test func profileKeepsCookiesForCookiesShow() async throws {
        let script = try RunnerProcess.temporaryFile("p.js", "document.cookie = 'kept=1; Max-Age=3600; path=/'")
        let profile = script.deletingLastPathComponent().appendingPathComponent("profile")
        let run = try await RunnerProcess.run(["run", script.path, "--profile", profile.path])
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        let show = try await RunnerProcess.run(["cookies", "show", "--profile", profile.path, "--name", "page"])
        #expect(show.exitCode == 0, "\(show.stdout)\(show.stderr)")
        #expect(show.stdout.contains("kept=<1 bytes>"))
        #expect(show.stdout.contains("__Host-session=<"))
        // Without --name: every profile run wrote, the native store included, which followed
        // the page's own document.cookie write.
        let all = try await RunnerProcess.run(["cookies", "show", "--profile", profile.path])
        #expect(all.exitCode == 0, "\(all.stdout)\(all.stderr)")
        let sections = all.stdout.components(separatedBy: "\npage: ")
        #expect(sections.count == 2 && sections[0].hasPrefix("native: ") && sections[0].contains("kept=<1 bytes>"), "\(all.stdout)")
        // A damaged page profile falls back to its last good copy, and the run says so.
        let again = try await RunnerProcess.run(["run", script.path, "--profile", profile.path])
        #expect(again.exitCode == 0, "\(again.stdout)\(again.stderr)")
        try Data("garbage".utf8).write(to: profile.appendingPathComponent("page.cookies"))
        let damaged = try await RunnerProcess.run(["run", script.path, "--profile", profile.path])
        #expect(damaged.exitCode == 0, "\(damaged.stdout)\(damaged.stderr)")
        #expect(damaged.stdout.contains("warning: page profile:"), "\(damaged.stdout)")
    }

    /// A profile may claim any expiry (a crafted or corrupt one, 1e300 seconds from 1970): the
    /// run shows it instead of stopping (`Int(_:)` trapped on the seconds left).
    @Test func aProfileCookieExpiringBeyondAnyDateIsShown() async throws {
        let script = try RunnerProcess.temporaryFile("far.js", "console.log(document.cookie.includes('far=1'))")
        let profile = script.deletingLastPathComponent().appendingPathComponent("far-profile")
        let far = Cookie(name: "far", value: "1", domain: "127.0.0.1", expiresAt: Date(timeIntervalSince1970: 1e300))
        try PersistentCookieStore(directory: profile, profile: "page").save([far])
        let run = try await RunnerProcess.run(["run", script.path, "--profile", profile.path])
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("true"), "\(run.stdout)")
        #expect(run.stdout.contains("(far future)"), "\(run.stdout)")
    }
}

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct OtherCommandTests {
    static let conformance = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../SessionBridgeCookiesTests/Conformance/").standardizedFileURL

    @Test func cookiesParseExplainsEachAttribute() async throws {
        let result = try await RunnerProcess.run([
            "cookies", "parse",
            "sid=abc; Expires=Wed, 09 Jun 2038 10:18:14 GMT; Max-Age=0; Domain=.Example.COM; Secure; HttpOnly; SameSite=Bogus; Foo=bar",
            "--url", "https://www.example.com/a/b",
        ])
        #expect(result.stdout.contains("name      sid"))
        #expect(result.stdout.contains("max-age   0 (deletes the cookie)"))
        #expect(result.stdout.contains("domain    example.com"))
        #expect(result.stdout.contains("samesite  unspecified"))
        #expect(result.stdout.contains("ignored"))
        #expect(result.stdout.contains("jar       deleted"))
        let refused = try await RunnerProcess.run(["cookies", "parse", "a=b; Domain=co.uk", "--url", "https://www.example.co.uk/"])
        #expect(refused.exitCode == 1)
        #expect(refused.stdout.contains("public suffix"))
    }

    @Test func cookiesCheckRunsTheConformanceSuite() async throws {
        let result = try await RunnerProcess.run([
            "cookies", "check", Self.conformance.appendingPathComponent("http-state.json").path,
            "--adjustments", Self.conformance.appendingPathComponent("http-state-adjusted-expectations.json").path,
        ])
        #expect(result.exitCode == 0, "\(result.stdout)")
        #expect(result.stdout.hasSuffix("222 passed, 0 failed\n"))
        let failing = try RunnerProcess.temporaryFile(
            "cases.json",
            """
            [{"name": "wrong", "set_cookie": ["a=b"], "request_url": "http://x.example/", "cookie_url": "http://x.example/", "expected_cookie_header": "a=c"},
             {"name": "right", "set_cookie": [{"value": "c=d", "via": "script"}], "request_url": "https://x.example/", "cookie_url": "https://x.example/", "read": "script", "expected_cookie_header": "c=d"}]
            """)
        let failed = try await RunnerProcess.run(["cookies", "check", failing.path])
        #expect(failed.exitCode == 1)
        #expect(failed.stdout.contains("FAIL wrong: expected \"a=c\", got \"a=b\""))
        #expect(failed.stdout.hasSuffix("1 passed, 1 failed\n"))
    }

    @Test func serveAnswersAndStops() async throws {
        let result = try await RunnerProcess.run(["serve", "--duration", "1"], timeout: 30)
        #expect(result.exitCode == 0)
        #expect(result.stdout.contains("reference server listening on http://127.0.0.1:"))
    }

    @Test func demoWalksEveryFlow() async throws {
        let result = try await RunnerProcess.run(["demo"], timeout: 120)
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        for section in [
            "1. native login", "2. the page asks native code", "3. navigation with an expired", "4. a race", "5. a page trying",
            "6. logout",
        ] {
            #expect(result.stdout.contains(section))
        }
        #expect(result.stdout.contains("the page landed on /app"))
        #expect(result.stdout.contains("cost 1 token-endpoint refresh(es); reuse events: 0"))
        #expect(result.stdout.contains(": 0 found"))
        #expect(result.stdout.contains("demo complete"))
    }
}
