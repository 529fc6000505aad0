import Foundation
import SessionBridgeTestSupport
import Testing

/// A page's Cache Storage outlives the run with a profile, on both engines, as a `WKWebView`'s
/// persistent data store keeps it for the app's next launch: an offline page's assets are there.
@Suite(.timeLimit(.minutes(3)), .hangWatchdog) struct CacheStorageProfileTests {
    static let page = """
        <!doctype html><title>offline</title><script>
        (async () => {
          if (location.search === "?put") {
            const cache = await caches.open("offline");
            await cache.put("/asset", new Response("kept across runs", { headers: { "X-Kind": "asset" } }));
            await caches.open("empty");
            const gone = await caches.open("gone");
            await caches.delete("gone");
            await gone.put("/deleted", new Response("not kept"));
            console.log("put");
          } else {
            const found = await caches.match("/asset");
            console.log("read", JSON.stringify(await caches.keys()), found ? (await found.text()) + " " + found.headers.get("x-kind") : "none",
              (await caches.match("/deleted")) === undefined);
          }
        })();
        </script>
        """

    @Test(arguments: ["headless", "webkit"])
    func cachesAreSavedWithTheProfileForTheNextRun(engine: String) async throws {
        let html = Self.page
        let listener = try RawHTTPListener { _ in
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: \(html.utf8.count)\r\n\r\n\(html)"
        }
        defer { listener.stop() }
        let profile = try TestDirectory.make(prefix: "cachestorage-profile")
        let other = try TestDirectory.make(prefix: "cachestorage-other")
        defer { for directory in [profile, other] { try? FileManager.default.removeItem(at: directory) } }
        let page = listener.url.appending(path: "page").absoluteString
        // The same origin in every run: the listener lives across them.
        func run(_ query: String, _ directory: URL) async throws -> RunnerProcess {
            try await RunnerProcess.run(
                ["run", "--engine", engine, "--signed-out", "--profile", directory.path, page + query],
                removing: ["DISPLAY", "WAYLAND_DISPLAY", "GDK_BACKEND", "BROADWAY_DISPLAY"], timeout: 90)
        }
        let put = try await run("?put", profile)
        #expect(put.exitCode == 0, "\(put.stdout)\(put.stderr)")
        #expect(put.stdout.contains("console.log put"), "\(put.stdout)")
        let read = try await run("?read", profile)
        #expect(read.stdout.contains(#"console.log read ["offline","empty"] kept across runs asset true"#), "\(engine): \(read.stdout)")
        let elsewhere = try await run("?read", other)
        #expect(elsewhere.stdout.contains("console.log read [] none true"), "\(engine): \(elsewhere.stdout)")
    }
}
