import Foundation

/// Socket inodes of this process that are TCP sockets on `port` (either end).
public func socketsOnPort(_ port: Int) -> Int {
    let hexPort = String(format: ":%04X", port)
    var inodes = Set<String>()
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 9 else { continue }
            if fields[1].hasSuffix(hexPort) || fields[2].hasSuffix(hexPort) { inodes.insert(String(fields[9])) }
        }
    }
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return descriptors.count { name in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)") else { return false }
        return inodes.contains { target == "socket:[\($0)]" }
    }
}
