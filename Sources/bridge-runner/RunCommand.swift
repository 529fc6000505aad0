import ArgumentParser
import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTesting

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a page script (.js), a page (.html) or a URL in a page wired to a native session.",
        discussion: """
            Runs until the page is quiet (no timers, fetches, bridge calls, navigations or work of its workers pending) or --timeout. \
            Exit codes: 0 finished, 1 uncaught script error or another failure (a navigation refused or failed), \
            2 unhandled rejection, 3 timeout, 4 server unreachable, 5 sign-in refused, 64 bad arguments, \
            66 a file missing, unreadable or unusable.
            """)

    @Argument(help: "A .js or .html file, or an http(s) URL.")
    var target: String

    @Option(help: "The URL the script or page is served from (defaults to a path on the server).")
    var url: String?

    @Option(help: "Use this server instead of starting the embedded reference server.")
    var server: String?

    @Option(help: "Sign in natively with this user (with --password).")
    var user: String?

    @Option(help: "The password for --user (visible in the process list: prefer --password-file, SESSIONBRIDGE_PASSWORD or the prompt).")
    var password: String?

    @Option(help: "A file holding the password for --user.")
    var passwordFile: String?

    @Option(help: "A file holding a refresh token to adopt instead of signing in.")
    var refreshTokenFile: String?

    @Flag(help: "Start without a session (no native sign-in).")
    var signedOut = false

    @Option(help: "A directory keeping the page and native cookie stores between runs.")
    var profile: String?

    @Flag(help: "Keep nothing between runs (the default).")
    var ephemeral = false

    @Option(help: "Another origin allowed to call the session handler (repeatable).")
    var handlerOrigin: [String] = []

    @Option(parsing: .unconditional, help: "Seconds the page may take, its load and its work together; past them the run ends with code 3.")
    var timeout: Double = 10

    @Option(
        parsing: .unconditional,
        help:
            "Seconds one entry into the page's JavaScript (a script, a timer, a callback) may run before it is stopped (with --engine webkit: before the page's web process, silent that long, is ended)."
    )
    var entryTimeLimit: Double = 5

    @Flag(help: "One JSON object per event.")
    var json = false

    /// Applied to the embedded server once the runner has signed in.
    @OptionGroup(title: "Embedded server faults") var faults: FaultOptions

    @OptionGroup(title: "Authorization server") var authorization: AuthorizationServerOptions

    @OptionGroup var engineOption: EngineOption

    @OptionGroup(title: "Web session") var webSession: WebSessionOptions

    func validate() throws {
        if user == nil, password != nil || passwordFile != nil { throw ValidationError("--password and --password-file go with --user") }
        if user != nil, !SecretSource.available(value: password, file: passwordFile, environment: "SESSIONBRIDGE_PASSWORD") {
            throw ValidationError("--user and --password go together (or --password-file, SESSIONBRIDGE_PASSWORD, a prompt on a terminal)")
        }
        if refreshTokenFile != nil && user != nil { throw ValidationError("use either --user/--password or --refresh-token-file") }
        // Credentials a signed-out run would ignore without a word.
        if signedOut, user != nil || refreshTokenFile != nil {
            throw ValidationError("--signed-out starts without a session: it goes with neither --user nor --refresh-token-file")
        }
        if profile != nil && ephemeral { throw ValidationError("use either --profile or --ephemeral") }
        if profile != nil && refreshTokenFile != nil {
            throw ValidationError("use either --profile (its vault holds the session) or --refresh-token-file")
        }
        var isDirectory: ObjCBool = false
        if let profile, unsafe FileManager.default.fileExists(atPath: profile, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw ValidationError("--profile \(profile) is a file; give a directory (it is created when missing)")
        }
        if !(timeout > 0 && timeout <= RunDeadline.longest) {
            throw ValidationError("--timeout must be a positive number of seconds, at most \(Int(RunDeadline.longest))")
        }
        if !(entryTimeLimit > 0 && entryTimeLimit <= RunDeadline.longest) {
            throw ValidationError("--entry-time-limit must be a positive number of seconds, at most \(Int(RunDeadline.longest))")
        }
        if let url, URL(string: url)?.host == nil { throw ValidationError("--url must be an absolute URL") }
        if let server, URL(string: server)?.host == nil {
            throw ValidationError("--server must be an absolute URL such as http://127.0.0.1:8080")
        }
        for origin in handlerOrigin where SecurityOrigin(origin) == nil {
            throw ValidationError("--handler-origin \(origin) is not an origin such as https://app.example")
        }
    }

    func run() async throws {
        if engineOption.engine == .webkit { return try await WebKitRun(command: self).run() }
        let transcript = Transcript(json: json)
        // A vault file given with --refresh-token-file is the session's vault: a rotated token is
        // saved to it, as to a profile's.
        let vault = self.vault
        let bound = timeout + RunDeadline.margin
        let deadline = RunDeadline.arm(seconds: bound) { [refreshTokenFile] in
            transcript.failure(
                "the run did not end within --timeout \(timeout) s (+\(RunDeadline.margin) s): a script held its engine thread, or the page waited on a request past it; ended the run"
            )
            SignIn.keepRotatedAtTheDeadline(from: vault, inPlainFile: refreshTokenFile, transcript: transcript)
        }
        let interruption = RunInterruption.arm(saving: vault, toPlainFile: refreshTokenFile, transcript: transcript)
        defer { withExtendedLifetime(interruption) {} }
        let source = try PageSource(target)
        let profileURL = profile.map { URL(fileURLWithPath: $0) }
        let nativeStore = profileURL.map { PersistentCookieStore(directory: $0, profile: "native") }
        let pageStore =
            try profileURL.map { directory throws in
                do {
                    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                } catch {
                    throw RunnerFailure(
                        description: "cannot make the profile directory \(directory.path) (its parent must exist and be writable)",
                        exitCode: .missingInput)
                }
                return try WebsiteDataStore(directory: directory, profile: "page", includeSessionCookies: true)
            } ?? WebsiteDataStore.nonPersistent()
        let origins = handlerOrigin.compactMap(SecurityOrigin.init)
        // A damaged profile file fell back to its last good copy: say so, before anything runs.
        if let warning = pageStore.attachment?.loadResult.warning { transcript.note("warning: page profile: \(warning)") }
        if let warning = pageStore.localStorage.loadWarning { transcript.note("warning: page profile: \(warning)") }
        if let warning = pageStore.indexedDatabases.loadWarning { transcript.note("warning: page profile: \(warning)") }
        if let warning = pageStore.cacheStorages.loadWarning { transcript.note("warning: page profile: \(warning)") }
        if let warning = try? nativeStore?.load().warning { transcript.note("warning: native profile: \(warning)") }
        let memoryLimit = engineOption.headlessMemoryLimitMB
        let configure: @Sendable (inout WebPageConfiguration) -> Void = { configuration in
            configuration.websiteDataStore = pageStore
            configuration.scriptTimeLimit = .milliseconds(Int64(min(entryTimeLimit, timeout) * 1000))
            configuration.memoryLimitMB = memoryLimit
        }

        let settings = try authorization.settings()
        let fixture: AppWiring
        if let serverURL = try externalServer(settings) {
            var configuration = settings.sessionConfiguration(server: serverURL)
            webSession.apply(to: &configuration, server: serverURL)
            fixture = await AppWiring(
                server: nil, baseURL: serverURL, configuration: configuration,
                vault: vault, nativeCookieStore: nativeStore, allowedOrigins: origins, configure: configure)
            transcript.note("using the server at \(Transcript.shown(serverURL))")
        } else {
            // The faults start once the runner has signed in: they are for the page's run.
            var serverConfiguration = faults.configuration
            serverConfiguration.faults = .none
            serverConfiguration.oauthFaults = .none
            fixture = try await AppWiring.embedded(
                server: serverConfiguration, webSession: webSession, vault: vault, nativeCookieStore: nativeStore,
                allowedOrigins: origins, configure: configure)
            transcript.note("embedded reference server on \(fixture.baseURL.absoluteString) (demo user: demo / demo)")
        }
        fixture.observe { transcript.page($0) }
        fixture.messageLog.observe { transcript.bridge($0) }

        let exit = await SignIn.exit(
            await run(source, fixture: fixture, codeFlow: settings.redirectURI != nil, deadline: deadline, transcript: transcript),
            of: fixture.session, adoptedFrom: refreshTokenFile, transcript: transcript)
        if let refreshTokenFile, vault is InMemoryTokenVault, let note = SignIn.keepRotated(from: vault, inPlainFile: refreshTokenFile) {
            transcript.note(note)
        }
        transcript.stores(page: fixture.pageCookies(), native: fixture.nativeCookies())
        transcript.webStorage(local: pageStore.localStorage, session: fixture.page.sessionStorage, databases: pageStore.indexedDatabases)
        if let stats = fixture.server?.stats() {
            transcript.note(
                "server: \(stats.logins) logins, \(stats.refreshes) refreshes, \(stats.graceReplays) grace replays, \(stats.reuseEvents) reuse events"
                    + webSession.statistics(stats))
        }
        // The embedded server waits for its requests in flight as it stops (a refresh the page
        // left under `--latency`): the run's outcome is known, so it waits a second at most.
        _ = try? await RunBudget.within(.now + .seconds(1)) { () async -> Bool in
            await fixture.stop()
            return true
        }
        // The profiles' last cookie writes, made behind the pages, land before the process ends.
        await CookieStoreAttachment.flushAll()
        pageStore.localStorage.flush()
        pageStore.indexedDatabases.flush()
        pageStore.cacheStorages.flush()
        if let problem = pageStore.localStorage.saveError { transcript.note("warning: page profile: \(problem)") }
        if let problem = pageStore.indexedDatabases.saveError { transcript.note("warning: page profile: \(problem)") }
        if let problem = pageStore.cacheStorages.saveError { transcript.note("warning: page profile: \(problem)") }
        if exit != .success { throw exit }
    }

    private func run(
        _ source: PageSource, fixture: AppWiring, codeFlow: Bool, deadline: RunDeadline.Armed, transcript: Transcript
    ) async -> ExitCode {
        do {
            try await signIn(fixture.session, server: fixture.server, codeFlow: codeFlow, transcript: transcript)
        } catch {
            return SignIn.report(error, to: transcript, codeFlow: signsInWithTheCodeFlow(codeFlow))
        }
        fixture.server?.setFaults(faults.configuration.faults)
        fixture.server?.setOAuthFaults(faults.configuration.oauthFaults)
        let documentURL = url.map { URL(string: $0)! } ?? fixture.url("/run/\(source.name)")
        // `--timeout` is the page's: its load and its work until it is quiet share it (a second
        // at least is left to see it quiet).
        deadline.restart(seconds: timeout + RunDeadline.margin)
        let budgetEnds = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        do {
            let page = fixture.page
            var loading: @Sendable () async throws -> Void
            switch source {
            case .url(let target):
                loading = { try await page.load(target) }
            case .file(_, let body, let isHTML):
                if let server = fixture.server, url == nil {
                    server.serve(
                        path: documentURL.path, body: isHTML ? body : "<script src=\"\(documentURL.path).js\"></script>",
                        contentType: "text/html; charset=utf-8")
                    if !isHTML { server.serve(path: documentURL.path + ".js", body: body, contentType: "text/javascript") }
                    loading = { try await page.load(documentURL) }
                } else if isHTML {
                    loading = { try await page.loadHTMLString(body, baseURL: documentURL) }
                } else {
                    loading = { try await page.loadScript(body, baseURL: documentURL) }
                }
            }
            // A server that never answers ends the page's part at `--timeout`, as a page that
            // never goes quiet does.
            if try await RunBudget.within(budgetEnds, loading) == nil {
                transcript.failure("the page did not load within --timeout \(timeout) s")
                return .timedOut
            }
        } catch let error as PageError {
            transcript.failure("\(error.message)")
            if error.code == .network || error.code == .timeout {
                transcript.note("is the server running? Drop --server to use the embedded one.")
                return .serverUnreachable
            }
            return .failure
        } catch {
            transcript.failure("\(error)")
            return .failure
        }
        let progress = Progress(enabled: !json, transcript: transcript)
        // Bounded here too: a page whose timers multiply keeps its engine thread so busy that
        // the wait's own timer would fire only after every timer already due.
        let page = fixture.page
        let waitEnds = max(budgetEnds, .now + .seconds(1))
        let quiet =
            (try? await RunBudget.within(waitEnds + .milliseconds(100)) { await page.runUntilQuiescent(timeout: waitEnds - .now) })
            ?? false
        // A refresh a page asked for and left (it navigated on) ends before the stores are
        // shown, within the budget (half a second at least).
        let session = fixture.session
        let refreshEnded = try? await RunBudget.within(max(budgetEnds, .now + .milliseconds(500))) { () async -> Bool in
            await session.waitForRefreshInFlight()
            return true
        }
        if refreshEnded != true {
            await progress.finish()
            transcript.verdict("a refresh was still in flight after \(timeout) s; raise --timeout")
            return .timedOut
        }
        await progress.finish()
        let counts = transcript.counts
        if counts.scriptErrors > 0 { return .scriptError }
        if counts.unhandledRejections > 0 { return .unhandledRejection }
        if !quiet {
            transcript.verdict(
                "the page was still busy after \(timeout) s (timers, fetches or bridge calls pending); raise --timeout or check for a setInterval"
            )
            return .timedOut
        }
        return .success
    }

    /// Signs `session` in as the flags say, on either engine: signed out, the token of
    /// --refresh-token-file, --user's password (the code flow with --redirect-uri), the
    /// profile's session, or the embedded server's demo user.
    func signIn(_ session: SessionController, server: ReferenceServer?, codeFlow: Bool, transcript: Transcript) async throws {
        if signedOut { return transcript.note("starting signed out") }
        if let refreshTokenFile {
            try await SignIn.adopt(session, from: refreshTokenFile)
            return transcript.note("adopted the refresh token from \(refreshTokenFile)")
        }
        if let user {
            let password = try SignIn.password(flag: password, file: passwordFile, user: user)
            return transcript.note(try await SignIn.signIn(session, user: user, password: password, codeFlow: codeFlow))
        }
        if try await session.status().isSignedIn { return transcript.note("using the session in the profile") }
        guard let server else { return transcript.note("no credentials given: starting signed out") }
        let configuration = server.configuration
        _ = try await session.login(username: configuration.username, password: configuration.password)
        transcript.note("signed in natively as the demo user '\(configuration.username)'")
    }

    /// Whether a sign-in's failure is the code flow's (for its message).
    func signsInWithTheCodeFlow(_ codeFlow: Bool) -> Bool { codeFlow && refreshTokenFile == nil && user != nil }

    /// The session's vault: the vault file of --refresh-token-file, the profile's, or one in
    /// memory (a plain token file's token is adopted into it and written back at the end).
    var vault: any TokenVault {
        refreshTokenFile.flatMap(SignIn.vault(at:))
            ?? profile.map { FileTokenVault(url: URL(fileURLWithPath: $0).appendingPathComponent("vault")) } ?? InMemoryTokenVault()
    }

    /// The external server the flags name: --server, the config file's, or the issuer.
    func externalServer(_ settings: AuthorizationServerOptions.Settings) throws -> URL? {
        guard let server = server ?? settings.server ?? (settings.describesAuthorizationServer ? settings.issuer?.absoluteString : nil)
        else { return nil }
        guard let serverURL = URL(string: server), serverURL.host != nil else {
            throw ValidationError("--server \(server) is not an absolute URL")
        }
        return serverURL
    }

    static func isUnreachable(_ error: any Error) -> Bool {
        let text = "\(error)".lowercased()
        return text.contains("network") || text.contains("refused") || text.contains("connect")
    }
}

