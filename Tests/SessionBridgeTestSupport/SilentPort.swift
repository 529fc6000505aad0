import Glibc

/// A loopback port that takes every connection and never answers: a socket that listens and
/// never accepts, so the kernel completes each connection and the client waits on it for good.
public final class SilentPort: Sendable {
    /// The port.
    public let port: Int
    private let socket: Int32

    public init() throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SilentPortError() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = unsafe inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = unsafe withUnsafeMutablePointer(to: &address) { pointer in
            unsafe pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                unsafe bind(fd, $0, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw SilentPortError()
        }
        socket = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(socket)
    }
}

/// The port could not be opened.
public struct SilentPortError: Error {}
