import Foundation

/// Runs the built `bridge-runner` as a subprocess, bounded in time.
struct RunnerProcess {
    var exitCode: Int32
    var stdout: String
    var stderr: String

    static var executable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("bridge-runner")
    }

    /// Runs the runner with the test's environment, `environment` added and `removing` taken out.
    static func run(_ arguments: [String], environment: [String: String] = [:], removing: [String] = [],
                    timeout: TimeInterval = 60) throws -> RunnerProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        for name in removing { merged[name] = nil }
        process.environment = merged
        process.standardInput = FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        // Read while it runs so a full pipe never blocks it.
        let outData = Locked(Data()), errData = Locked(Data())
        let group = DispatchGroup()
        for (pipe, sink) in [(out, outData), (err, errData)] {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                sink.set(data)
                group.leave()
            }
        }
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        group.wait()
        return RunnerProcess(exitCode: process.terminationStatus, stdout: String(decoding: outData.get(), as: UTF8.self),
                             stderr: String(decoding: errData.get(), as: UTF8.self))
    }

    static func temporaryFile(_ name: String, _ contents: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-runner-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try contents.write(to: url, atomically: true, encoding: .utf8)
        return url
    }
}

import Synchronization

final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func get() -> Value { mutex.withLock { $0 } }
    func set(_ value: Value) { mutex.withLock { $0 = value } }
}
