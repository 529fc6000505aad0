import ArgumentParser
import Foundation
import SessionBridgeTesting

/// Fault switches of the reference server, shared by `serve` and `run`.
struct FaultOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Access-token lifetime in seconds (short values make expiry happen during a run).")
    var accessTokenLifetime: Int = 300

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds a rotated refresh token is still answered with the same rotation (0: any second use revokes the session).",
            valueName: "seconds"))
    var reuseGrace: Int = 0

    @Option(parsing: .unconditional, help: "Faults fire for this many token requests, then stop (all of them by default).")
    var faultLimit: Int?

    @Option(parsing: .unconditional, help: "Added latency in milliseconds on the token endpoint.")
    var latency: Int?

    @Option(parsing: .unconditional, help: "Answer this many token requests with 503 and Retry-After.")
    var serverErrors: Int?

    @Option(parsing: .unconditional, help: "The Retry-After seconds sent with --server-errors.")
    var retryAfter: Int = 1

    @Flag(help: "Close the connection without answering token requests.")
    var closeConnection = false

    @Flag(help: "Close the connection in the middle of response bodies.")
    var closeMidBody = false

    @Flag(help: "Answer token requests with malformed JSON.")
    var malformedJSON = false

    @Flag(help: "Add garbage Set-Cookie lines to token responses.")
    var garbageSetCookie = false

    @Option(parsing: .unconditional, help: "Trickle response bodies, this many milliseconds per chunk.")
    var slowBody: Int?

    @Flag(help: "Keep refresh tokens across refreshes (answers without refresh_token), as Google does.")
    var nonRotating = false

    @Option(help: "Answer every token request with this RFC 6749 §5.2 error (invalid_client, invalid_scope, …).")
    var tokenError: String?

    @Option(help: "Sign ID tokens with ES256 (default) or RS256.")
    var idTokenAlg: String = "ES256"

    /// The longest lifetime, grace or pause the options take: ten years in seconds.
    static let longestSeconds = 315_360_000

    func validate() throws {
        if !(1...Self.longestSeconds).contains(accessTokenLifetime) {
            throw ValidationError("--access-token-lifetime must be a number of seconds from 1 to \(Self.longestSeconds)")
        }
        if !(0...Self.longestSeconds).contains(reuseGrace) {
            throw ValidationError("--reuse-grace must be a number of seconds from 0 to \(Self.longestSeconds)")
        }
        if let latency, !(0...600_000).contains(latency) {
            throw ValidationError("--latency must be a number of milliseconds from 0 to 600000")
        }
        if let slowBody, !(1...60_000).contains(slowBody) {
            throw ValidationError("--slow-body must be a number of milliseconds from 1 to 60000")
        }
        if let serverErrors, serverErrors < 0 { throw ValidationError("--server-errors must be zero or more") }
        if !(0...86_400).contains(retryAfter) { throw ValidationError("--retry-after must be a number of seconds from 0 to 86400") }
        if let faultLimit, faultLimit < 0 { throw ValidationError("--fault-limit must be zero or more") }
        if IDTokenAlgorithm(rawValue: idTokenAlg) == nil { throw ValidationError("--id-token-alg must be ES256 or RS256") }
    }

    var configuration: ReferenceServerConfiguration {
        var configuration = ReferenceServerConfiguration()
        configuration.accessTokenLifetime = .seconds(accessTokenLifetime)
        configuration.refreshTokenReuseGrace = .seconds(reuseGrace)
        configuration.rotatesRefreshTokens = !nonRotating
        configuration.idTokenAlgorithm = IDTokenAlgorithm(rawValue: idTokenAlg) ?? .es256
        configuration.oauthFaults = OAuthFaults(tokenError: tokenError)
        configuration.faults = FaultConfiguration(
            limit: faultLimit,
            latency: latency.map { .milliseconds($0) },
            serverErrors: serverErrors.map { FaultConfiguration.ServerErrors(status: 503, retryAfterSeconds: retryAfter, count: $0) },
            closeConnection: closeConnection, closeMidBody: closeMidBody, malformedJSON: malformedJSON,
            garbageSetCookie: garbageSetCookie, slowBody: slowBody.map { .milliseconds($0) })
        return configuration
    }
}

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the reference auth server alone, for pointing other clients at.")

    @Option(parsing: .unconditional, help: "The port on 127.0.0.1 (0 picks a free one).")
    var port: Int = 0

    @Option(parsing: .unconditional, help: "Stop after this many seconds (runs until interrupted by default).")
    var duration: Int?

    @OptionGroup var faults: FaultOptions

    func validate() throws {
        if !(0...65_535).contains(port) { throw ValidationError("--port must be from 0 (a free one) to 65535") }
        if let duration, !(0...FaultOptions.longestSeconds).contains(duration) {
            throw ValidationError("--duration must be a number of seconds from 0 to \(FaultOptions.longestSeconds)")
        }
    }

    func run() async throws {
        var configuration = faults.configuration
        configuration.port = port
        let server: ReferenceServer
        do {
            server = try await ReferenceServer.start(configuration)
        } catch {
            throw RunnerFailure(description: "could not start the server on 127.0.0.1:\(port): \(error)", exitCode: .serverUnreachable)
        }
        print("reference server listening on \(server.baseURL.absoluteString)")
        print("  demo user: \(configuration.username) / \(configuration.password)")
        print("  token endpoint: POST \(server.baseURL.absoluteString)/oauth/token   stats: GET /debug/stats")
        print("  issuer: \(server.issuer)   discovery: GET /.well-known/openid-configuration   sign-in: GET /oauth/authorize")
        // Out now, not when a buffer fills: a script reading the port from a file or a pipe waits on it.
        fflush(nil)
        if let duration {
            try await Task.sleep(for: .seconds(duration))
        } else {
            while !Task.isCancelled { try await Task.sleep(for: .seconds(3600)) }
        }
        try await server.stop()
    }
}
