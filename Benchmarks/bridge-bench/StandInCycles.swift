#if canImport(SessionBridgeTesting) && canImport(AsyncHTTPClient)
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SessionBridge
import SessionBridgeCookies
import SessionBridgeTesting

/// Figure 6's baseline: the bare cycle the server and the network take, one at a time, so that
/// it can run between the cycles it is the baseline of.
///
/// Each cycle waits the same idle gap as a full cycle, then rotates a refresh token with a
/// plain `POST` to the token endpoint, applies its `Set-Cookie` lines to a `CookieJar`, loads
/// `/app` and then `/app?plain=1` with the new cookie, and stores the rotated token in a
/// `FileTokenVault` (the one durable write a refresh needs), each part timed apart.
///
/// Run in blocks between blocks of a row's cycles, and the machine's drift, which moves a whole
/// run's figures by a third between minutes here, hits the row and its baseline alike.
final class StandInCycles {
    private let client: HTTPClient
    private let server: ReferenceServer
    private let jar = CookieJar()
    private let directory: URL
    private let vault: FileTokenVault
    private var refreshToken: String
    private var lines = 0
    private var times: [Double] = [], cookieTimes: [Double] = [], withNavigation: [Double] = []
    private var withPlain: [Double] = [], vaultTimes: [Double] = []
    /// Refreshes sent to the token endpoint, the cycles not recorded included.
    private(set) var refreshes = 0

    private struct TokenAnswer: Decodable {
        var refresh_token: String
        var expires_in: Int
    }

    /// Signs in to `server` as its demo user with a session of the stand-in's own.
    static func start(client: HTTPClient, server: ReferenceServer) async throws -> StandInCycles {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-bench-stand-in-\(UUID().uuidString)")
        let (answer, _) = try await post("grant_type=password&username=demo&password=demo", client: client, server: server)
        return StandInCycles(client: client, server: server, directory: directory, refreshToken: answer.refresh_token)
    }

    private init(client: HTTPClient, server: ReferenceServer, directory: URL, refreshToken: String) {
        self.client = client
        self.server = server
        self.directory = directory
        self.vault = FileTokenVault(url: directory.appendingPathComponent("session.vault"))
        self.refreshToken = refreshToken
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// One cycle after the idle gap; its parts are recorded unless it warms up.
    func run(recording: Bool = true) async throws {
        // The same idle gap before each cycle as the full cycle has (it waits out the
        // session's freshness window): threads that have gone to sleep wake up in both.
        try await Task.sleep(for: .milliseconds(6))
        let clock = ContinuousClock()
        let start = clock.now
        let (next, setCookies) = try await Self.post(
            "grant_type=refresh_token&refresh_token=\(refreshToken)", client: client, server: server)
        refreshes += 1
        let parsed = clock.now
        for line in setCookies { jar.setCookie(line, from: server.baseURL) }
        let end = clock.now
        // The cycle's navigation, as the server sees it: `GET /app` with the new cookie, then
        // the page without its scripts (timed apart, as the other navigation).
        try await get(server.url("/app"))
        let navigated = clock.now
        try await get(server.url("/app?plain=1"))
        let navigatedPlain = clock.now
        let expiry = Date(timeIntervalSinceNow: Double(next.expires_in))
        try vault.store(VaultRecord(refreshToken: RefreshToken(next.refresh_token), accessTokenExpiresAt: expiry))
        let stored = clock.now
        refreshToken = next.refresh_token
        lines = setCookies.count
        guard jar.count > 0 else { throw BenchFailure("refresh kept no cookie") }
        guard recording else { return }
        times.append((end - start).nanoseconds)
        cookieTimes.append((end - parsed).nanoseconds)
        withNavigation.append((navigated - start).nanoseconds)
        withPlain.append(((end - start) + (navigatedPlain - navigated)).nanoseconds)
        vaultTimes.append((stored - navigatedPlain).nanoseconds)
    }

    /// The recorded cycles' medians (nanoseconds).
    var figures: RefreshBenchmarks.StandIn {
        RefreshBenchmarks.StandIn(
            median: Stats.median(times), p99: Stats.percentile(times, 0.99), cookies: Stats.median(cookieTimes), lines: lines,
            withNavigation: Stats.median(withNavigation), withNavigationP99: Stats.percentile(withNavigation, 0.99),
            withPlainNavigation: Stats.median(withPlain), vaultStore: Stats.median(vaultTimes), cycles: times.count)
    }

    private static func post(_ form: String, client: HTTPClient, server: ReferenceServer) async throws -> (TokenAnswer, [String]) {
        var request = HTTPClientRequest(url: server.baseURL.appendingPathComponent("oauth/token").absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: form))
        let response = try await client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else { throw BenchFailure("token endpoint answered \(response.status)") }
        return (try JSONDecoder().decode(TokenAnswer.self, from: Data(body.readableBytesView)), response.headers["set-cookie"])
    }

    private func get(_ url: URL) async throws {
        var page = HTTPClientRequest(url: url.absoluteString)
        if let header = jar.cookieHeader(for: url) { page.headers.add(name: "Cookie", value: header) }
        let response = try await client.execute(page, timeout: .seconds(10))
        _ = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else {
            throw BenchFailure("GET \(url.path) with the refreshed cookie answered \(response.status)")
        }
    }
}
#endif
