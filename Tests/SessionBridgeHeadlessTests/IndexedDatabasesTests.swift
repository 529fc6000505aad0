import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeHeadless

/// IndexedDB on headless pages where it meets the data store (`IndexedDatabases`): saved with a
/// persistent profile, cleared with the store's data, bounded by its quota, and refused to a
/// document without an origin of its own. (How databases behave is compared with WebKit's in
/// `IndexedDBOnBothEnginesTests`.)
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct IndexedDatabasesTests {
    static let helpers = """
        const request = r => new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
        const finished = tx => new Promise(resolve => {
          tx.oncomplete = () => resolve("complete");
          tx.onabort = () => resolve(["abort", tx.error === null ? null : tx.error.name]);
        });
        const opened = () => { const open = indexedDB.open("state"); open.onupgradeneeded = () => open.result.createObjectStore("kv"); return request(open); };

        """

    /// Writes a token, then holds a `readwrite` transaction open (`window.heldOutcome`, a
    /// request after each answer until `window.halt`, at most 10 s) with a write of its own;
    /// `window.events` records the connection's `close`.
    static let heldTransaction = """
        const db = await opened();
        window.db = db;
        window.events = [];
        db.onclose = () => window.events.push("close");
        const tx = db.transaction("kv", "readwrite");
        tx.objectStore("kv").put("secret-token", "token");
        await finished(tx);
        const held = db.transaction("kv", "readwrite");
        const store = held.objectStore("kv");
        store.put("later", "other");
        window.heldOutcome = finished(held);
        const started = Date.now();
        const spin = () => { store.get("token").onsuccess = () => { if (Date.now() - started < 10000 && !window.halt) spin(); }; };
        spin();
        return 1;
        """

    static func run(_ page: WebPage, _ body: String) async throws -> ScriptValue {
        try await page.callAsyncJavaScript(helpers + body, in: .page, timeout: .seconds(60))
    }

    @Test func aPersistentDataStoresDatabasesAreSavedWithItsProfile() async throws {
        let directory = try TestDirectory.make(prefix: "indexeddb-profile")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let store = try WebsiteDataStore(directory: directory, profile: "page")
            let page = try await WebStorageTests.page(store: store)
            let outcome = try await Self.run(
                page,
                """
                const db = await opened();
                const tx = db.transaction("kv", "readwrite");
                tx.objectStore("kv").put({ token: "abc", at: new Date(7), bytes: new Uint8Array([1, 2]) }, "session");
                return finished(tx);
                """)
            #expect(outcome == "complete")
            await page.close()
            store.indexedDatabases.flush()
            #expect(store.indexedDatabases.saveError == nil)
            let mode =
                try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("page.indexeddb").path)[.posixPermissions]
                as? Int
            #expect(mode == 0o600)
        }
        let reopened = try WebsiteDataStore(directory: directory, profile: "page")
        #expect(reopened.indexedDatabases.loadWarning == nil)
        let origin = try #require(SecurityOrigin("https://app.example"))
        #expect(reopened.indexedDatabases.databases(forOrigin: origin).map { "\($0.name) \($0.version)" } == ["state 1"])
        let page = try await WebStorageTests.page(store: reopened)
        let read = try await Self.run(
            page,
            """
            const db = await opened();
            const value = await request(db.transaction("kv").objectStore("kv").get("session"));
            return [value.token, value.at.getTime(), Array.from(value.bytes)];
            """)
        #expect(read == ["abc", 7, [1, 2]])
        // Clearing the store's data deletes its databases too (a logout's "clear all web data").
        reopened.removeAllData()
        #expect(try await Self.run(page, "return (await indexedDB.databases()).length;") == 0)
        await page.close()
    }

    /// A `CryptoKey` stored in a persistent store's database works after a restart (the
    /// databases read again from the profile), and stays unexportable; the material of a key
    /// no database refers to any more is left out when the profile is read.
    @Test func aStoredCryptoKeyOutlivesTheProcessAndAnUnusedOneIsDropped() async throws {
        let directory = try TestDirectory.make(prefix: "indexeddb-keys")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tag: ScriptValue
        do {
            let store = try WebsiteDataStore(directory: directory, profile: "page")
            let page = try await WebStorageTests.page(store: store)
            tag = try await Self.run(
                page,
                """
                const mac = await crypto.subtle.importKey("raw", new Uint8Array(32).fill(9), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
                const gone = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, ["encrypt"]);
                const db = await opened();
                const tx = db.transaction("kv", "readwrite");
                tx.objectStore("kv").put(mac, "mac");
                tx.objectStore("kv").put(gone, "gone");
                await finished(tx);
                const removal = db.transaction("kv", "readwrite");
                removal.objectStore("kv").delete("gone");
                await finished(removal);
                return Array.from(new Uint8Array(await crypto.subtle.sign("HMAC", mac, new Uint8Array([1, 2, 3]))));
                """)
            #expect(store.indexedDatabases.storedKeyCount == 2)
            await page.close()
            store.indexedDatabases.flush()
        }
        let reopened = try WebsiteDataStore(directory: directory, profile: "page")
        #expect(reopened.indexedDatabases.loadWarning == nil)
        #expect(reopened.indexedDatabases.storedKeyCount == 1)
        let page = try await WebStorageTests.page(store: reopened)
        let read = try await Self.run(
            page,
            """
            const db = await opened();
            const mac = await request(db.transaction("kv").objectStore("kv").get("mac"));
            let exported;
            try { await crypto.subtle.exportKey("raw", mac); exported = "exported"; } catch (error) { exported = error.name; }
            return [String(mac), mac.extractable, exported, Array.from(new Uint8Array(await crypto.subtle.sign("HMAC", mac, new Uint8Array([1, 2, 3]))))];
            """)
        #expect(read == ["[object CryptoKey]", false, "InvalidAccessError", tag])
        await page.close()
    }

    /// A page that rewrites the database's text as it is made (its own `JSON.stringify`)
    /// cannot make a key it may not export exportable: the key read back is described by what
    /// was kept natively with its material, not by the text.
    @Test func aStoredKeyIsDescribedByWhatWasKeptNotByTheText() async throws {
        let page = try await WebStorageTests.page(store: WebsiteDataStore.nonPersistent())
        let read = try await Self.run(
            page,
            """
            const original = JSON.stringify;
            JSON.stringify = function (...args) {
              const text = original.apply(this, args);
              return typeof text === "string" ? text.replaceAll('"secret",false', '"secret",true').replaceAll('["sign"]', '["sign","verify"]') : text;
            };
            const mac = await crypto.subtle.importKey("raw", new Uint8Array(32).fill(5), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
            const db = await opened();
            const tx = db.transaction("kv", "readwrite");
            tx.objectStore("kv").put({ mac }, "mac");
            await finished(tx);
            const back = (await request(db.transaction("kv").objectStore("kv").get("mac"))).mac;
            let exported;
            try { await crypto.subtle.exportKey("raw", back); exported = "exported"; } catch (error) { exported = error.name; }
            JSON.stringify = original;
            return [back.extractable, back.usages, exported];
            """)
        #expect(read == [false, ["sign"], "InvalidAccessError"])
        await page.close()
    }

    /// A transaction under way when the store's data is cleared aborts and writes nothing
    /// back: the page's copy of the database does not bring the cleared records back.
    @Test func aTransactionUnderWayWhenTheDataIsClearedWritesNothingBack() async throws {
        let store = WebsiteDataStore.nonPersistent()
        let page = try await WebStorageTests.page(store: store)
        let origin = try #require(SecurityOrigin("https://app.example"))
        _ = try await Self.run(page, Self.heldTransaction)
        #expect(store.indexedDatabases.databases(forOrigin: origin).count == 1)
        store.removeAllData()
        let outcome = try await Self.run(page, "const outcome = await window.heldOutcome; window.halt = true; return outcome;")
        #expect(outcome == ["abort", "AbortError"])
        #expect(store.indexedDatabases.databases(forOrigin: origin).isEmpty)
        // Natively too: a commit of a connection opened before the clearing changes nothing.
        #expect(store.indexedDatabases.commit("state", version: 1, state: "[]", forOrigin: origin, epoch: 0) == nil)
        #expect(store.indexedDatabases.databases(forOrigin: origin).isEmpty)
        let epoch = store.indexedDatabases.epoch(of: "state", forOrigin: origin)
        #expect(store.indexedDatabases.commit("state", version: 1, state: "[]", forOrigin: origin, epoch: epoch) != nil)
        await page.close()
    }

    /// A database the app deletes while a page holds a connection to it is not written back: a
    /// transaction under way aborts when it commits, the connection closes (a `close` event),
    /// and the next `transaction()` is refused.
    @Test func aDatabaseTheAppDeletesIsNotWrittenBackByAPageHoldingIt() async throws {
        let store = WebsiteDataStore.nonPersistent()
        let page = try await WebStorageTests.page(store: store)
        let origin = try #require(SecurityOrigin("https://app.example"))
        _ = try await Self.run(page, Self.heldTransaction)
        #expect(store.indexedDatabases.deleteDatabase("state", forOrigin: origin))
        let after = try await Self.run(
            page,
            """
            window.halt = true;
            const outcome = await window.heldOutcome;
            let refused;
            try { window.db.transaction("kv"); refused = "none"; } catch (error) { refused = error.name; }
            return [outcome, window.events, refused];
            """)
        #expect(after == [["abort", "AbortError"], ["close"], "InvalidStateError"])
        // A connection opened before, asking for a transaction, learns it there.
        _ = try await Self.run(
            page, "window.second = await opened(); window.second.onclose = () => window.events.push('second close'); return 1;")
        #expect(store.indexedDatabases.deleteDatabase("state", forOrigin: origin))
        let refused = try await Self.run(
            page,
            """
            let refused;
            try { window.second.transaction("kv"); refused = "none"; } catch (error) { refused = error.name; }
            return [refused, window.events];
            """)
        #expect(refused == ["InvalidStateError", ["close", "second close"]])
        #expect(store.indexedDatabases.databases(forOrigin: origin).isEmpty)
        await page.close()
    }

    /// A stored key whose saved form cannot be read is left out; the databases are kept.
    @Test func aDamagedStoredKeyLosesOnlyItself() throws {
        let directory = try TestDirectory.make(prefix: "indexeddb-damaged-key")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("page.indexeddb")
        let saved = """
            {"version": 1, "origins": {"https://app.example": {"db": [2, "[\\"kgood\\",\\"kbad\\"]"]}},
             "keys": {"https://app.example": {
               "kgood": {"key": ["secret", "AQID"], "type": "secret", "extractable": false, "algorithm": "{\\"name\\":\\"HMAC\\"}", "usages": ["sign"]},
               "kbad": {"key": ["elliptic", "P-256", null, "AQID"], "type": "public", "extractable": true, "algorithm": "{}", "usages": []}}}}
            """
        try Data(saved.utf8).write(to: file)
        let databases = IndexedDatabases(file: file)
        let origin = try #require(SecurityOrigin("https://app.example"))
        #expect(databases.loadWarning == nil)
        #expect(databases.database("db", forOrigin: origin)?.version == 2)
        #expect(databases.storedKeyCount == 1)
        #expect(databases.storedKey("kgood", forOrigin: origin) != nil)
        #expect(databases.storedKey("kbad", forOrigin: origin) == nil)
    }

    @Test func aDamagedFileIsKeptAsideAndTheDatabasesStartEmpty() throws {
        let directory = try TestDirectory.make(prefix: "indexeddb-file")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("page.indexeddb")
        let origin = try #require(SecurityOrigin("https://app.example"))
        let first = IndexedDatabases(file: file)
        #expect(first.commit("db", version: 3, state: "[]", forOrigin: origin) != nil)
        first.flush()
        #expect(IndexedDatabases(file: file).database("db", forOrigin: origin)?.version == 3)
        try Data("{\"version\": 1, \"origins\": {\"https://app.example\": {\"db\": [0, \"[]\"]}}}".utf8).write(to: file)
        let second = IndexedDatabases(file: file)
        #expect(second.loadWarning?.contains("page.indexeddb.corrupt") == true)
        #expect(second.databases(forOrigin: origin).isEmpty)
        #expect(FileManager.default.fileExists(atPath: file.path + ".corrupt"))
    }

    @Test func aDatabaseThatCannotBeReadFailsItsOpenAndNotThePage() async throws {
        let store = WebsiteDataStore.nonPersistent()
        let origin = try #require(SecurityOrigin("https://app.example"))
        #expect(store.indexedDatabases.commit("state", version: 1, state: "[{\"name\": \"kv\"", forOrigin: origin) != nil)
        let page = try await WebStorageTests.page(store: store)
        let result = try await Self.run(
            page,
            """
            const failed = await request(indexedDB.open("state")).then(() => "opened", error => [error.name, error.message]);
            const other = await request(indexedDB.open("other")).then(db => db.version);
            return [failed, other];
            """)
        #expect(result == [["UnknownError", "The database could not be read."], 1])
        await page.close()
    }

    @Test func aCommitPastTheQuotaAbortsAndChangesNothing() async throws {
        let page = try await WebStorageTests.page()
        let result = try await Self.run(
            page,
            """
            const db = await opened();
            let tx = db.transaction("kv", "readwrite");
            tx.objectStore("kv").put("small", "a");
            const small = await finished(tx);
            tx = db.transaction("kv", "readwrite");
            // 33 M code units: 66 MB as the quota counts them (two bytes a code unit), past its 64 MB.
            tx.objectStore("kv").put("x".repeat(33 * 1024 * 1024), "b");
            const big = await finished(tx);
            const keys = await request(db.transaction("kv").objectStore("kv").getAllKeys());
            return [small, big, keys];
            """)
        #expect(result == ["complete", ["abort", "QuotaExceededError"], ["a"]])
        await page.close()
    }

    @Test(arguments: ["about:blank", "data:text/html,x", "file:///tmp/page.html"])
    func aDocumentWithoutAnOriginOfItsOwnHasNoDatabases(url: String) async throws {
        let page = try await WebStorageTests.page(url)
        let result = try await page.evaluateJavaScript(
            """
            [() => indexedDB.open("x"), () => indexedDB.deleteDatabase("x"), () => indexedDB.cmp(1, 2)].map(action => {
              try { return String(action()); } catch (error) { return error.name; }
            })
            """)
        #expect(result == ["SecurityError", "SecurityError", "-1"])
        await page.close()
    }
}
