import Foundation
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeWebKit
import Testing

@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct CookieStoreTests {
    @Test func nativeWritesReachRequestsAndHttpOnlyStaysHiddenFromScripts() async throws {
        try await withSite { site in
            try await withView { view in
                let store = view.configuration.websiteDataStore.httpCookieStore
                let host = "127.0.0.1"
                await store.apply([
                    .set(Cookie(name: "native_h", value: "h-1", domain: host, expiresAt: Date() + 3600, isHttpOnly: true, sameSite: .lax)),
                    .set(Cookie(name: "native_p", value: "p-1", domain: host)),
                ])
                let stored = await store.cookies(for: site.url("/"))
                #expect(Set(stored.map(\.name)) == ["native_h", "native_p"])
                let httpOnly = try #require(stored.first { $0.name == "native_h" })
                #expect(httpOnly.isHttpOnly)
                #expect(httpOnly.isHostOnly)
                #expect(httpOnly.sameSite == .lax)
                #expect(abs((httpOnly.expiresAt ?? .distantPast).timeIntervalSinceNow - 3600) < 5)

                try await view.load(site.url("/page"))
                let echoed = try await view.callAsyncJavaScript("return (await (await fetch('/echo')).json()).cookie")
                let sent = try #require(site.requests(to: "/echo").last).cookies
                #expect(sent["native_h"] == "h-1")
                #expect(sent["native_p"] == "p-1")
                #expect(echoed.stringValue?.contains("native_h") == true)
                #expect(try await view.evaluateJavaScript("document.cookie") == "native_p=p-1")

                await store.apply([.delete(Cookie(name: "native_h", value: "", domain: host))])
                #expect(await store.allCookies().map(\.name) == ["native_p"])
                _ = try await view.callAsyncJavaScript("await fetch('/echo')")
                #expect(try #require(site.requests(to: "/echo").last).cookies["native_h"] == nil)
            }
        }
    }

    /// An expiry beyond what GLib's dates hold (a profile's far future, an absurd one) is kept
    /// as the year 9999's last second instead of stopping the process (`Int(_:)` trapped).
    @Test func anExpiryBeyondTheYear9999IsKeptAsItsLastSecond() async throws {
        try await withView { view in
            let store = view.configuration.websiteDataStore.httpCookieStore
            let host = "127.0.0.1"
            let expiries: [(String, Date)] = [
                ("distant", .distantFuture), ("absurd", Date(timeIntervalSince1970: 1e300)),
                ("infinite", Date(timeIntervalSince1970: .infinity)), ("soon", Date(timeIntervalSince1970: 4_102_444_800.5)),
            ]
            await store.apply(expiries.map { .set(Cookie(name: $0.0, value: "v", domain: host, expiresAt: $0.1)) })
            let stored = await store.allCookies()
            #expect(Set(stored.map(\.name)) == ["distant", "absurd", "infinite", "soon"])
            for name in ["absurd", "infinite"] {
                #expect(stored.first { $0.name == name }?.expiresAt?.timeIntervalSince1970 == 253_402_300_799, "\(name)")
            }
            // An expiry GLib can hold keeps its second (the year 4001, 2100-01-01).
            #expect(stored.first { $0.name == "distant" }?.expiresAt == .distantFuture)
            #expect(stored.first { $0.name == "soon" }?.expiresAt.map { $0.timeIntervalSince1970.rounded(.down) } == 4_102_444_800)
        }
    }

    @Test func serverCookiesAreReadableNativelyWithTheirAttributes() async throws {
        try await withSite { site in
            try await withView { view in
                let changes = view.configuration.websiteDataStore.httpCookieStore.changes()
                try await view.load(site.url("/set-cookies"))
                var iterator = changes.makeAsyncIterator()
                _ = await iterator.next()
                let cookies = await view.httpCookieStore.allCookies()
                #expect(cookies.first { $0.name == "srv_httponly" }?.isHttpOnly == true)
                #expect(cookies.first { $0.name == "srv_plain" }?.isHttpOnly == false)
                #expect(try await view.evaluateJavaScript("document.cookie") == "srv_plain=p1")
                await view.httpCookieStore.removeAllCookies()
                #expect(await view.httpCookieStore.allCookies().isEmpty)
            }
        }
    }

    @Test func aPersistentStoreKeepsCookiesForTheNextViewAndANonPersistentOneDoesNot() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withSite { site in
            let first = try WebKitWebsiteDataStore(directory: directory)
            try await withView(WebKitWebViewConfiguration(websiteDataStore: first)) { view in
                try await view.load(site.url("/set-cookies"))
                await view.httpCookieStore.setCookie(
                    Cookie(name: "native_persist", value: "n1", domain: "127.0.0.1", expiresAt: Date() + 3600))
            }
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("cookies.sqlite").path))
            // The cookie database holds HttpOnly session cookies: its directory is its owner's only.
            let mode = try #require(FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0)
            // A second store over the same directory, as the next launch of the app would make.
            let second = try WebKitWebsiteDataStore(directory: directory)
            #expect(second.isPersistent)
            let names = Set(await second.httpCookieStore.allCookies().map(\.name))
            #expect(names.isSuperset(of: ["native_persist"]))
            try await withView(WebKitWebViewConfiguration(websiteDataStore: second)) { view in
                try await view.load(site.url("/page"))
                _ = try await view.callAsyncJavaScript("await fetch('/echo')")
                #expect(try #require(site.requests(to: "/echo").last).cookies["native_persist"] == "n1")
            }
            let ephemeral = WebKitWebsiteDataStore.nonPersistent()
            #expect(!ephemeral.isPersistent)
            try await withView(WebKitWebViewConfiguration(websiteDataStore: ephemeral)) { view in
                try await view.load(site.url("/set-cookies"))
                #expect(await view.httpCookieStore.allCookies().count == 2)
            }
            #expect(await WebKitWebsiteDataStore.nonPersistent().httpCookieStore.allCookies().isEmpty)
        }
    }
}
