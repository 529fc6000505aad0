import Foundation

/// What the kernel holds for an IPv4 address and port on this machine, read from
/// `/proc/net/tcp`: a connection a client made and wrote to waits in the listening socket's
/// queue until the server accepts it, and stays there, request and all, after the client died
/// (whether its end came as a close or a reset).
enum KernelConnections {
    /// Connections to `address` (IPv4) and `port` the server has not accepted yet: the length
    /// of its listening socket's queue. `nil` where the kernel's table cannot be read.
    static func waitingToBeAccepted(on address: String, port: Int) -> Int? {
        // The table's form of the address: its four bytes in the machine's order, then the
        // port, in hexadecimal (another address, of either family, may have the same port).
        let bytes = address.split(separator: ".").compactMap { UInt8($0) }
        guard bytes.count == 4 else { return nil }
        let local = bytes.reversed().map { String(format: "%02X", $0) }.joined() + String(format: ":%04X", port)
        // (Foundation reads a /proc file by its size, which is 0.)
        guard let handle = FileHandle(forReadingAtPath: "/proc/net/tcp") else { return nil }
        defer { try? handle.close() }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        var waiting = 0
        for line in text.split(separator: "\n").dropFirst() {
            // "sl local_address rem_address st tx_queue:rx_queue ...": a listening socket's
            // (`0A`) receive queue is the number of connections waiting.
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 4, fields[1] == local, fields[3] == "0A",
                let queue = fields[4].split(separator: ":").last.flatMap({ Int($0, radix: 16) })
            else { continue }
            waiting += queue
        }
        return waiting
    }
}
