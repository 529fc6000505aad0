import Foundation

/// What the figures were measured on.
enum Machine {
    static func describe() -> [String: String] {
        var info: [String: String] = [:]
        info["nproc"] = String(ProcessInfo.processInfo.activeProcessorCount)
        if let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let colon = line.firstIndex(of: ":")
        {
            info["cpu"] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        info["javascriptcore"] =
            run("/usr/bin/pkg-config", ["--modversion", "javascriptcoregtk-4.1"])
            ?? run("/usr/bin/dpkg-query", ["-W", "-f=${Version}", "libjavascriptcoregtk-4.1-0"]) ?? "unknown"
        info["libsoup"] = run("/usr/bin/pkg-config", ["--modversion", "libsoup-3.0"]) ?? "unknown"
        info["load average"] =
            (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))
            .map { $0.split(separator: " ").prefix(3).joined(separator: " ") } ?? "unknown"
        #if DEBUG
        info["build"] = "debug (figures are not meaningful; use -c release)"
        #else
        info["build"] = "release"
        #endif
        return info
    }

    private static func run(_ path: String, _ arguments: [String]) -> String? {
        guard FileManager.default.isExecutableFile(atPath: path) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
