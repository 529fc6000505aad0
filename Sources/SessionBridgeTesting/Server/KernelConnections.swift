import Foundation

/// The connections the kernel holds for a port on this machine, read from `/proc/net/tcp` and
/// `/proc/net/tcp6`: a connection a client made and wrote to is there before the server has
/// accepted it (in the listening socket's queue), and stays there after the client died.
enum KernelConnections {
    /// Server-side connections of `port` that are open or closed only by their client
    /// (`ESTABLISHED`, `CLOSE_WAIT`): the server's own, and those waiting to be accepted.
    /// `nil` where the kernel's tables cannot be read.
    static func open(toPort port: Int) -> Int? {
        var count = 0
        var readAny = false
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // (Foundation reads a /proc file by its size, which is 0.)
            guard let handle = FileHandle(forReadingAtPath: table) else { continue }
            defer { try? handle.close() }
            readAny = true
            let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                // "sl local_address rem_address st ...": the local address is HEX:PORT in hex.
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 3, let colon = fields[1].lastIndex(of: ":"),
                    Int(fields[1][fields[1].index(after: colon)...], radix: 16) == port
                else { continue }
                if fields[3] == "01" || fields[3] == "08" { count += 1 }
            }
        }
        return readAny ? count : nil
    }
}
