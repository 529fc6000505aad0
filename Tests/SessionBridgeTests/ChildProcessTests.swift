import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// Single flight across real processes: this test binary is started again as the "app
/// extension", sharing the vault file and cookie profile with the "app" (this process).
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct ChildProcessTests {
    static let environmentKey = "SESSIONBRIDGE_CHILD_DIRECTORY"

    /// The child's role; does nothing unless started by ``appAndExtensionProcessesShareOneRefresh``.
    @Test func childProcessRole() async throws {
        guard let path = ProcessInfo.processInfo.environment[Self.environmentKey],
            let server = ProcessInfo.processInfo.environment["SESSIONBRIDGE_CHILD_SERVER"]
        else { return }
        let directory = URL(fileURLWithPath: path)
        var configuration = SessionConfiguration(server: URL(string: server)!)
        configuration.refreshMargin = .milliseconds(200)
        let session = SessionController(
            configuration: configuration, vault: FileTokenVault(url: directory.appendingPathComponent("shared.vault")),
            cookieStore: PersistentCookieStore(directory: directory, profile: "shared"))
        try await session.start()
        try Data().write(to: directory.appendingPathComponent("ready"))
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("go").path) {
            try await Task.sleep(for: .milliseconds(2))
        }
        try await session.refresh()
        let value = session.cookieJar.cookies(for: URL(string: server)!).first { $0.name == "__Host-session" }?.value ?? "-"
        let report = "\(await session.networkRefreshCount) \(await session.adoptedRotationCount) \(value)"
        try Data(report.utf8).write(to: directory.appendingPathComponent("report"))
    }

    @Test func appAndExtensionProcessesShareOneRefresh() async throws {
        guard ProcessInfo.processInfo.environment[Self.environmentKey] == nil else { return }
        let binary = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])
        // On Linux the test binary is the `.xctest` executable SwiftPM built.
        try #require(
            FileManager.default.isExecutableFile(atPath: binary.path) && binary.lastPathComponent.hasSuffix(".xctest"), "\(binary.path)")
        try await withServer { server in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let app = SessionController(
                configuration: makeConfiguration(server), vault: FileTokenVault(url: directory.appendingPathComponent("shared.vault")),
                cookieStore: PersistentCookieStore(directory: directory, profile: "shared"))
            try await app.login(username: "demo", password: "demo")

            let child = Process()
            child.executableURL = binary
            child.arguments = ["--testing-library", "swift-testing", "--filter", "childProcessRole"]
            var environment = ProcessInfo.processInfo.environment
            environment[Self.environmentKey] = directory.path
            environment["SESSIONBRIDGE_CHILD_SERVER"] = server.baseURL.absoluteString
            child.environment = environment
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(30)
            while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("ready").path), clock.now < deadline {
                try await Task.sleep(for: .milliseconds(2))
            }
            try Data().write(to: directory.appendingPathComponent("go"))
            try await app.refresh()
            while child.isRunning, clock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            if child.isRunning { child.terminate() }
            #expect(child.terminationStatus == 0)
            let report = try String(contentsOf: directory.appendingPathComponent("report"), encoding: .utf8).split(separator: " ").map(
                String.init)
            let stats = server.stats()
            #expect(stats.refreshes == 1)
            #expect(stats.reuseEvents == 0)
            #expect(await app.networkRefreshCount + Int(report[0])! == 1)
            #expect(await app.adoptedRotationCount + Int(report[1])! == 1)
            #expect(report[2] == app.cookieJar.cookies(for: server.url("/")).first { $0.name == "__Host-session" }?.value)
        }
    }
}
