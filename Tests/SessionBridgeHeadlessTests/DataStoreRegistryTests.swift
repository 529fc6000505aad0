import Foundation
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeTestSupport
import Synchronization
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

    @Test func aClosedProfileIsLoadedAgainFromItsFile() async throws {
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
        await CookieStoreAttachment.flushAll()
        #expect(released == nil)
        let reopened = try WebsiteDataStore(directory: directory, profile: "work")
        #expect(reopened.cookieJar.cookieHeader(for: url) == "kept=yes")
    }

    /// Opening a profile waits for the writes still behind its own file, and for no other
    /// file's: it is a synchronous wait, and a thread of the cooperative pool held for another
    /// profile's slow disk (or, in a test, a held write) could leave none to finish that write.
    @Test func openingAProfileWaitsOnlyForItsOwnFilesWrites() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = URL(string: "https://app.example/")!
        let gate = DispatchSemaphore(value: 0)
        do {
            let held = try WebsiteDataStore(directory: directory, profile: "held")
            let attachment = try #require(held.attachment)
            attachment.setHeldSavesGate { gate.wait() }
            held.cookieJar.setCookie("kept=yes; Max-Age=3600; Path=/", from: url)
        }
        // The writer is held in the closed profile's last write. Another profile opens now.
        let other = try WebsiteDataStore(directory: directory, profile: "other")
        #expect(other.cookieJar.allCookies.isEmpty)
        // The held profile, opened again, waits for its write, on a thread of its own.
        let reopened = Mutex<WebsiteDataStore?>(nil)
        let opener = Thread {
            let store = try? WebsiteDataStore(directory: directory, profile: "held")
            reopened.withLock { $0 = store }
        }
        opener.start()
        try await Task.sleep(for: .milliseconds(200))
        #expect(reopened.withLock { $0 } == nil, "the profile opened before its last write landed")
        gate.signal()
        let deadline = ContinuousClock.now + .seconds(20)
        while reopened.withLock({ $0 }) == nil && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let store = try #require(reopened.withLock { $0 })
        #expect(store.cookieJar.cookieHeader(for: url) == "kept=yes")
    }

    @Test func theDefaultStoreIsShared() {
        #expect(WebsiteDataStore.default().isSameStore(as: WebsiteDataStore.default()))
        #expect(!WebsiteDataStore.nonPersistent().isSameStore(as: WebsiteDataStore.default()))
    }
}
