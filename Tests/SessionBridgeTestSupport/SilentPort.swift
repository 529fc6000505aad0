import Glibc

/// A loopback port that takes every connection and never answers: a socket that listens and
/// never accepts, so the kernel completes each connection and the client waits on it for good.
public final class SilentPort: Sendable {
    /// The port.
    public let port: Int
    private let socket: Int32

    public init() throws {
        guard let bound = loopbackSocket(listening: true) else { throw SilentPortError() }
        (socket, port) = bound
    }

    deinit {
        close(socket)
    }
}

/// The port could not be opened.
public struct SilentPortError: Error {}
