import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// django-oauth-toolkit, a standards OAuth 2.0 / OpenID Connect server this project did not
/// write, running on 127.0.0.1 on a free port in a child process.
///
/// The server lives in `Tests/Interop/oauth-server`; `Scripts/setup` installs it into
/// `.build/interop-venv`. The child exits when its standard input closes, so a test process
/// that dies takes its server with it.
struct InteropServer: Sendable {
    let configuration: InteropServerConfiguration
    let port: Int
    private let process: ProcessHandle

    /// `http://127.0.0.1:PORT/o`: the issuer, as the discovery document states it.
    var issuer: URL { URL(string: "http://127.0.0.1:\(self.port)/o")! }
    var baseURL: URL { URL(string: "http://127.0.0.1:\(self.port)")! }
    var discoveryURL: URL { self.url("/o/.well-known/openid-configuration") }
    var tokenEndpoint: URL { self.url("/o/token/") }
    var authorizationEndpoint: URL { self.url("/o/authorize/") }
    var revocationEndpoint: URL { self.url("/o/revoke_token/") }

    /// `path` on this server.
    func url(_ path: String) -> URL {
        URL(string: path, relativeTo: self.baseURL)!.absoluteURL
    }

    /// The server's log (request lines and warnings; never a request body).
    var log: String { self.process.log }

    /// Start a server, run `body`, and stop the server whatever happens.
    static func withRunning<T>(
        _ configuration: InteropServerConfiguration = InteropServerConfiguration(),
        _ body: (InteropServer) async throws -> T
    ) async throws -> T {
        let server = try await InteropServer.start(configuration)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Start the launcher with `python` and wait, at most `readyTimeout`, for its `READY <port>` line.
    static func start(
        _ configuration: InteropServerConfiguration = InteropServerConfiguration(),
        python: URL = InteropServer.python,
        readyTimeout: Duration = .seconds(120)
    ) async throws -> InteropServer {
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw InteropServerError.notInstalled(python: python.path)
        }
        let handle = try ProcessHandle(
            executable: python,
            arguments: [Self.serverDirectory.appending(path: "launcher.py").path],
            environment: configuration.environment
        )
        do {
            let port = try await handle.waitForReady(timeout: readyTimeout)
            return InteropServer(configuration: configuration, port: port, process: handle)
        } catch {
            await handle.stop()
            throw error
        }
    }

    /// Close the server's standard input and wait for it to exit (killed if it does not, in time).
    func stop() async {
        await self.process.stop()
    }

    static var packageRoot: URL {
        // Tests/InteropTests/Support/InteropServer.swift
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    static var serverDirectory: URL { Self.packageRoot.appending(path: "Tests/Interop/oauth-server") }

    /// The virtual environment's interpreter.
    static var python: URL { Self.virtualEnvironment.appending(path: "bin/python") }

    /// `SESSIONBRIDGE_INTEROP_VENV`, or `.build/interop-venv` in the package.
    static var virtualEnvironment: URL {
        if let path = ProcessInfo.processInfo.environment["SESSIONBRIDGE_INTEROP_VENV"], !path.isEmpty {
            return URL(fileURLWithPath: path, relativeTo: Self.packageRoot)
        }
        return Self.packageRoot.appending(path: ".build/interop-venv")
    }
}

/// The launcher's child process: its stdin (held open while it runs), its stdout (read for
/// the READY line) and its log file.
private final class ProcessHandle: Sendable {
    private let process: Process
    private let input: Pipe
    private let output: Pipe
    private let logURL: URL
    private let ready = Mutex<ReadyState>(.waiting(nil))

    private enum ReadyState {
        case waiting(CheckedContinuation<Int, any Error>?)
        case ready(Int)
        case failed(any Error)
        case delivered
    }

    init(executable: URL, arguments: [String], environment: [String: String]) throws {
        self.process = Process()
        self.input = Pipe()
        self.output = Pipe()
        self.logURL = FileManager.default.temporaryDirectory
            .appending(path: "interop-oauth-\(UUID().uuidString).log")
        try Data().write(to: self.logURL)
        let logHandle = try FileHandle(forWritingTo: self.logURL)

        self.process.executableURL = executable
        self.process.arguments = arguments
        var childEnvironment = ProcessInfo.processInfo.environment
        childEnvironment.merge(environment) { _, new in new }
        childEnvironment["PYTHONUNBUFFERED"] = "1"
        childEnvironment["PYTHONDONTWRITEBYTECODE"] = "1"
        self.process.environment = childEnvironment
        self.process.standardInput = self.input
        self.process.standardOutput = self.output
        self.process.standardError = logHandle
        try self.process.run()
        try? logHandle.close()

        // One reader thread: the READY line, then everything else to the end (never a full pipe).
        let reader = self.output.fileHandleForReading
        Thread.detachNewThread { [self] in
            var pending = Data()
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    if line.hasPrefix("READY "), let port = Int(line.dropFirst(6)) {
                        self.settle(.success(port))
                    }
                }
            }
            self.process.waitUntilExit()
            self.settle(.failure(InteropServerError.exitedBeforeReady(status: self.process.terminationStatus, log: self.log)))
        }
    }

    var log: String {
        (try? String(contentsOf: self.logURL, encoding: .utf8)) ?? ""
    }

    private func settle(_ result: Result<Int, any Error>) {
        let continuation: CheckedContinuation<Int, any Error>? = self.ready.withLock { state in
            switch state {
            case .waiting(let continuation):
                switch result {
                case .success(let port): state = continuation == nil ? .ready(port) : .delivered
                case .failure(let error): state = continuation == nil ? .failed(error) : .delivered
                }
                return continuation
            case .ready, .failed, .delivered:
                return nil
            }
        }
        continuation?.resume(with: result)
    }

    func waitForReady(timeout: Duration) async throws -> Int {
        let seconds = Int(timeout.components.seconds)
        let timer = Task { [self] in
            try await Task.sleep(for: timeout)
            self.settle(.failure(InteropServerError.notReady(seconds: seconds, log: self.log)))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let early: Result<Int, any Error>? = self.ready.withLock { state in
                switch state {
                case .waiting:
                    state = .waiting(continuation)
                    return nil
                case .ready(let port):
                    state = .delivered
                    return .success(port)
                case .failed(let error):
                    state = .delivered
                    return .failure(error)
                case .delivered:
                    return .failure(CancellationError())
                }
            }
            if let early { continuation.resume(with: early) }
        }
    }

    func stop() async {
        try? self.input.fileHandleForWriting.close()
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(15)
        while self.process.isRunning, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if self.process.isRunning {
            kill(self.process.processIdentifier, SIGKILL)
        }
        try? FileManager.default.removeItem(at: self.logURL)
    }
}
