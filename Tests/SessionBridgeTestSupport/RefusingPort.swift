import Glibc

/// A loopback port that refuses every connection and that no other test can take: a socket
/// bound to it that does not listen. (A stopped server's port is free again, and a server that
/// another test starts meanwhile may take it and answer, or hang.)
public final class RefusingPort: Sendable {
    /// The port.
    public let port: Int
    private let socket: Int32

    public init() throws {
        guard let bound = loopbackSocket(listening: false) else { throw RefusingPortError() }
        (socket, port) = bound
    }

    deinit {
        close(socket)
    }
}

/// The port could not be reserved.
public struct RefusingPortError: Error {}

/// A socket bound to a free loopback port, listening or not, and its port; `nil` if the system
/// gave none.
func loopbackSocket(listening: Bool) -> (socket: Int32, port: Int)? {
    let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = unsafe inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = unsafe withUnsafeMutablePointer(to: &address) { pointer in
        unsafe pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            unsafe bind(fd, $0, length) == 0 && (!listening || listen(fd, 64) == 0) && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else {
        close(fd)
        return nil
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}
