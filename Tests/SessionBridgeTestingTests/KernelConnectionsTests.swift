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

    @Test func connectionsNotYetAcceptedAreCountedAndStayAfterTheirClientsEnd() throws {
        // A port that listens and never accepts.
        let listener = try SilentPort()
        #expect(KernelConnections.waitingToBeAccepted(on: "127.0.0.1", port: listener.port) == 0)
        let closing = try Self.connect(to: listener.port)
        let resetting = try Self.connect(to: listener.port)
        #expect(KernelConnections.waitingToBeAccepted(on: "127.0.0.1", port: listener.port) == 2)
        // The clients die, one closing, one resetting: the kernel keeps both for the server to
        // accept, request and all.
        close(closing)
        var linger = linger(l_onoff: 1, l_linger: 0)
        _ = unsafe setsockopt(resetting, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        close(resetting)
        #expect(KernelConnections.waitingToBeAccepted(on: "127.0.0.1", port: listener.port) == 2)
    }

    /// With a client's connection open and idle, the server has nothing to accept or handle, and
    /// the wait after a kill ends at once.
    @Test func theServerIsIdleWhenItHasAcceptedEveryConnection() async throws {
        try await withServer { server, client async throws in
            #expect(try await client.login().status == 200)
            // A request for no route is handled too: its connection does not stay counted.
            #expect(try await client.get("/no/such/route").status == 404)
            let open = server.stats().openConnections
            #expect(open >= 1)
            #expect(KernelConnections.waitingToBeAccepted(on: "127.0.0.1", port: server.port) == 0)
            let start = ContinuousClock.now
            #expect(await server.waitUntilIdle(openConnections: open, timeout: .seconds(5)))
            #expect(ContinuousClock.now - start < .seconds(5))
        }
    }

    /// Clients that write a whole request and die at once (their end read with the request, or
    /// a reset): once the wait returns, the server has handled every request it will, though
    /// it may accept their connections, and close them, before their handling starts.
    @Test func theWaitCoversEveryRequestOfClientsThatDiedAtOnce() async throws {
        try await withServer { server, _ async throws in
            for reset in [false, true] {
                let before = server.stats().requests
                for _ in 0..<100 {
                    let client = try Self.connect(to: server.port)
                    if reset {
                        var linger = linger(l_onoff: 1, l_linger: 0)
                        _ = unsafe setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
                    }
                    close(client)
                }
                #expect(await server.waitUntilIdle(openConnections: 0))
                let handled = server.stats().requests - before
                // Nothing the clients wrote is handled after the wait: it covered everything.
                try await Task.sleep(for: .milliseconds(500))
                #expect(server.stats().requests - before == handled, "reset: \(reset)")
                // A close loses nothing (a reset may lose a request the server had not read).
                if !reset { #expect(handled == 100) }
            }
        }
    }

    /// A connection closed with a request read off it counts as open until the request's
    /// handling starts; one whose requests all started stops counting when it closes.
    @Test func aClosedConnectionCountsUntilItsRequestsStarted() {
        var state = ServerState(faults: .init())
        let channels = [NSObject(), NSObject()]
        let waiting = ObjectIdentifier(channels[0]), done = ObjectIdentifier(channels[1])
        for channel in [waiting, done] {
            state.connectionAccepted()
            state.connectionSetUp(channel)
        }
        state.requestRead(on: done)
        state.requestStarted(on: done)
        state.requestRead(on: waiting)
        // Each channel closes; its close is then counted (its close future, later).
        for channel in [waiting, done] {
            state.connectionClosed(channel)
            state.connectionEnded()
        }
        #expect(state.stats.openConnections == 1)
        state.requestStarted(on: waiting)
        #expect(state.stats.openConnections == 0)
        #expect(state.connections.isEmpty)
    }
}
