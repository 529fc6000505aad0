import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SIGKILL during refresh and persistence: a child process (this test binary started again)
/// refreshes in a loop with a `FileTokenVault` and a persistent native cookie store against the
/// reference server this process runs, and is killed at random moments. After every kill a
/// fresh controller here loads what the child left on disk and is checked, then recovered.
@Suite(.serialized, .timeLimit(.minutes(4)), .hangWatchdog) struct KillTests {
    static let directoryKey = "RELIABILITY_KILL_CHILD_DIRECTORY"
    static let serverKey = "RELIABILITY_KILL_CHILD_SERVER"
    static let vaultName = "session.vault"
    static let profile = "native"

    static func configuration(_ server: URL, _ kind: TokenServer = .strict) -> SessionConfiguration {
        var configuration = SessionConfiguration(server: server)
        configuration.refreshTokenReuseGrace = kind.reuseGrace
        configuration.freshnessWindow = .zero
        configuration.refreshMargin = .milliseconds(200)
        configuration.requestTimeout = .seconds(5)
        configuration.retry = RetryPolicy(baseDelay: .milliseconds(10))
        return configuration
    }

    /// The child's role; does nothing unless started by ``killDuringRefreshAndPersistence()``.
    @Test func refreshLoopChild() async throws {
        guard let path = ProcessInfo.processInfo.environment[Self.directoryKey],
            let server = ProcessInfo.processInfo.environment[Self.serverKey].flatMap(URL.init(string:))
        else { return }
        let directory = URL(fileURLWithPath: path)
        let session = SessionController(
            configuration: Self.configuration(server), vault: FileTokenVault(url: directory.appendingPathComponent(Self.vaultName)),
            cookieStore: PersistentCookieStore(directory: directory, profile: Self.profile))
        try await session.start()
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("ready-\(getpid())").path, contents: nil)
        for _ in 0..<20_000 {
            try await session.refresh()
        }
    }

    /// What the child left on disk, read without the product's code.
    struct DiskState {
        var refreshToken: String?
        var vaultExpiry: Double?
        var sessionCookie: String?
        var expiresCookie: String?
        var cookieNames: Set<String>

        /// `exp` of the access token in the session cookie (a JWT).
        var sessionCookieExpiry: Int? {
            guard let sessionCookie else { return nil }
            let parts = sessionCookie.split(separator: ".")
            guard parts.count == 3 else { return nil }
            var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base64.count % 4 != 0 { base64 += "=" }
            guard let data = Data(base64Encoded: base64),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return object["exp"] as? Int
        }
    }

    static func readDisk(_ directory: URL) throws -> DiskState {
        let vaultURL = directory.appendingPathComponent(vaultName)
        var state = DiskState(cookieNames: [])
        if let data = FileManager.default.contents(atPath: vaultURL.path) {
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "the vault file is not JSON")
            state.refreshToken = object["refreshToken"] as? String
            state.vaultExpiry = object["accessTokenExpiresAt"] as? Double
        }
        let loaded = try PersistentCookieStore(directory: directory, profile: profile).load()
        state.cookieNames = Set(loaded.cookies.map(\.name))
        state.sessionCookie = loaded.cookies.first { $0.name == "__Host-session" }?.value
        state.expiresCookie = loaded.cookies.first { $0.name == "session_expires" }?.value
        return state
    }

    /// Temporary files in `directory` (of the vault or the cookie store).
    static func temporaryFiles(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.contains(".tmp") }
    }

    @Test(arguments: TokenServer.allCases) func killDuringRefreshAndPersistence(_ kind: TokenServer) async throws {
        guard ProcessInfo.processInfo.environment[Self.directoryKey] == nil else { return }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        try await withReferenceServer(kind.serverConfiguration) { server in
            let directory = makeTemporaryDirectory("kill")
            defer { try? FileManager.default.removeItem(at: directory) }
            let vaultURL = directory.appendingPathComponent(Self.vaultName)
            func controller() -> SessionController {
                SessionController(
                    configuration: Self.configuration(server.baseURL, kind), vault: FileTokenVault(url: vaultURL),
                    cookieStore: PersistentCookieStore(directory: directory, profile: Self.profile))
            }
            try await controller().login(username: "demo", password: "demo")

            var environment = ProcessInfo.processInfo.environment
            environment[Self.directoryKey] = directory.path
            environment[Self.serverKey] = server.baseURL.absoluteString
            let clock = ContinuousClock()
            // A count of kills, not a time budget: a loaded machine takes longer, it does not fail.
            let deadline = clock.now + .seconds(90)
            var kills = 0, consistent = 0, cookieBehind = 0, mixedCookies = 0, spentOnDisk = 0, endedEarly = 0
            var recoveredByRefresh = 0, reuseEvents = 0, childRefreshes = 0, sessionsEnded = 0, leftovers = 0
            while kills < 50 && clock.now < deadline {
                let refreshesBefore = server.stats().refreshes
                let connectionsBefore = server.stats().openConnections
                let child = Process()
                child.executableURL = executable
                child.arguments = ["--testing-library", "swift-testing", "--filter", "refreshLoopChild"]
                child.environment = environment
                child.standardOutput = FileHandle.nullDevice
                child.standardError = FileHandle.nullDevice
                try child.run()
                let ready = directory.appendingPathComponent("ready-\(child.processIdentifier)").path
                let readyBy = clock.now + .seconds(10)
                while !FileManager.default.fileExists(atPath: ready), child.isRunning, clock.now < readyBy {
                    try await Task.sleep(for: .milliseconds(1))
                }
                // The moment of death is the experiment: anywhere in the next 0–40 ms of the loop.
                try await Task.sleep(for: .microseconds(Int.random(in: 0...40_000)))
                if child.isRunning {
                    kill(child.processIdentifier, SIGKILL)
                    let ended = await child.waitForExit(timeout: .seconds(30))
                    #expect(ended?.reason == .uncaughtSignal)
                    kills += 1
                } else {
                    _ = await child.waitForExit(timeout: .seconds(30))
                    endedEarly += 1
                }
                try? FileManager.default.removeItem(atPath: ready)
                childRefreshes += server.stats().refreshes - refreshesBefore

                // The dead child's last request may still be on the server: let it finish, so
                // what is on disk is compared with everything the server did.
                #expect(await server.waitUntilIdle(openConnections: connectionsBefore))
                // 1. The stores load, each holding one complete record.
                let disk = try Self.readDisk(directory)
                let token = try #require(disk.refreshToken, "the vault is empty after a kill")
                let issued = server.issuedRefreshTokens()
                let vaultIsNewest = token == issued.last
                let sessionCookieValid = disk.sessionCookie.map { server.verifyAccessToken($0) != nil } ?? false
                #expect(disk.cookieNames.isSuperset(of: ["__Host-session", "session_expires", "csrf_token"]), "\(disk.cookieNames)")
                if let exp = disk.sessionCookieExpiry, let expires = disk.expiresCookie.flatMap(Int.init), exp != expires {
                    mixedCookies += 1
                }
                // 2. The vault and the cookie store agree (same rotation, to the second of the access token's expiry).
                let agree =
                    vaultIsNewest && sessionCookieValid
                    && (disk.vaultExpiry.map { v in disk.sessionCookieExpiry.map { abs(Double($0) - v) <= 2 } ?? false } ?? false)
                if agree { consistent += 1 } else if vaultIsNewest { cookieBehind += 1 } else { spentOnDisk += 1 }

                // 3. A fresh controller loads them and recovers with one refresh.
                let parent = controller()
                await #expect(throws: Never.self) { try await parent.start() }
                #expect(try await parent.status().isSignedIn)
                let reuseBefore = server.stats().reuseEvents
                let outcome: Result<SessionStatus, SessionError>
                do throws(SessionError) { outcome = .success(try await parent.refresh()) } catch { outcome = .failure(error) }
                let newReuse = server.stats().reuseEvents - reuseBefore
                reuseEvents += newReuse
                if vaultIsNewest || kind == .grace {
                    // The vault holds the newest token, or one the server rotated less than its
                    // grace ago, whose answer died with the child: the server answers the
                    // same rotation again, and nothing is lost.
                    #expect(newReuse == 0)
                    #expect(throws: Never.self) { try outcome.get() }
                    if !agree { recoveredByRefresh += 1 }
                    let after = try Self.readDisk(directory)
                    #expect(after.refreshToken == server.issuedRefreshTokens().last, "the recovery refresh did not reach the vault")
                    #expect(
                        after.sessionCookie.map { server.verifyAccessToken($0) != nil } ?? false,
                        "the recovery refresh did not reach the cookie store")
                } else {
                    // Documented for a server without a grace: the child died after the server
                    // rotated the token but before the vault was written. The token on disk is
                    // spent; the server refuses it as reuse and the session ends everywhere.
                    #expect(newReuse == 1)
                    #expect(outcome.failure?.code == .invalidGrant)
                    #expect(try await !parent.status().isSignedIn)
                    #expect(try Self.readDisk(directory).refreshToken == nil, "the vault still holds the refused token")
                    sessionsEnded += 1
                    // Start a new session for the next round.
                    try await parent.login(username: "demo", password: "demo")
                }
                // Temporary files of the killed writer are gone after the recovery wrote both stores.
                let stale = Self.temporaryFiles(in: directory)
                #expect(stale.isEmpty, "left behind: \(stale)")
                leftovers += stale.count
            }
            print(
                """
                [kills] \(kind) server: kills survived: \(kills) (children that ended before the kill: \(endedEarly)); refreshes by children: \(childRefreshes); \
                after the kill: consistent \(consistent), vault current but cookie store behind \(cookieBehind) \
                (recovered by one refresh: \(recoveredByRefresh)), session cookie and expiry cookie of different rotations \(mixedCookies), \
                vault holding a token the server had already rotated \(spentOnDisk) (\(kills == 0 ? 0 : spentOnDisk * 100 / max(kills, 1))%), \
                sessions ended by the server for it \(sessionsEnded); reuse events from recovery refreshes: \(reuseEvents); \
                temporary files left after recovery: \(leftovers)
                """)
            #expect(kills >= 10, "too few kills in the time budget")
            #expect(consistent + cookieBehind + spentOnDisk == kills + endedEarly)
        }
    }
}
