public import Foundation
import Glibc
import Synchronization

/// A TCP listener on 127.0.0.1 (random port) that records every byte it receives and answers
/// each request it can parse with `200 ok` (or what `answer` makes of its request line): what
/// went out on the wire, not what a server framework made of it.
public final class RawHTTPListener: Sendable {
    private let socket: Int32
    public let port: Int
    private let received = Mutex<[Int: [UInt8]]>([:])
    private let nextConnection = Mutex(0)
    /// The accepted connections still open, shut down by ``stop()``.
    private let open = Mutex<Set<Int32>>([])
    private let unsolicited: Unsolicited?
    private let answer: @Sendable (String) -> String?

    /// An answer no request asked for, sent after the first request's answer.
    public enum Unsolicited: Sendable {
        /// In the same write as the first answer.
        case sameWrite
        /// A moment later, while the connection is idle.
        case later
    }

    /// A plain `200 ok`.
    public static let ok = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"

    /// `answer` maps a request line to the whole response (status line, header fields, body),
    /// or to `nil` to close the connection without answering;
    /// with `unsolicited`, the first request of the first connection gets a second answer (body
    /// `smuggled`) that no request asked for.
    public init(unsolicited: Unsolicited? = nil, answer: @escaping @Sendable (String) -> String? = { _ in RawHTTPListener.ok }) throws {
        self.unsolicited = unsolicited
        self.answer = answer
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var one: Int32 = 1
        unsafe setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = unsafe inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = unsafe withUnsafePointer(to: &address) {
            unsafe $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { unsafe bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = unsafe withUnsafeMutablePointer(to: &address) {
            unsafe $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { unsafe getsockname(fd, $0, &length) }
        }
        socket = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let listener = socket
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                let id = nextConnection.withLock { value -> Int in
                    value += 1; return value
                }
                open.withLock { _ = $0.insert(connection) }
                Thread.detachNewThread { [self] in serve(connection, id: id) }
            }
        }
    }

    /// A listener whose answer is made from each request's path and how many times that path
    /// was asked so far (1 the first time), `nil` closing the connection unanswered.
    public convenience init(answeringByPath answer: @escaping @Sendable (_ path: String, _ count: Int) -> String?) throws {
        let asked = AskCounts()
        try self.init { line in
            let path = line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            return answer(path, asked.count(path))
        }
    }

    /// How many times each path was asked.
    private final class AskCounts: Sendable {
        private let counts = Mutex<[String: Int]>([:])

        func count(_ path: String) -> Int {
            counts.withLock { counts in
                counts[path, default: 0] += 1
                return counts[path]!
            }
        }
    }

    public var url: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// The bytes each connection sent, in connection order.
    public var connections: [[UInt8]] {
        received.withLock { map in map.keys.sorted().map { map[$0]! } }
    }

    /// Every request line received, across connections (a request is a header block ending
    /// in an empty line, then as many body bytes as its `Content-Length` says).
    public var requestLines: [String] {
        connections.flatMap { Self.requests(in: $0).map(\.line) }
    }

    /// Stops listening and shuts down the connections still open: a client's pool must not
    /// keep one, or a later listener given the same port would see that client's next request
    /// answered by this listener.
    public func stop() {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
        open.withLock { connections in
            for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
        }
    }

    private func serve(_ connection: Int32, id: Int) {
        defer {
            // Removed before it is closed, so that stop() never shuts down a reused descriptor.
            open.withLock { _ = $0.remove(connection) }
            close(connection)
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        unsafe setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var answered = 0
        while true {
            let count = unsafe buffer.withUnsafeMutableBytes { unsafe recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            let all = received.withLock { map -> [UInt8] in
                map[id, default: []] += buffer[0..<count]
                return map[id]!
            }
            let requests = Self.requests(in: all)
            while answered < requests.count {
                guard let text = self.answer(requests[answered].line) else { return }
                var answer = Array(text.utf8)
                let extra = Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 8\r\n\r\nsmuggled".utf8)
                let first = id == 1 && answered == 0
                if first, unsolicited == .sameWrite { answer += extra }
                _ = unsafe answer.withUnsafeBytes { unsafe send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if first, unsolicited == .later {
                    usleep(100_000)
                    _ = unsafe extra.withUnsafeBytes { unsafe send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                }
                answered += 1
            }
        }
    }

    public static func requests(in bytes: [UInt8]) -> [(line: String, head: String)] {
        var result: [(String, String)] = []
        var start = 0
        let terminator: [UInt8] = [13, 10, 13, 10]
        while start < bytes.count {
            guard let end = firstIndex(of: terminator, in: bytes, from: start) else { break }
            let head = String(decoding: bytes[start..<end], as: UTF8.self)
            let line = head.components(separatedBy: "\r\n").first ?? ""
            var length = 0
            for field in head.components(separatedBy: "\r\n").dropFirst() {
                let parts = field.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == "content-length" {
                    length = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            result.append((line, head))
            start = end + 4 + length
        }
        return result
    }

    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        var index = from
        while index + needle.count <= bytes.count {
            if bytes[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
