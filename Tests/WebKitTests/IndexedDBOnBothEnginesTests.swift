import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// IndexedDB side by side: the headless engine's databases open, upgrade, store, index, order,
/// iterate, fail and abort as WebKit's do, and outlive the document that wrote them.
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct IndexedDBOnBothEnginesTests {
    static let helpers = """
        const request = r => new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
        const finished = tx => new Promise(resolve => {
          tx.oncomplete = () => resolve("complete");
          tx.onabort = () => resolve(["abort", tx.error === null ? null : tx.error.name]);
        });
        const thrown = make => { try { make(); return "none"; } catch (error) { return error.name; } };
        const walk = (source, ...args) => new Promise((resolve, reject) => {
          const seen = [], cursors = source.openCursor ? source : null;
          const r = args.pop() === "keys" ? source.openKeyCursor(...args) : source.openCursor(...args);
          r.onerror = () => reject(r.error);
          r.onsuccess = () => {
            const cursor = r.result;
            if (cursor === null) return resolve(seen);
            seen.push("value" in cursor ? [cursor.key, cursor.primaryKey, cursor.value.name] : [cursor.key, cursor.primaryKey]);
            cursor.continue();
          };
        });

        """

    @Test(arguments: Engine.allCases)
    func aDatabaseIsUpgradedWrittenReadAndWalkedAsInWebKit(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let seen = try await view.run(
                Self.helpers + """
                    const log = [];
                    const open = indexedDB.open("app", 2);
                    open.onupgradeneeded = event => {
                      log.push(["upgrade", event.oldVersion, event.newVersion, open.transaction.mode, event instanceof IDBVersionChangeEvent]);
                      const db = open.result;
                      const people = db.createObjectStore("people", { keyPath: "id" });
                      people.createIndex("byCity", "city");
                      people.createIndex("byTag", "tags", { multiEntry: true });
                      people.createIndex("byEmail", "email", { unique: true });
                      db.createObjectStore("counter", { autoIncrement: true });
                      people.put({ id: 1, name: "Ada", city: "London", tags: ["math", "code"], email: "a@x" });
                    };
                    const db = await request(open);
                    log.push([db.name, db.version, Array.from(db.objectStoreNames), db.objectStoreNames.contains("people")]);
                    let tx = db.transaction(["people", "counter"], "readwrite");
                    const people = tx.objectStore("people");
                    people.put({ id: 2, name: "Grace", city: "Arlington", tags: ["code", "navy", "code"], email: "g@x",
                      born: new Date(1906, 11, 9), bytes: new Uint8Array([1, 2, 3]), more: new Map([["k", new Set([1])]]), nothing: undefined });
                    people.add({ id: 3, name: "Alan", city: "London", tags: [], email: "t@x" });
                    const counter = tx.objectStore("counter");
                    log.push(await Promise.all([request(counter.add("one")), request(counter.add("two")), request(counter.put("ten", 10)),
                      request(counter.add("eleven")), request(counter.put("text key", "k"))]));
                    log.push(await finished(tx));
                    tx = db.transaction("people");
                    const store = tx.objectStore("people");
                    log.push([tx.mode, tx.durability, db.transaction("people", "readonly", { durability: "relaxed" }).durability,
                      await request(store.count()), await request(store.count(IDBKeyRange.lowerBound(2)))]);
                    const grace = await request(store.get(2));
                    log.push([grace.name, grace.born instanceof Date, grace.born.getFullYear(), Array.from(grace.bytes), grace.more.get("k").has(1),
                      "nothing" in grace, await request(store.get(99)) === undefined]);
                    log.push(await request(store.index("byCity").getAllKeys("London")));
                    log.push((await request(store.index("byTag").getAll("code"))).map(person => person.name));
                    log.push(await request(store.index("byTag").count()));
                    log.push(await request(store.getAllKeys(IDBKeyRange.bound(1, 3, true, false))));
                    log.push((await request(store.getAll(null, 2))).map(person => person.id));
                    log.push(await request(store.index("byEmail").getKey("t@x")));
                    log.push(await walk(store.index("byCity"), null, "prev", "values"));
                    log.push(await walk(store.index("byCity"), null, "prevunique", "keys"));
                    log.push(await walk(store.index("byCity"), IDBKeyRange.only("London"), "nextunique", "keys"));
                    log.push(await walk(store, IDBKeyRange.upperBound(3, true), "next", "keys"));
                    log.push(await finished(tx));
                    const keys = db.transaction("counter").objectStore("counter");
                    log.push(await request(keys.getAllKeys()));
                    db.close();
                    return log;
                    """)
            #expect(seen.element(0) == ["upgrade", 0, 2, "versionchange", true], "\(engine): \(seen)")
            #expect(seen.element(1) == ["app", 2, ["counter", "people"], true], "\(engine): \(seen)")
            #expect(seen.element(2) == [1, 2, 10, 11, "k"], "\(engine): \(seen)")
            #expect(seen.element(3) == "complete", "\(engine): \(seen)")
            #expect(seen.element(4) == ["readonly", "default", "relaxed", 3, 2], "\(engine): \(seen)")
            #expect(seen.element(5) == ["Grace", true, 1906, [1, 2, 3], true, true, true], "\(engine): \(seen)")
            #expect(seen.element(6) == [1, 3], "\(engine): \(seen)")
            #expect(seen.element(7) == ["Ada", "Grace"], "\(engine): \(seen)")
            // Ada's two tags, Grace's two distinct ones.
            #expect(seen.element(8) == 4, "\(engine): \(seen)")
            #expect(seen.element(9) == [2, 3], "\(engine): \(seen)")
            #expect(seen.element(10) == [1, 2], "\(engine): \(seen)")
            #expect(seen.element(11) == 3, "\(engine): \(seen)")
            #expect(seen.element(12) == [["London", 3, "Alan"], ["London", 1, "Ada"], ["Arlington", 2, "Grace"]], "\(engine): \(seen)")
            #expect(seen.element(13) == [["London", 1], ["Arlington", 2]], "\(engine): \(seen)")
            #expect(seen.element(14) == [["London", 1]], "\(engine): \(seen)")
            #expect(seen.element(15) == [[1, 1], [2, 2]], "\(engine): \(seen)")
            #expect(seen.element(16) == "complete", "\(engine): \(seen)")
            // Numbers sort before strings.
            #expect(seen.element(17) == [1, 2, 10, 11, "k"], "\(engine): \(seen)")
        }
    }

    @Test(arguments: Engine.allCases)
    func errorsAbortAndRevertAsInWebKit(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let seen = try await view.run(
                Self.helpers + """
                    const log = [];
                    const open = indexedDB.open("errors");
                    open.onupgradeneeded = () => {
                      const store = open.result.createObjectStore("s", { keyPath: "id" });
                      store.createIndex("email", "email", { unique: true });
                    };
                    const db = await request(open);
                    let tx = db.transaction("s", "readwrite");
                    let store = tx.objectStore("s");
                    store.put({ id: 1, email: "a" });
                    const duplicate = store.add({ id: 1, email: "b" });
                    duplicate.onerror = event => { log.push(["add", duplicate.error.name, event.target === duplicate]); event.preventDefault(); };
                    const unique = store.put({ id: 2, email: "a" });
                    unique.onerror = event => { log.push(["unique", unique.error.name]); event.preventDefault(); };
                    store.put({ id: 3, email: "c" });
                    log.push(await finished(tx));
                    const count = () => request(db.transaction("s").objectStore("s").count());
                    log.push(await count());
                    // An error no listener prevented aborts the transaction; the error reaches the connection.
                    let bubbled = null;
                    db.onerror = event => { bubbled = [event.target.error.name, event.eventPhase]; };
                    tx = db.transaction("s", "readwrite");
                    tx.objectStore("s").put({ id: 4, email: "d" });
                    tx.objectStore("s").add({ id: 1, email: "z" });
                    log.push(await finished(tx), bubbled, await count());
                    db.onerror = null;
                    // abort() reverts too, and leaves the error null; the requests left fail with AbortError.
                    tx = db.transaction("s", "readwrite");
                    tx.objectStore("s").clear();
                    const left = tx.objectStore("s").get(1);
                    left.onerror = event => event.preventDefault();
                    tx.abort();
                    log.push(await finished(tx), await count(), left.error.name);
                    // What is refused at once.
                    tx = db.transaction("s", "readwrite");
                    store = tx.objectStore("s");
                    log.push([
                      thrown(() => db.transaction("s").objectStore("s").put({ id: 9 })),
                      thrown(() => db.transaction("nope")),
                      thrown(() => db.transaction([])),
                      thrown(() => store.put({ id: 5 }, 5)),
                      thrown(() => store.put({ name: "no id" })),
                      thrown(() => store.put({ id: 6, f() {} })),
                      thrown(() => store.get({})),
                      thrown(() => store.index("nope")),
                      thrown(() => db.createObjectStore("t")),
                      thrown(() => IDBKeyRange.bound(2, 1)),
                      thrown(() => indexedDB.cmp({}, 1)),
                      thrown(() => new IDBKeyRange()),
                    ]);
                    await finished(tx);
                    const late = db.transaction("s").objectStore("s");
                    await new Promise(resolve => setTimeout(resolve, 0));
                    log.push(thrown(() => late.get(1)));
                    // A transaction stays active through the promise reactions of its request's success.
                    tx = db.transaction("s", "readwrite");
                    const first = await request(tx.objectStore("s").get(1));
                    await request(tx.objectStore("s").put({ ...first, email: "aa" }));
                    log.push(await finished(tx));
                    // Key order: numbers, dates, strings, binary, arrays.
                    log.push([indexedDB.cmp(1, new Date(0)), indexedDB.cmp(new Date(0), ""), indexedDB.cmp("z", new Uint8Array([0])),
                      indexedDB.cmp(new Uint8Array([255]), []), indexedDB.cmp([1, "a"], [1, "b"]), indexedDB.cmp(["a"], ["a", 0]),
                      indexedDB.cmp("a", "a"), indexedDB.cmp(-Infinity, -1e300), indexedDB.cmp(-0, 0)]);
                    db.close();
                    await request(indexedDB.open("errors", 3)).then(db => db.close());
                    log.push(await request(indexedDB.open("errors", 1)).then(() => "opened", error => error.name));
                    return log;
                    """)
            #expect(seen.element(0) == ["add", "ConstraintError", true], "\(engine): \(seen)")
            #expect(seen.element(1) == ["unique", "ConstraintError"], "\(engine): \(seen)")
            #expect(seen.element(2) == "complete", "\(engine): \(seen)")
            #expect(seen.element(3) == 2, "\(engine): \(seen)")
            #expect(seen.element(4) == ["abort", "ConstraintError"], "\(engine): \(seen)")
            #expect(seen.element(5) == ["ConstraintError", 3], "\(engine): \(seen)")
            #expect(seen.element(6) == 2, "\(engine): \(seen)")
            #expect(seen.element(7) == ["abort", .null], "\(engine): \(seen)")
            #expect(seen.element(8) == 2, "\(engine): \(seen)")
            #expect(seen.element(9) == "AbortError", "\(engine): \(seen)")
            #expect(
                seen.element(10)
                    == [
                        "ReadOnlyError", "NotFoundError", "InvalidAccessError", "DataError", "DataError", "DataCloneError", "DataError",
                        "NotFoundError", "InvalidStateError", "DataError", "DataError", "TypeError",
                    ], "\(engine): \(seen)")
            #expect(seen.element(11) == "TransactionInactiveError", "\(engine): \(seen)")
            #expect(seen.element(12) == "complete", "\(engine): \(seen)")
            #expect(seen.element(13) == [-1, -1, -1, -1, -1, -1, 0, -1, 0], "\(engine): \(seen)")
            #expect(seen.element(14) == "VersionError", "\(engine): \(seen)")
        }
    }

    @Test(arguments: Engine.allCases)
    func anUpgradeAsksOtherConnectionsToClose(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let seen = try await view.run(
                Self.helpers + """
                    const log = [];
                    const first = await request(indexedDB.open("shared", 1));
                    first.onversionchange = event => { log.push(["versionchange", event.oldVersion, event.newVersion]); };
                    const upgrade = indexedDB.open("shared", 2);
                    upgrade.onblocked = event => {
                      log.push(["blocked", event.oldVersion, event.newVersion]);
                      setTimeout(() => first.close(), 10);
                    };
                    upgrade.onupgradeneeded = event => log.push(["upgrade", event.oldVersion, event.newVersion]);
                    const second = await request(upgrade);
                    log.push(second.version);
                    // Deleting: the open connection is asked first; the success event has the old version.
                    second.onversionchange = () => second.close();
                    const deletion = indexedDB.deleteDatabase("shared");
                    log.push(await new Promise(resolve => { deletion.onsuccess = event => resolve([event.oldVersion, event.newVersion, deletion.result === undefined]); }));
                    log.push((await indexedDB.databases()).map(database => database.name).includes("shared"));
                    return log;
                    """)
            #expect(
                seen == [["versionchange", 1, 2], ["blocked", 1, 2], ["upgrade", 1, 2], 2, [2, .null, true], false],
                "\(engine): \(seen)")
        }
    }

    @Test(arguments: Engine.allCases)
    func databasesOutliveTheDocumentAndAreSharedByTheStoresPages(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView(sharingStore: true)
            let written = try await view.run(
                Self.helpers + """
                    const open = indexedDB.open("kept", 4);
                    open.onupgradeneeded = () => open.result.createObjectStore("auth");
                    const db = await request(open);
                    const tx = db.transaction("auth", "readwrite");
                    tx.objectStore("auth").put({ user: "ada", at: new Date(5) }, "current");
                    return finished(tx);
                    """)
            #expect(written == "complete", "\(engine)")
            let read = """
                const db = await request(indexedDB.open("kept"));
                const value = await request(db.transaction("auth").objectStore("auth").get("current"));
                const names = (await indexedDB.databases()).map(database => [database.name, database.version]);
                return [db.version, value.user, value.at.getTime(), names];
                """
            // The next document of the same view.
            _ = try await view.load(harness.url("/login"))
            let again = try await view.run(Self.helpers + read)
            #expect(again == [4, "ada", 5, [["kept", 4]]], "\(engine): \(again)")
            // Another view of the same store, and a change it makes seen by the first.
            let other = try await harness.makeEchoView(sharingStore: true)
            #expect(try await other.run(Self.helpers + read) == again, "\(engine)")
            let changed = try await other.run(
                Self.helpers + """
                    const db = await request(indexedDB.open("kept"));
                    const tx = db.transaction("auth", "readwrite");
                    tx.objectStore("auth").delete("current");
                    const outcome = await finished(tx);
                    db.close();
                    return outcome;
                    """)
            #expect(changed == "complete", "\(engine)")
            let gone = try await view.run(
                Self.helpers + """
                    const db = await request(indexedDB.open("kept"));
                    return request(db.transaction("auth").objectStore("auth").count());
                    """)
            #expect(gone == 0, "\(engine): \(gone)")
            // A view of another store sees none of it.
            let stranger = try await harness.makeEchoView()
            #expect(try await stranger.run("return (await indexedDB.databases()).length;") == 0, "\(engine)")
        }
    }

    @Test(arguments: Engine.allCases)
    func cursorsChangeWhatTheyWalkAndKeysComeFromThePath(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let seen = try await view.run(
                Self.helpers + """
                    const log = [];
                    const open = indexedDB.open("cursors");
                    open.onupgradeneeded = () => {
                      const db = open.result;
                      const items = db.createObjectStore("items", { keyPath: "meta.id", autoIncrement: true });
                      items.createIndex("byPair", ["kind", "rank"]);
                      items.createIndex("byKind", "kind");
                      db.createObjectStore("blobs");
                    };
                    const db = await request(open);
                    let tx = db.transaction(["items", "blobs"], "readwrite");
                    const items = tx.objectStore("items");
                    const made = [];
                    for (const [kind, rank] of [["a", 2], ["b", 1], ["a", 1], ["c", 5], ["b", 3]]) made.push(request(items.add({ kind, rank })));
                    log.push(await Promise.all(made));
                    log.push(await request(items.get(3)).then(item => item.meta));
                    log.push([await request(items.put({ kind: "z", rank: 0, meta: { id: 40 } })), await request(items.add({ kind: "y", rank: 0 }))]);
                    const blobs = tx.objectStore("blobs");
                    await request(blobs.put("two", new Uint8Array([2])));
                    await request(blobs.put("one-two", new Uint8Array([1, 2]).buffer));
                    await request(blobs.put("one", new Uint8Array([1])));
                    log.push((await request(blobs.getAllKeys())).map(key => Array.from(new Uint8Array(key))));
                    log.push(await request(items.index("byPair").getAllKeys(IDBKeyRange.bound(["a", 0], ["b", 2]))));
                    log.push(await finished(tx));
                    // Update and delete through a cursor; advance skips.
                    tx = db.transaction("items", "readwrite");
                    const store = tx.objectStore("items");
                    await new Promise(resolve => {
                      const r = store.openCursor();
                      r.onsuccess = () => {
                        const cursor = r.result;
                        if (cursor === null) return resolve();
                        if (cursor.value.kind === "b") cursor.delete();
                        else cursor.update({ ...cursor.value, rank: cursor.value.rank * 10 });
                        cursor.continue();
                      };
                    });
                    log.push((await request(store.getAll())).map(item => [item.meta.id, item.kind, item.rank]));
                    log.push(thrown(() => store.put({ kind: "x", meta: { id: "text" } })) === "none" ? "stored" : "refused");
                    const stepped = [];
                    await new Promise(resolve => {
                      const r = store.openKeyCursor();
                      let first = true;
                      r.onsuccess = () => {
                        const cursor = r.result;
                        if (cursor === null) return resolve();
                        stepped.push(cursor.key);
                        if (first) { first = false; cursor.advance(2); } else cursor.continue();
                      };
                    });
                    log.push(stepped);
                    // continuePrimaryKey on an index, and continue to a key.
                    const jumped = [];
                    await new Promise(resolve => {
                      const r = store.index("byKind").openCursor();
                      let turn = 0;
                      r.onsuccess = () => {
                        const cursor = r.result;
                        if (cursor === null) return resolve();
                        jumped.push([cursor.key, cursor.primaryKey]);
                        turn++;
                        if (turn === 1) cursor.continuePrimaryKey("a", 3);
                        else if (turn === 2) cursor.continue("y");
                        else cursor.continue();
                      };
                    });
                    log.push(jumped);
                    log.push(await finished(tx));
                    db.close();
                    return log;
                    """)
            #expect(seen.element(0) == [1, 2, 3, 4, 5], "\(engine): \(seen)")
            #expect(seen.element(1) == ["id": 3], "\(engine): \(seen)")
            #expect(seen.element(2) == [40, 41], "\(engine): \(seen)")
            #expect(seen.element(3) == [[1], [1, 2], [2]], "\(engine): \(seen)")
            #expect(seen.element(4) == [3, 1, 2], "\(engine): \(seen)")
            #expect(seen.element(5) == "complete", "\(engine): \(seen)")
            #expect(
                seen.element(6) == [[1, "a", 20], [3, "a", 10], [4, "c", 50], [40, "z", 0], [41, "y", 0]], "\(engine): \(seen)")
            #expect(seen.element(7) == "stored", "\(engine): \(seen)")
            #expect(seen.element(8) == [1, 4, 40, 41, "text"], "\(engine): \(seen)")
            #expect(seen.element(9) == [["a", 1], ["a", 3], ["y", 41], ["z", 40]], "\(engine): \(seen)")
            #expect(seen.element(10) == "complete", "\(engine): \(seen)")
        }
    }

    @Test(arguments: Engine.allCases)
    func anAbortedUpgradeLeavesTheDatabaseAsItWas(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let seen = try await view.run(
                Self.helpers + """
                    const log = [];
                    const first = indexedDB.open("upgrades", 1);
                    first.onupgradeneeded = () => {
                      const store = first.result.createObjectStore("users");
                      store.put({ email: "a@x" }, 1);
                      store.put({ email: "a@x" }, 2);
                    };
                    (await request(first)).close();
                    // A unique index the records break aborts the upgrade.
                    const second = indexedDB.open("upgrades", 2);
                    let upgrade = null;
                    second.onupgradeneeded = () => {
                      upgrade = second.transaction;
                      second.result.createObjectStore("more");
                      upgrade.objectStore("users").createIndex("email", "email", { unique: true });
                    };
                    log.push(await request(second).then(() => "opened", error => error.name));
                    log.push([upgrade.error && upgrade.error.name, second.result === undefined]);
                    // A listener's exception aborts it too.
                    const third = indexedDB.open("upgrades", 3);
                    third.onupgradeneeded = () => { third.result.createObjectStore("other"); throw new Error("upgrade failed"); };
                    log.push(await request(third).then(() => "opened", error => error.name));
                    const db = await request(indexedDB.open("upgrades"));
                    log.push([db.version, Array.from(db.objectStoreNames)]);
                    log.push(await request(db.transaction("users").objectStore("users").count()));
                    db.close();
                    return log;
                    """)
            #expect(seen == ["AbortError", ["ConstraintError", true], "AbortError", [1, ["users"]], 2], "\(engine): \(seen)")
        }
    }

    /// Two pages of one store writing one database at once, each to its own object store:
    /// neither page's commit loses the other's write (the headless engine makes a transaction's
    /// changes again on the newest state when another document committed meanwhile).
    @Test(arguments: Engine.allCases)
    func twoPagesWritingAtOnceKeepBothWrites(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let first = try await harness.makeEchoView(sharingStore: true)
            let second = try await harness.makeEchoView(sharingStore: true)
            let made = try await first.run(
                Self.helpers + """
                    localStorage.removeItem("second-done");
                    const open = indexedDB.open("both", 1);
                    open.onupgradeneeded = () => { open.result.createObjectStore("kv"); open.result.createObjectStore("other"); };
                    (await request(open)).close();
                    return "made";
                    """)
            #expect(made == "made", "\(engine)")
            // The first page's transaction stays open (a request after each answer) until the
            // second page has committed its own.
            async let held = first.run(
                Self.helpers + """
                    const db = await request(indexedDB.open("both"));
                    const tx = db.transaction("kv", "readwrite");
                    const store = tx.objectStore("kv");
                    store.put("from the first page", "a");
                    const started = Date.now();
                    const spin = () => {
                      const r = store.get("a");
                      r.onsuccess = () => { if (localStorage.getItem("second-done") === null && Date.now() - started < 10000) spin(); };
                    };
                    spin();
                    const outcome = await finished(tx);
                    db.close();
                    return [outcome, localStorage.getItem("second-done")];
                    """)
            let wrote = try await second.run(
                Self.helpers + """
                    await new Promise(resolve => setTimeout(resolve, 50));
                    const db = await request(indexedDB.open("both"));
                    const tx = db.transaction("other", "readwrite");
                    tx.objectStore("other").put("from the second page", "b");
                    const outcome = await finished(tx);
                    db.close();
                    localStorage.setItem("second-done", "yes");
                    return outcome;
                    """)
            #expect(wrote == "complete", "\(engine)")
            #expect(try await held == ["complete", "yes"], "\(engine)")
            let kept = try await second.run(
                Self.helpers + """
                    const db = await request(indexedDB.open("both"));
                    const tx = db.transaction(["kv", "other"]);
                    return [await request(tx.objectStore("kv").getAll()), await request(tx.objectStore("other").getAll())];
                    """)
            #expect(kept == [["from the first page"], ["from the second page"]], "\(engine): \(kept)")
        }
    }

    /// Two pages of one store incrementing one record: the second page's `readwrite`
    /// transaction waits until the first page's, over the same store, has committed, and then
    /// reads what it wrote, so no increment is lost; a `readonly` one waits too. (Before, the
    /// second page's transaction ran at once on the stored value and the first page's commit
    /// then wrote its stale increment over it.)
    @Test(arguments: Engine.allCases)
    func aPagesTransactionWaitsForAnotherPagesOverTheSameStore(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let first = try await harness.makeEchoView(sharingStore: true)
            let second = try await harness.makeEchoView(sharingStore: true)
            let made = try await first.run(
                Self.helpers + """
                    localStorage.removeItem("second-read");
                    localStorage.removeItem("first-holds");
                    const open = indexedDB.open("counter", 1);
                    open.onupgradeneeded = () => open.result.createObjectStore("kv").put(0, "n");
                    (await request(open)).close();
                    return "made";
                    """)
            #expect(made == "made", "\(engine)")
            // The first page reads the count, then holds its transaction open (a request after
            // each answer) for 700 ms or until the second page has read, and writes its increment.
            async let firstPage = first.run(
                Self.helpers + """
                    const db = await request(indexedDB.open("counter"));
                    const tx = db.transaction("kv", "readwrite");
                    const store = tx.objectStore("kv");
                    const read = store.get("n");
                    read.onsuccess = () => {
                      localStorage.setItem("first-holds", "yes");
                      const started = Date.now();
                      const spin = () => {
                        const r = store.get("n");
                        r.onsuccess = () => {
                          if (localStorage.getItem("second-read") === null && Date.now() - started < 700) return spin();
                          // What the first page saw while it held the store (read here: once it has
                          // committed, the second page goes on and may have read by then).
                          window.secondReadMeanwhile = localStorage.getItem("second-read") !== null;
                          store.put(read.result + 1, "n");
                        };
                      };
                      spin();
                    };
                    const outcome = await finished(tx);
                    db.close();
                    return [outcome, window.secondReadMeanwhile ? "second read meanwhile" : "second waited"];
                    """)
            let secondPage = try await second.run(
                Self.helpers + """
                    const begun = Date.now();
                    while (localStorage.getItem("first-holds") === null && Date.now() - begun < 10000) await new Promise(resolve => setTimeout(resolve, 5));
                    const db = await request(indexedDB.open("counter"));
                    const reader = db.transaction("kv");
                    const seen = await request(reader.objectStore("kv").get("n"));
                    const tx = db.transaction("kv", "readwrite");
                    const store = tx.objectStore("kv");
                    const read = store.get("n");
                    read.onsuccess = () => { localStorage.setItem("second-read", "yes"); store.put(read.result + 1, "n"); };
                    const outcome = await finished(tx);
                    db.close();
                    return [outcome, seen, read.result];
                    """)
            let firstResult = try await firstPage
            #expect(firstResult == ["complete", "second waited"], "\(engine): \(firstResult)")
            #expect(secondPage == ["complete", 1, 1], "\(engine): \(secondPage)")
            let count = try await second.run(
                Self.helpers + """
                    const db = await request(indexedDB.open("counter"));
                    return await request(db.transaction("kv").objectStore("kv").get("n"));
                    """)
            #expect(count == 2, "\(engine): \(count)")
            // A page whose transaction never ends holds the store until it navigates away; its
            // write is lost with it and the waiting page goes on.
            _ = try await first.run(
                Self.helpers + """
                    localStorage.removeItem("first-holds");
                    const db = await request(indexedDB.open("counter"));
                    const store = db.transaction("kv", "readwrite").objectStore("kv");
                    store.put(100, "n");
                    const spin = () => { store.get("n").onsuccess = spin; };
                    spin();
                    localStorage.setItem("first-holds", "yes");
                    return 1;
                    """)
            async let waited = second.run(
                Self.helpers + """
                    const db = await request(indexedDB.open("counter"));
                    const tx = db.transaction("kv", "readwrite");
                    const store = tx.objectStore("kv");
                    const read = store.get("n");
                    read.onsuccess = () => store.put(read.result + 1, "n");
                    const outcome = await finished(tx);
                    return [outcome, read.result];
                    """)
            try await Task.sleep(for: .milliseconds(200))
            _ = try await first.load(harness.url("/login"))
            #expect(try await waited == ["complete", 2], "\(engine)")
        }
    }

    /// `CryptoKey`s stored in a database (as DPoP clients keep their key pair) are read back in
    /// another page of the store as keys that work as the ones put, with their type,
    /// algorithm, usages and `extractable`, and stay unexportable. (One key stored twice in a
    /// value is read back as two keys by WebKit, as one by the headless engine, as the
    /// structured clone's memory says: left out here.)
    @Test(arguments: Engine.allCases)
    func cryptoKeysAreStoredAndReadBackInAnotherPage(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let first = try await harness.makeEchoView(sharingStore: true)
            let second = try await harness.makeEchoView(sharingStore: true)
            let stored = try await first.run(
                Self.helpers + """
                    const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
                    const mac = await crypto.subtle.importKey("raw", new Uint8Array(32).fill(7), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
                    window.publicKey = pair.publicKey;
                    const open = indexedDB.open("keys", 1);
                    open.onupgradeneeded = () => open.result.createObjectStore("kv");
                    const db = await request(open);
                    const tx = db.transaction("kv", "readwrite");
                    tx.objectStore("kv").put({ pair, mac }, "session");
                    const outcome = await finished(tx);
                    db.close();
                    const tag = new Uint8Array(await crypto.subtle.sign("HMAC", mac, new TextEncoder().encode("abc")));
                    return [outcome, Array.from(tag).join(",")];
                    """)
            guard case .array(let parts) = stored, parts.count == 2 else {
                Issue.record("\(engine): \(stored)")
                return
            }
            #expect(parts[0] == "complete", "\(engine): \(stored)")
            let read = try await second.run(
                Self.helpers + """
                    const db = await request(indexedDB.open("keys"));
                    const value = await request(db.transaction("kv").objectStore("kv").get("session"));
                    db.close();
                    const { privateKey, publicKey } = value.pair;
                    const tag = new Uint8Array(await crypto.subtle.sign("HMAC", value.mac, new TextEncoder().encode("abc")));
                    const signature = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, privateKey, new TextEncoder().encode("proof"));
                    localStorage.setItem("signature", btoa(String.fromCharCode(...new Uint8Array(signature))));
                    let exported;
                    try { await crypto.subtle.exportKey("pkcs8", privateKey); exported = "exported"; } catch (error) { exported = error.name; }
                    return [String(privateKey), privateKey.type, privateKey.extractable, privateKey.usages, privateKey.algorithm,
                      publicKey.type, publicKey.extractable, value.mac.algorithm.hash.name,
                      Array.from(tag).join(","), exported,
                      await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, publicKey, signature, new TextEncoder().encode("proof"))];
                    """)
            let expected: ScriptValue = [
                "[object CryptoKey]", "private", false, ["sign"], ["name": "ECDSA", "namedCurve": "P-256"],
                "public", true, "SHA-256", parts[1], "InvalidAccessError", true,
            ]
            #expect(read == expected, "\(engine): \(read)")
            // The key read back signs as the one put: the first page's own public key verifies it.
            let verified = try await first.run(
                """
                const signature = Uint8Array.from(atob(localStorage.getItem("signature")), c => c.charCodeAt(0));
                return crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, window.publicKey, signature, new TextEncoder().encode("proof"));
                """)
            #expect(verified == true, "\(engine)")
        }
    }

    /// Clearing the store's data (an app's logout) closes the pages' open connections, as
    /// WebKit does: a `close` event, a `transaction()` refused with `InvalidStateError`, and
    /// the database found empty when opened again. (Before, the headless page was not told,
    /// and its next transaction failed with `NotFoundError`.)
    @Test(arguments: Engine.allCases)
    func clearingTheStoresDataClosesItsConnections(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView(sharingStore: true)
            let stored = try await view.run(
                Self.helpers + """
                    window.events = [];
                    const open = indexedDB.open("held", 1);
                    open.onupgradeneeded = () => open.result.createObjectStore("kv");
                    const db = await request(open);
                    window.db = db;
                    db.onclose = () => window.events.push("close");
                    const tx = db.transaction("kv", "readwrite");
                    tx.objectStore("kv").put("secret-token", "token");
                    return finished(tx);
                    """)
            #expect(stored == "complete", "\(engine)")
            try await harness.removeAllSharedData()
            let seen = try await view.run(
                Self.helpers + """
                    const started = Date.now();
                    while (window.events.length === 0 && Date.now() - started < 10000) await new Promise(resolve => setTimeout(resolve, 10));
                    let refused;
                    try { window.db.transaction("kv", "readwrite"); refused = "none"; } catch (error) { refused = error.name; }
                    const again = await request(indexedDB.open("held"));
                    const names = Array.from(again.objectStoreNames);
                    again.close();
                    return [window.events, refused, again.version, names];
                    """)
            #expect(seen == [["close"], "InvalidStateError", 1, []], "\(engine): \(seen)")
        }
    }

    /// Object stores and indexes are renamed in an upgrade (their records and entries kept,
    /// found by their new names), refused a name in use or outside an upgrade (an index given
    /// its own name stays as it is), and named as before when the upgrade aborts.
    @Test(arguments: Engine.allCases)
    func storesAndIndexesAreRenamedInAnUpgrade(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let seen = try await view.run(
                Self.helpers + """
                    const first = indexedDB.open("renames", 1);
                    first.onupgradeneeded = () => {
                      const store = first.result.createObjectStore("people", { keyPath: "id" });
                      store.createIndex("byName", "name");
                      first.result.createObjectStore("other");
                      store.put({ id: 1, name: "ann" });
                    };
                    (await request(first)).close();
                    const seen = [];
                    const second = indexedDB.open("renames", 2);
                    second.onupgradeneeded = () => {
                      const tx = second.transaction, store = tx.objectStore("people"), index = store.index("byName");
                      store.name = "users";
                      index.name = "byLogin";
                      seen.push(thrown(() => { store.name = "other"; }), thrown(() => { index.name = "byLogin"; }));
                      seen.push(Array.from(second.result.objectStoreNames), store.name, Array.from(store.indexNames), index.name,
                        tx.objectStore("users") === store, thrown(() => tx.objectStore("people")));
                    };
                    const db = await request(second);
                    const tx = db.transaction("users");
                    seen.push(thrown(() => { tx.objectStore("users").name = "again"; }));
                    seen.push(await request(tx.objectStore("users").index("byLogin").get("ann")));
                    db.close();
                    const third = indexedDB.open("renames", 3);
                    third.onupgradeneeded = () => {
                      const tx = third.transaction;
                      tx.objectStore("users").name = "gone";
                      tx.objectStore("gone").index("byLogin").name = "gone";
                      tx.abort();
                    };
                    seen.push(await new Promise(resolve => { third.onerror = () => resolve(third.error.name); third.onsuccess = () => resolve("opened"); }));
                    const back = await request(indexedDB.open("renames"));
                    seen.push(back.version, Array.from(back.objectStoreNames), Array.from(back.transaction("users").objectStore("users").indexNames));
                    back.close();
                    return seen;
                    """)
            let expected: ScriptValue = [
                "ConstraintError", "none", ["other", "users"], "users", ["byLogin"], "byLogin", true, "NotFoundError",
                "InvalidStateError", ["id": 1, "name": "ann"], "AbortError", 2, ["other", "users"], ["byLogin"],
            ]
            #expect(seen == expected, "\(engine): \(seen)")
        }
    }

    /// A persistent store's databases keep `Blob`s and `File`s (WebKit refuses them in a
    /// non-persistent store's; the headless engine keeps them in both).
    @Test(arguments: Engine.allCases)
    func blobsAndFilesAreStoredWithTheirBytes(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeView(session: false, webKitStore: try ConsoleOnBothEnginesTests.persistentStore())
            _ = try await view.load(harness.url("/login"))
            let seen = try await view.run(
                Self.helpers + """
                    const open = indexedDB.open("files");
                    open.onupgradeneeded = () => open.result.createObjectStore("files");
                    const db = await request(open);
                    let tx = db.transaction("files", "readwrite");
                    tx.objectStore("files").put({ blob: new Blob(["blob bytes"], { type: "text/plain" }),
                      file: new File([new Uint8Array([104, 105])], "hi.txt", { type: "text/x-hi", lastModified: 42 }) }, "both");
                    const written = await finished(tx);
                    const files = await request(db.transaction("files").objectStore("files").get("both"));
                    return [written, files.blob instanceof Blob, files.blob.type, await files.blob.text(), files.file instanceof File,
                      files.file.name, files.file.lastModified, files.file.type, await files.file.text()];
                    """)
            #expect(seen == ["complete", true, "text/plain", "blob bytes", true, "hi.txt", 42, "text/x-hi", "hi"], "\(engine): \(seen)")
        }
    }

    /// An upgrade in one page asks the other pages of the store to close their connections,
    /// waits (`blocked`) until they have, and goes on once a page that does not close is left.
    @Test(arguments: Engine.allCases)
    func anUpgradeWaitsForThePagesOfTheStore(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let first = try await harness.makeEchoView(sharingStore: true)
            let second = try await harness.makeEchoView(sharingStore: true)
            let opened = try await first.run(
                Self.helpers + """
                    window.heard = [];
                    const db = await request(indexedDB.open("pages", 1));
                    db.onversionchange = event => {
                      window.heard.push([event.oldVersion, event.newVersion]);
                      setTimeout(() => db.close(), 20);
                    };
                    return db.version;
                    """)
            #expect(opened == 1, "\(engine)")
            let upgraded = try await second.run(
                Self.helpers + """
                    const open = indexedDB.open("pages", 2);
                    const seen = [];
                    open.onblocked = event => seen.push(["blocked", event.oldVersion, event.newVersion]);
                    open.onupgradeneeded = event => seen.push(["upgrade", event.oldVersion, event.newVersion]);
                    const db = await request(open);
                    seen.push(db.version);
                    db.close();
                    return seen;
                    """)
            #expect(upgraded == [["blocked", 1, 2], ["upgrade", 1, 2], 2], "\(engine): \(upgraded)")
            #expect(try await first.run("return window.heard;") == [[1, 2]], "\(engine)")
            // A page that does not close holds the upgrade until it navigates away.
            _ = try await first.run(Self.helpers + "window.kept = await request(indexedDB.open(\"pages\", 2)); return 1;")
            async let held = second.run(
                Self.helpers + """
                    const open = indexedDB.open("pages", 3);
                    let blocked = false;
                    open.onblocked = () => { blocked = true; localStorage.setItem("blocked", "yes"); };
                    const db = await request(open);
                    db.close();
                    return [blocked, db.version];
                    """)
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline, try await first.run("return localStorage.getItem('blocked');") != "yes" {
                try await Task.sleep(for: .milliseconds(20))
            }
            _ = try await first.load(harness.url("/login"))
            #expect(try await held == [true, 3], "\(engine)")
        }
    }
}
