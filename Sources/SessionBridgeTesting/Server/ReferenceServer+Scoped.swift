public import Foundation

extension ReferenceServer {
    /// Starts a server, runs `body` with it, and stops it whether `body` returns or throws.
    ///
    /// ```swift
    /// try await ReferenceServer.withRunning { server in
    ///     try await page.load(server.url("/app"))
    /// }
    /// ```
    public static func withRunning<T>(
        _ configuration: ReferenceServerConfiguration = ReferenceServerConfiguration(),
        _ body: (ReferenceServer) async throws -> T
    ) async throws -> T {
        let server = try await ReferenceServer.start(configuration)
        do {
            let result = try await body(server)
            try await server.stop()
            return result
        } catch {
            try? await server.stop()
            throw error
        }
    }

    /// `path` on this server.
    public func url(_ path: String) -> URL {
        URL(string: path, relativeTo: baseURL)!.absoluteURL
    }
}
