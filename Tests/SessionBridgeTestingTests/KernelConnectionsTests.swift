import Foundation
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeTesting

#if canImport(Glibc)
import Glibc
#endif

/// What a test that killed a client waits for: the kernel's view of a server's connections,
/// which holds a connection the server has not accepted yet.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct KernelConnectionsTests {
    /// A client connection to `port`, written to, as a killed client's would be.
    static func connect(to port: Int) throws -> Int32 {
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = unsafe inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = unsafe withUnsafePointer(to: &address) { pointer in
            unsafe pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                unsafe Glibc.connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        try #require(connected)
        let request = Array("POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n".utf8)
        #expect(unsafe write(client, request, request.count) == request.count)
        return client
    }

    @Test func aConnectionNotYetAcceptedIsCountedAndStaysAfterItsClientCloses() throws {
        // A port that listens and never accepts.
        let listener = try SilentPort()
        #expect(KernelConnections.open(toPort: listener.port) == 0)
        let first = try Self.connect(to: listener.port)
        let second = try Self.connect(to: listener.port)
        // Neither accepted: both are in the listening socket's queue, the server's side of each
        // established (the client's own side has another local port and is not counted).
        #expect(KernelConnections.open(toPort: listener.port) == 2)
        // The client dies: the kernel keeps the server's side, request and all, until the
        // server accepts and closes it.
        close(first)
        close(second)
        #expect(KernelConnections.open(toPort: listener.port) == 2)
    }

    /// The reference server's wait after a kill counts the kernel's connections against its
    /// own, and the requests it read against those it handled: with a client's connection open
    /// and idle both agree, and the wait ends at once.
    @Test func theServerIsIdleWhenItHasAcceptedEveryConnection() async throws {
        try await withServer { server, client async throws in
            #expect(try await client.login().status == 200)
            // Every request read is handled, one for no route too: the wait does not wait on it.
            #expect(try await client.get("/no/such/route").status == 404)
            #expect(server.stats().requestsRead == 2)
            #expect(server.stats().requests == 2)
            let open = server.stats().openConnections
            #expect(open >= 1)
            #expect(KernelConnections.open(toPort: server.port) == open)
            let start = ContinuousClock.now
            #expect(await server.waitUntilIdle(openConnections: open, timeout: .seconds(5)))
            #expect(ContinuousClock.now - start < .seconds(5))
        }
    }
}
