import Foundation
import SessionBridgeCookies
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

func temporaryDirectory(_ label: String = #function) -> URL {
    (try? TestDirectory.make(prefix: "cookies-tests-"))
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("cookies-tests-\(UUID().uuidString)")
}

let everyAttribute: [Cookie] = [
    Cookie(
        name: "sid", value: "s e c r e t", domain: "example.com", path: "/app",
        expiresAt: Date(timeIntervalSinceReferenceDate: 812_345_678.123_456),
        creationTime: Date(timeIntervalSinceReferenceDate: 700_000_000.5),
        lastAccessTime: Date(timeIntervalSinceReferenceDate: 700_000_100.25), isSecure: true, isHttpOnly: true,
        isHostOnly: false, sameSite: .strict, isPartitioned: true, partitionKey: "https://top.example"),
    Cookie(
        name: "", value: "nameless", domain: "www.example.com", path: "/",
        creationTime: Date(timeIntervalSinceReferenceDate: 700_000_001), sameSite: .lax),
    Cookie(
        name: "none", value: "ünïcødé;=", domain: "127.0.0.1", path: "/x",
        expiresAt: Date(timeIntervalSinceReferenceDate: 800_000_000),
        creationTime: Date(timeIntervalSinceReferenceDate: 700_000_002), isSecure: true, sameSite: .none),
    Cookie(
        name: "plain", value: "", domain: "example.org",
        creationTime: Date(timeIntervalSinceReferenceDate: 700_000_003), sameSite: .unspecified),
]

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct StoreTests {
    @Test func roundTripOfEveryAttribute() throws {
        let store = PersistentCookieStore(directory: temporaryDirectory(), profile: "main")
        #expect(try store.load().cookies.isEmpty)  // never saved: empty, no error
        try store.save(everyAttribute)
        let result = try store.load()
        #expect(result.cookies == everyAttribute)
        #expect(result.generation == 1)
        #expect(!result.recoveredFromBackup)
        #expect(result.cookies.map(\.isPersistent) == [true, false, true, false])
    }

    @Test func truncatedFileFallsBackToBackup() throws {
        let store = PersistentCookieStore(directory: temporaryDirectory(), profile: "p")
        try store.save(Array(everyAttribute.prefix(2)))
        try store.save(everyAttribute)
        let path = store.fileURL!.path
        let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        unsafe #expect(truncate(path, off_t(size - 7)) == 0)
        let result = try store.load()
        #expect(result.recoveredFromBackup)
        #expect(result.recovery == .truncated(expected: size, actual: size - 7))
        #expect(result.warning?.contains("cut short") == true)
        #expect(result.cookies == Array(everyAttribute.prefix(2)))
        #expect(result.generation == 1)
        // The next save does not back up the bad file over the good backup.
        try store.save(everyAttribute)
        #expect(try store.load().cookies == everyAttribute)
        #expect(try store.load().generation == 2)
    }

    @Test func corruptFileFallsBackToBackup() throws {
        let store = PersistentCookieStore(directory: temporaryDirectory(), profile: "p")
        try store.save([everyAttribute[0]])
        try store.save(everyAttribute)
        var bytes = try [UInt8](Data(contentsOf: store.fileURL!))
        bytes[bytes.count / 2] ^= 0x20
        try Data(bytes).write(to: store.fileURL!)
        let result = try store.load()
        #expect(result.recovery == .checksumMismatch)
        #expect(result.cookies == [everyAttribute[0]])
    }

    @Test func bothCopiesBadIsAnErrorNotAnEmptyJar() throws {
        let store = PersistentCookieStore(directory: temporaryDirectory(), profile: "p")
        try store.save(everyAttribute)
        try store.save(everyAttribute)
        try Data("garbage".utf8).write(to: store.fileURL!)
        try Data().write(to: store.backupURL!)
        #expect(throws: CookieStoreError.self) { try store.load() }
        do {
            _ = try store.load()
        } catch {
            guard case .unrecoverable(_, let problem, let backupProblem) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(problem == .truncated(expected: 32, actual: 7))
            #expect(backupProblem == .truncated(expected: 32, actual: 0))
            #expect(error.description.contains("cannot be loaded"))
        }
        // Missing primary with a good backup (a crash between renames) also recovers.
        let other = PersistentCookieStore(directory: temporaryDirectory(), profile: "q")
        try other.save([everyAttribute[1]])
        try other.save(everyAttribute)
        try FileManager.default.removeItem(at: other.fileURL!)
        let recovered = try other.load()
        #expect(recovered.recovery == .missing && recovered.cookies == [everyAttribute[1]])
    }

    @Test func profilesAndNonPersistentMode() throws {
        let dir = temporaryDirectory()
        try PersistentCookieStore(directory: dir, profile: "work").save([everyAttribute[0]])
        try PersistentCookieStore(directory: dir, profile: "home").save([everyAttribute[1]])
        #expect(PersistentCookieStore.profiles(in: dir) == ["home", "work"])
        #expect(try PersistentCookieStore(directory: dir, profile: "work").load().cookies == [everyAttribute[0]])
        #expect(throws: CookieStoreError.invalidProfileName("../x")) {
            try PersistentCookieStore(directory: dir, profile: "../x").save([])
        }
        try PersistentCookieStore(directory: dir, profile: "home").delete()
        #expect(PersistentCookieStore.profiles(in: dir) == ["work"])

        let memory = PersistentCookieStore.nonPersistent()
        #expect(!memory.isPersistent && memory.fileURL == nil)
        try memory.save(everyAttribute)
        #expect(try memory.load().cookies == everyAttribute)
    }

    @Test func attachLoadsAndSavesOnChange() throws {
        let clock = TestClock(suiteDate)
        let dir = temporaryDirectory()
        let store = PersistentCookieStore(directory: dir, profile: "default")
        let jar = CookieJar(clock: clock.read)
        let attachment = try jar.attach(to: store)
        let u = URL(string: "https://example.com/")!
        jar.setCookie("keep=1; Max-Age=3600; HttpOnly; SameSite=Strict", from: u)
        jar.setCookie("session=1", from: u)
        #expect(attachment.lastSaveError == nil)
        #expect(try store.load().cookies.map(\.name) == ["keep"])

        let restored = CookieJar(clock: clock.read)
        let second = try restored.attach(to: store, mode: .manual, includeSessionCookies: true)
        #expect(second.loadResult.cookies.count == 1)
        #expect(restored.cookieHeader(for: u) == "keep=1")
        #expect(restored.documentCookie(for: u) == "")  // HttpOnly survived the trip
        restored.setCookie("s=2", from: u)
        #expect(try store.load().cookies.count == 1)  // manual: not yet saved
        try second.save()
        #expect(try store.load().cookies.map(\.name).sorted() == ["keep", "s"])

        attachment.detach()
        jar.setCookie("after=1; Max-Age=60", from: u)
        #expect(try store.load().cookies.map(\.name).sorted() == ["keep", "s"])
    }
}

