import AsyncHTTPClient
import Glibc
import NIOCore
import NIOPosix

/// What an exchange's failure is, in words a transcript or an error can carry: the server's
/// or the network's part, never a header's or a body's content.
package enum HTTPFailure {
    /// How ``describe(_:)`` tells a refused connection.
    package static let refusedConnection = "connection refused: is the server running?"

    package static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .remoteConnectionClosed: return "the server closed the connection before the response was complete"
            case .connectTimeout: return "could not connect in time"
            case .deadlineExceeded, .readTimeout: return "the server did not answer in time"
            // Its short form: the full one carries the header values it refused (a token).
            default: return "HTTP error: \(error.shortDescription)"
            }
        }
        if isConnectionRefused(error) { return refusedConnection }
        if let error = error as? ChannelError, error == .ioOnClosedChannel || error == .eof || error == .outputClosed {
            return "the server closed the connection before the response was complete"
        }
        if let error = error as? MalformedResponseStatus { return error.description }
        let text = String(describing: error)
        if text.contains("uncleanShutdown") {  // NIOSSLError, which this module does not import
            return "the server closed the connection before the response was complete"
        }
        return "network error: \(text)"
    }

    /// Whether `error` says the server's host refused the connection (`ECONNREFUSED`), told by
    /// its type: the system call's `IOError`, or each address's attempt in the connection's
    /// `NIOConnectionError`, as AsyncHTTPClient reports a connection it could not make.
    package static func isConnectionRefused(_ error: any Error) -> Bool {
        if let error = error as? IOError { return error.errnoCode == ECONNREFUSED }
        if let error = error as? NIOConnectionError {
            return !error.connectionErrors.isEmpty && error.connectionErrors.allSatisfy { isConnectionRefused($0.error) }
        }
        return false
    }
}
