import Foundation

/// What the kernel holds for a port on this machine, read from `/proc/net/tcp` and
/// `/proc/net/tcp6`: a connection a client made and wrote to waits in the listening socket's
/// queue until the server accepts it, and stays there, request and all, after the client died
/// (whether its end came as a close or a reset).
enum KernelConnections {
    /// Connections to `port` the server has not accepted yet: the length of its listening
    /// sockets' queues. `nil` where the kernel's tables cannot be read.
    static func waitingToBeAccepted(onPort port: Int) -> Int? {
        var count = 0
        var readAny = false
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // (Foundation reads a /proc file by its size, which is 0.)
            guard let handle = FileHandle(forReadingAtPath: table) else { continue }
            defer { try? handle.close() }
            readAny = true
            let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                // "sl local_address rem_address st tx_queue:rx_queue ...": the local address is
                // HEX:PORT in hex; for a listening socket (`0A`) the receive queue is the
                // number of connections waiting to be accepted.
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 4, fields[3] == "0A", let colon = fields[1].lastIndex(of: ":"),
                    Int(fields[1][fields[1].index(after: colon)...], radix: 16) == port,
                    let queues = fields[4].split(separator: ":").last, let waiting = Int(queues, radix: 16)
                else { continue }
                count += waiting
            }
        }
        return readAny ? count : nil
    }
}