/// Kills a writer process with SIGKILL while it saves in a loop; every time, the store must load
/// and hold one complete generation.
@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct StoreCrashTests {
    static let writerEnvironment = "COOKIES_KILL_TEST_WRITER_DIR"
    static let cookiesPerGeneration = 150

    static func generation(_ n: Int) -> [Cookie] {
        (0..<cookiesPerGeneration).map { i in
            Cookie(
                name: "c\(i)", value: "generation-\(n)-" + String(repeating: "x", count: 100),
                domain: "example.com", expiresAt: Date(timeIntervalSinceReferenceDate: 900_000_000),
                creationTime: Date(timeIntervalSinceReferenceDate: Double(n)), isHttpOnly: i % 2 == 0)
        }
    }

    /// The writer half: does nothing unless started by ``killWriterRepeatedly()``.
    @Test func writerChild() throws {
        guard let dir = ProcessInfo.processInfo.environment[Self.writerEnvironment] else { return }
        let store = PersistentCookieStore(directory: URL(fileURLWithPath: dir), profile: "crash")
        var n = Int(try store.load().generation)
        while true {
            n += 1
            try store.save(Self.generation(n))
        }
    }

    static func check(_ store: PersistentCookieStore) throws -> UInt64 {
        let result = try store.load()
        let cookies = result.cookies
        if result.generation == 0 { return 0 }
        #expect(cookies.count == cookiesPerGeneration)
        let values = Set(cookies.map(\.value))
        #expect(values.count == 1, "mixed generations: \(values.count)")
        #expect(values.first?.hasPrefix("generation-") == true)
        return result.generation
    }

    @Test func killWriterRepeatedly() async throws {
        let dir = temporaryDirectory()
        let store = PersistentCookieStore(directory: dir, profile: "crash")
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var environment = ProcessInfo.processInfo.environment
        environment[Self.writerEnvironment] = dir.path
        // A count of kills, not a time budget: a loaded machine takes longer, it does not fail.
        let deadline = ContinuousClock.now + .seconds(90)
        var kills = 0
        var lastGeneration: UInt64 = 0
        var recoveries = 0
        while kills < 25 && ContinuousClock.now < deadline {
            let child = Process()
            child.executableURL = executable
            child.arguments = ["--testing-library", "swift-testing", "--filter", "writerChild"]
            child.environment = environment
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            // Wait for it to write at least one new generation, then kill it at a random moment.
            let waitUntil = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < waitUntil {
                if let g = try? store.load().generation, g > lastGeneration { break }
                try await Task.sleep(for: .milliseconds(2))
            }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...15_000)))
            kill(child.processIdentifier, SIGKILL)
            let ended = await child.waitForExit(timeout: .seconds(30))
            #expect(ended?.reason == .uncaughtSignal)
            kills += 1
            let generation = try Self.check(store)
            #expect(generation >= lastGeneration)
            if try store.load().recoveredFromBackup { recoveries += 1 }
            lastGeneration = generation
        }
        #expect(kills >= 20)
        #expect(lastGeneration > 0)
        // Temporary files of dead writers are cleaned up by load().
        let leftovers =
            (try? FileManager.default.contentsOfDirectory(atPath: dir.path))?
            .filter { $0.contains(".tmp-") } ?? []
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
