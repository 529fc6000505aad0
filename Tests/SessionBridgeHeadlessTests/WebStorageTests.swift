import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeHeadless

/// `localStorage` and `sessionStorage` on headless pages (`WebStorage`,
/// `WebPlatformPrelude.storageSource`): where a page's own session code keeps its state.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct WebStorageTests {
    static func page(_ url: String = "https://app.example/", store: WebsiteDataStore = .nonPersistent()) async throws -> WebPage {
        let page = WebPage(configuration: WebPageConfiguration(websiteDataStore: store))
        try await page.loadHTMLString("<p>storage</p>", baseURL: URL(string: url)!)
        return page
    }

    @Test func itemsAndNamedPropertiesAreAsHTMLAndWebIDLHaveThem() async throws {
        let page = try await Self.page()
        let result = try await page.evaluateJavaScript(
            """
            localStorage.setItem("token", "abc");
            localStorage.user = 42;
            localStorage["getItem"] = "shadowed";
            const seen = [localStorage.getItem("token"), localStorage.user, localStorage.length, Object.keys(localStorage).join(),
              JSON.stringify(localStorage), "token" in localStorage, localStorage.key(0), localStorage.key(7), localStorage.getItem("missing"),
              typeof localStorage.getItem, localStorage.getItem("getItem"), "getItem" in localStorage];
            delete localStorage.user;
            localStorage.removeItem("getItem");
            seen.push(localStorage.user, localStorage.length, localStorage instanceof Storage, Object.prototype.toString.call(localStorage),
              Object.getOwnPropertyDescriptor(localStorage, "token").enumerable);
            const thrown = action => { try { action(); return "no error"; } catch (error) { return error.name; } };
            seen.push(thrown(() => Storage.prototype.getItem.call({}, "x")), thrown(() => new Storage()), thrown(() => Object.preventExtensions(localStorage)),
              thrown(() => localStorage.setItem("only a key")), thrown(() => Object.defineProperty(localStorage, "x", { get() {} })));
            localStorage.clear();
            seen.push(localStorage.length, sessionStorage.length);
            seen
            """)
        #expect(
            result == [
                // A stored key the prototype shadows is still listed, as in WebKit.
                "abc", "42", 3, "token,user,getItem", #"{"token":"abc","user":"42"}"#, true, "token", .null, .null,
                "function", "shadowed", true,
                .undefined, 1, true, "[object Storage]", true,
                "TypeError", "TypeError", "TypeError", "TypeError", "TypeError",
                0, 0,
            ])
        await page.close()
    }

    @Test func localStorageIsTheDataStoresPerOrigin() async throws {
        let store = WebsiteDataStore.nonPersistent()
        let first = try await Self.page(store: store)
        _ = try await first.evaluateJavaScript("localStorage.setItem('state', 'from the first page')")
        let second = try await Self.page(store: store)
        #expect(try await second.evaluateJavaScript("localStorage.getItem('state')") == "from the first page")
        // The same store's other origin, and another store, see nothing.
        let otherOrigin = try await Self.page("https://other.example/", store: store)
        #expect(try await otherOrigin.evaluateJavaScript("localStorage.length") == 0)
        let otherStore = try await Self.page()
        #expect(try await otherStore.evaluateJavaScript("localStorage.length") == 0)
        // Native code reads and writes the same areas.
        let origin = try #require(SecurityOrigin("https://app.example"))
        #expect(store.localStorage.items(forOrigin: origin).map { "\($0.key)=\($0.value)" } == ["state=from the first page"])
        store.localStorage.setItem("set natively", forKey: "native", origin: origin)
        #expect(try await first.evaluateJavaScript("localStorage.native") == "set natively")
        // An isolated world shares its page's storage.
        #expect(try await first.evaluateJavaScript("localStorage.length", in: .world(name: "native")) == 2)
        store.removeAllData()
        #expect(try await second.evaluateJavaScript("localStorage.length") == 0)
        for page in [first, second, otherOrigin, otherStore] { await page.close() }
    }

    /// Another page of the origin hears each change as a `storage` event, in order; the page
    /// that made it, other origins and a write of the same value hear nothing.
    @Test func otherPagesOfTheOriginHearStorageEvents() async throws {
        let store = WebsiteDataStore.nonPersistent()
        let writer = try await Self.page("https://app.example/writer", store: store)
        let listener = try await Self.page("https://app.example/listener", store: store)
        let otherOrigin = try await Self.page("https://other.example/", store: store)
        let listen = """
            globalThis.heard = [];
            addEventListener("storage", event => heard.push([event.key, event.oldValue, event.newValue, event.url, event.storageArea === localStorage].join("|")));
            """
        for page in [writer, listener, otherOrigin] { _ = try await page.evaluateJavaScript(listen) }
        _ = try await writer.evaluateJavaScript(
            "localStorage.setItem('token', 'a'); localStorage.token = 'b'; localStorage.token = 'b'; localStorage.removeItem('token'); localStorage.setItem('x', '1'); localStorage.clear(); localStorage.clear();"
        )
        var heard: ScriptValue = []
        for _ in 0..<1000 {  // at most 10 s, for a loaded machine
            heard = try await listener.evaluateJavaScript("heard")
            if case .array(let items) = heard, items.count >= 5 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(
            heard == [
                "token||a|https://app.example/writer|true", "token|a|b|https://app.example/writer|true",
                "token|b||https://app.example/writer|true", "x||1|https://app.example/writer|true", "|||https://app.example/writer|true",
            ])
        #expect(try await writer.evaluateJavaScript("heard.length") == 0)
        #expect(try await otherOrigin.evaluateJavaScript("heard.length") == 0)
        for page in [writer, listener, otherOrigin] { await page.close() }
    }

    @Test func sessionStorageIsThePagesAcrossItsNavigations() async throws {
        let store = WebsiteDataStore.nonPersistent()
        let page = try await Self.page(store: store)
        _ = try await page.evaluateJavaScript("sessionStorage.setItem('state', 'kept'); localStorage.setItem('both', 'yes')")
        try await page.loadHTMLString("<p>next</p>", baseURL: URL(string: "https://app.example/next")!)
        #expect(try await page.evaluateJavaScript("[sessionStorage.getItem('state'), localStorage.getItem('both')]") == ["kept", "yes"])
        let other = try await Self.page(store: store)
        #expect(try await other.evaluateJavaScript("[sessionStorage.getItem('state'), localStorage.getItem('both')]") == [.null, "yes"])
        let origin = try #require(SecurityOrigin("https://app.example"))
        #expect(page.sessionStorage.item("state", forOrigin: origin) == "kept")
        await page.close()
        await other.close()
    }

    @Test func aWritePastTheQuotaIsRefusedAndChangesNothing() async throws {
        let page = try await Self.page()
        let result = try await page.evaluateJavaScript(
            """
            const outcome = (f) => { try { f(); return "stored"; } catch (error) { return [error.name, error.code, error instanceof DOMException].join(); } };
            const latin = "x".repeat(2 * 1024 * 1024);  // 2 MB as WebKit counts (a byte a Latin-1 character)
            localStorage.setItem("a", latin);
            localStorage.setItem("b", latin);
            const refused = outcome(() => localStorage.setItem("c", latin));
            // Replacing a value counts the old one out.
            localStorage.setItem("b", latin + "y");
            // Other characters are two bytes a code unit: 1.2 MB of them do not fit in the 1 MB
            // left, where the same number of Latin-1 ones (600 KB) do.
            const wide = outcome(() => localStorage.setItem("w", "€".repeat(600 * 1024)));
            const narrow = outcome(() => localStorage.setItem("n", "é".repeat(600 * 1024)));
            localStorage.clear();
            // A value past the quota by itself is refused before it is copied anywhere.
            const huge = outcome(() => localStorage.setItem("h", "x".repeat(10 * 1024 * 1024)));
            [refused, wide, narrow, huge, localStorage.length]
            """)
        #expect(result == ["QuotaExceededError,22,true", "QuotaExceededError,22,true", "stored", "QuotaExceededError,22,true", 0])
        await page.close()
    }

    @Test(arguments: ["about:blank", "data:text/html,x", "file:///tmp/page.html"])
    func aDocumentWithoutAnOriginOfItsOwnHasNoStorage(url: String) async throws {
        let page = try await Self.page(url)
        let result = try await page.evaluateJavaScript(
            """
            [() => localStorage.getItem("x"), () => sessionStorage.setItem("x", "y"), () => localStorage.length].map(action => {
              try { action(); return "allowed"; } catch (error) { return error.name; }
            })
            """)
        #expect(result == ["SecurityError", "SecurityError", "SecurityError"])
        await page.close()
    }

    @Test func storageWithAFileOutlivesItAndKeepsADamagedFileAside() throws {
        let directory = try TestDirectory.make(prefix: "webstorage")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("page.localstorage")
        let origin = try #require(SecurityOrigin("https://app.example"))
        let first = WebStorage(file: file)
        #expect(first.loadWarning == nil)
        first.setItem("abc", forKey: "token", origin: origin)
        first.setItem("ünïcødé \u{1F600}", forKey: "name", origin: origin)
        first.removeItem("token", forOrigin: origin)
        first.setItem("again", forKey: "token", origin: origin)
        first.flush()
        #expect(first.saveError == nil)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // A new storage on the same file has the pairs, in their order.
        let second = WebStorage(file: file)
        #expect(second.items(forOrigin: origin).map { "\($0.key)=\($0.value)" } == ["name=ünïcødé \u{1F600}", "token=again"])
        // A damaged file: kept aside, a warning, an empty storage that saves again.
        try Data("{\"version\": 1, \"origins\": {\"https://app.example\": [[\"only a key\"]]}}".utf8).write(to: file)
        let third = WebStorage(file: file)
        #expect(third.loadWarning?.contains("page.localstorage.corrupt") == true)
        #expect(third.items(forOrigin: origin).isEmpty)
        #expect(FileManager.default.fileExists(atPath: file.path + ".corrupt"))
        third.setItem("1", forKey: "fresh", origin: origin)
        third.flush()
        #expect(WebStorage(file: file).item("fresh", forOrigin: origin) == "1")
    }

    @Test func aPersistentDataStoresLocalStorageIsSavedWithItsProfile() async throws {
        let directory = try TestDirectory.make(prefix: "webstorage-profile")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let store = try WebsiteDataStore(directory: directory, profile: "page")
            let page = try await Self.page(store: store)
            _ = try await page.evaluateJavaScript("localStorage.setItem('state', 'saved')")
            await page.close()
            store.localStorage.flush()
        }
        let reopened = try WebsiteDataStore(directory: directory, profile: "page")
        let page = try await Self.page(store: reopened)
        #expect(try await page.evaluateJavaScript("localStorage.getItem('state')") == "saved")
        await page.close()
    }

    @Test func originsAreKeyedAsWebKitKeysThem() {
        #expect(WebStorage.origin(of: URL(string: "https://App.Example:443/path")!)?.description == "https://app.example")
        #expect(WebStorage.origin(of: URL(string: "http://127.0.0.1:8080/")!)?.description == "http://127.0.0.1:8080")
        #expect(WebStorage.origin(of: URL(string: "about:blank")!) == nil)
        #expect(WebStorage.origin(of: URL(string: "file:///tmp/a.html")!) == nil)
    }
}
