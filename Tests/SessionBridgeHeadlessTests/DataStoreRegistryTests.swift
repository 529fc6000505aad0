import Foundation
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeTestSupport
import Testing

@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct DataStoreRegistryTests {
    @Test func aSecondStoreOpenedForALiveProfileIsTheSameStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = URL(string: "https://app.example/")!
        let first = try WebsiteDataStore(directory: directory, profile: "work")
        let second = try WebsiteDataStore(directory: directory.appendingPathComponent("."), profile: "work")
        #expect(first.isSameStore(as: second))
        #expect(first.attachment === second.attachment)
        first.cookieJar.setCookie("a=1; Max-Age=3600; Path=/", from: url)
        second.cookieJar.setCookie("b=2; Max-Age=3600; Path=/", from: url)
        // One writer: the file holds both cookies, neither store overwrote the other's.
        await first.attachment?.flush()
        let onDisk = try PersistentCookieStore(directory: directory, profile: "work").load().cookies.map(\.name).sorted()
        #expect(onDisk == ["a", "b"])
        let other = try WebsiteDataStore(directory: directory, profile: "home")
        #expect(!other.isSameStore(as: first))
    }

    @Test func aClosedProfileIsLoadedAgainFromItsFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = URL(string: "https://app.example/")!
        weak var released: CookieJar?
        do {
            let store = try WebsiteDataStore(directory: directory, profile: "work")
            store.cookieJar.setCookie("kept=yes; Max-Age=3600; Path=/", from: url)
            released = store.cookieJar
        }
        // The profile's last write, behind it, holds it until it is on disk.
        CookieStoreAttachment.flushAllNow()
        #expect(released == nil)
        let reopened = try WebsiteDataStore(directory: directory, profile: "work")
        #expect(reopened.cookieJar.cookieHeader(for: url) == "kept=yes")
    }

    @Test func theDefaultStoreIsShared() {
        #expect(WebsiteDataStore.default().isSameStore(as: WebsiteDataStore.default()))
        #expect(!WebsiteDataStore.nonPersistent().isSameStore(as: WebsiteDataStore.default()))
    }
}