/// What `run` was asked to run.
enum PageSource {
    case url(URL)
    case file(name: String, body: String, isHTML: Bool)

    init(_ target: String) throws {
        if target.hasPrefix("http://") || target.hasPrefix("https://") {
            guard let url = URL(string: target) else { throw ValidationError("\(target) is not a valid URL") }
            self = .url(url)
            return
        }
        guard FileManager.default.fileExists(atPath: target) else {
            throw RunnerFailure(description: "no such file: \(target)", exitCode: .missingInput)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) ?? 0
        let limit = WebPageConfiguration().maxResponseBytes
        if size > limit {
            throw RunnerFailure(
                description: "\(target) is \(size) bytes; a page or script may be at most \(limit) bytes (the page's response limit)",
                exitCode: .validationFailure)
        }
        guard let body = try? String(contentsOfFile: target, encoding: .utf8) else {
            throw RunnerFailure(description: "cannot read \(target) as UTF-8 text", exitCode: .missingInput)
        }
        let name = URL(fileURLWithPath: target).lastPathComponent
        let isHTML = name.lowercased().hasSuffix(".html") || name.lowercased().hasSuffix(".htm")
        self = .file(name: name, body: isHTML ? body : Self.asyncScript(body), isHTML: isHTML)
    }

    /// A `.js` target runs as the body of an async function, so it may `await` at top level as
    /// a module script can. An error it throws is thrown again from a task, so it is reported as
    /// uncaught (exit 1) as in a classic script. Line numbers are kept.
    static func asyncScript(_ body: String) -> String {
        "(async () => {" + body + "\n})().catch((error) => { setTimeout(() => { throw error; }, 0); });\n"
    }

    var name: String {
        switch self {
        case .url(let url): return url.lastPathComponent
        case .file(let name, _, _): return name
        }
    }
}
