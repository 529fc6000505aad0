import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// Random sequences of IndexedDB operations (keys of every type, ranges, indexes, cursors in
/// every direction, failing adds, aborted transactions), run from the same seeds on both engines:
/// the headless engine's answers are WebKit's, operation by operation.
@Suite(.serialized, .timeLimit(.minutes(4)), .hangWatchdog) struct IndexedDBDifferentialTests {
    static let seeds = 1...100

    static let script = """
        const request = r => new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
        const finished = tx => new Promise(resolve => {
          tx.oncomplete = () => resolve("complete");
          tx.onabort = () => resolve(["abort", tx.error === null ? null : tx.error.name]);
        });
        // A small generator of its own (mulberry32), so that both engines draw the same.
        const generator = seed => () => {
          seed = (seed + 0x6D2B79F5) | 0;
          let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
          t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
          return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
        };
        const shown = value => {
          if (value instanceof Date) return "D" + value.getTime();
          if (value instanceof ArrayBuffer) return "B" + Array.from(new Uint8Array(value)).join(".");
          if (Array.isArray(value)) return value.map(shown);
          if (value !== null && typeof value === "object") {
            const out = {};
            for (const key of Object.keys(value).sort()) out[key] = shown(value[key]);
            return out;
          }
          return value === undefined ? "undefined" : value;
        };
        const results = [];
        for (const seed of SEEDS) {
          const random = generator(seed);
          const pick = list => list[Math.floor(random() * list.length)];
          const keys = [() => -1, () => 0, () => 1, () => 2.5, () => 10, () => "", () => "a", () => "aa", () => "b", () => new Date(0),
            () => new Date(5), () => [], () => [1], () => [1, "a"], () => new Uint8Array([1]), () => new Uint8Array([1, 2])];
          const key = () => pick(keys)();
          const range = () => {
            const kind = pick(["key", "only", "lower", "upper", "bound", "null"]);
            if (kind === "key") return key();
            if (kind === "only") return IDBKeyRange.only(key());
            if (kind === "lower") return IDBKeyRange.lowerBound(key(), random() < 0.5);
            if (kind === "upper") return IDBKeyRange.upperBound(key(), random() < 0.5);
            if (kind === "null") return null;
            let a = key(), b = key();
            if (indexedDB.cmp(a, b) > 0) [a, b] = [b, a];
            const same = indexedDB.cmp(a, b) === 0;
            return IDBKeyRange.bound(a, b, !same && random() < 0.5, !same && random() < 0.5);
          };
          const value = () => ({ n: Math.floor(random() * 4), tags: [pick(["x", "y", "z"]), pick(["x", "w"])], at: new Date(Math.floor(random() * 3)) });
          const name = "db" + seed;
          const open = indexedDB.open(name);
          open.onupgradeneeded = () => {
            const store = open.result.createObjectStore("s");
            store.createIndex("n", "n");
            store.createIndex("tags", "tags", { multiEntry: true });
            store.createIndex("at", "at");
          };
          const db = await request(open);
          const log = [];
          // Each round: a read-write transaction of writes and reads, then a read-only one whose
          // cursors walk while nothing changes (WebKit's cursors answer otherwise than the
          // standard when records change under them: they repeat or skip records).
          const place = (store, op, asked) => {
            let r;
            try {
              if (op === "put") r = store.put(value(), key());
              else if (op === "add") r = store.add(value(), key());
              else if (op === "delete") r = store.delete(range() ?? key());
              else if (op === "get") r = store.get(range() ?? key());
              else if (op === "getAll") r = store.getAll(range(), Math.floor(random() * 3));
              else if (op === "getAllKeys") r = store.getAllKeys(range(), Math.floor(random() * 3));
              else if (op === "count") r = store.count(range());
              else if (op === "index") {
                const index = store.index(pick(["n", "tags", "at"]));
                const query = random() < 0.5 ? null : pick([0, 1, 2, 3, "x", "y", "w", new Date(1)]);
                r = pick([() => index.getAll(query), () => index.getAllKeys(query), () => index.count(query), () => index.get(query ?? 0)])();
              } else {
                const source = random() < 0.5 ? store : store.index(pick(["n", "tags", "at"]));
                const direction = pick(["next", "nextunique", "prev", "prevunique"]);
                const query = source === store ? range() : pick([null, 1, "x", IDBKeyRange.bound(0, 2, false, true)]);
                const jump = random() < 0.3;
                const walked = [];
                const withValue = random() < 0.5;
                // A key, not a range: WebKit's key cursor over it answers with values (a key cursor
                // of the standard has none), so key cursors are given the key's range.
                const cursorRange = !withValue && query !== null && !(query instanceof IDBKeyRange) ? IDBKeyRange.only(query) : query;
                r = withValue ? source.openCursor(cursorRange, direction) : source.openKeyCursor(cursorRange, direction);
                asked.push(new Promise(resolve => {
                  r.onsuccess = () => {
                    const cursor = r.result;
                    if (cursor === null || walked.length > 20) return resolve([op, direction, withValue, jump, walked]);
                    walked.push([shown(cursor.key), shown(cursor.primaryKey), "value" in cursor ? shown(cursor.value).n : "-"]);
                    // Now and then a jump two steps ahead, or to a key past this one.
                    if (jump && walked.length === 1) cursor.advance(2);
                    else cursor.continue();
                  };
                  r.onerror = event => { event.preventDefault(); resolve([op, "error", r.error.name]); };
                }));
                return;
              }
            } catch (error) {
              asked.push(Promise.resolve([op, "threw", error.name]));
              return;
            }
            asked.push(new Promise(resolve => {
              r.onsuccess = () => resolve([op, shown(r.result)]);
              r.onerror = event => { event.preventDefault(); resolve([op, "error", r.error.name]); };
            }));
          };
          for (let round = 0; round < 4; round++) {
            let tx = db.transaction("s", "readwrite");
            let store = tx.objectStore("s");
            let asked = [];
            for (let step = 0; step < 12; step++) place(store, pick(["put", "put", "add", "delete", "get", "getAll", "getAllKeys", "count", "index"]), asked);
            const answers = await Promise.all(asked);
            // The third round's changes are undone.
            if (round === 2) tx.abort();
            log.push(answers, await finished(tx));
            tx = db.transaction("s");
            store = tx.objectStore("s");
            asked = [];
            for (let step = 0; step < 6; step++) place(store, pick(["cursor", "cursor", "getAll", "index"]), asked);
            log.push(await Promise.all(asked), await finished(tx));
          }
          const final = db.transaction("s");
          log.push(shown(await request(final.objectStore("s").getAllKeys())), shown(await request(final.objectStore("s").index("tags").getAllKeys())));
          db.close();
          results.push(JSON.stringify(log));
        }
        return results;
        """

    @Test func randomOperationSequencesAnswerAsWebKitAnswers() async throws {
        let source = Self.script.replacingOccurrences(of: "SEEDS", with: "[" + Self.seeds.map(String.init).joined(separator: ",") + "]")
        var answers: [Engine: [String]] = [:]
        for engine in Engine.allCases {
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                let result = try await view.callAsyncJavaScript(source, in: .page, timeout: .seconds(120))
                guard case .array(let elements) = result else { return }
                answers[engine] = elements.compactMap(\.stringValue)
            }
        }
        let headless = answers[.headless] ?? [], webkit = answers[.webkit] ?? []
        #expect(headless.count == Self.seeds.count && webkit.count == Self.seeds.count)
        for (index, seed) in Self.seeds.enumerated() where index < min(headless.count, webkit.count) {
            #expect(headless[index] == webkit[index], "seed \(seed): \(Self.firstDifference(headless[index], webkit[index]))")
        }
    }

    /// Where two answers part, with some of what comes before.
    static func firstDifference(_ a: String, _ b: String) -> String {
        let x = Array(a.utf8), y = Array(b.utf8)
        var at = 0
        while at < min(x.count, y.count), x[at] == y[at] { at += 1 }
        let from = max(0, at - 200)
        let shown = { (bytes: [UInt8]) in String(decoding: bytes[from..<min(bytes.count, at + 120)], as: UTF8.self) }
        return "at \(at):\nheadless …\(shown(x))\nwebkit   …\(shown(y))"
    }
}
