import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// A page's dedicated workers (`Worker`) behave alike on both engines: a global scope of their
/// own, messages as structured clones in order, fetches through the page's cookie store,
/// `importScripts`, module workers, error events, `terminate` and `close`. (Before, the headless
/// engine had no `Worker`: a page that made one threw a `ReferenceError`.)
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct WorkersOnBothEnginesTests {
    /// A script that makes a worker from `source` (a `blob:` URL) and collects `count` of its
    /// messages, or what ended it: `["error", constructor, message, filename prefix, line]`.
    static let collect = #"""
        const worker = source => new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
        const collect = (w, count) => new Promise(resolve => {
          const got = [];
          w.onmessage = event => { got.push(event.data); if (got.length === count) resolve(got); };
          w.onerror = event => resolve(["error", event.constructor.name, event.message === undefined ? "none" : event.message, (event.filename || "").slice(0, 5), event.lineno || 0, got]);
        });
        """#

    @Test(arguments: Engine.allCases)
    func aWorkerHasAGlobalScopeOfItsOwnAndAnswersWithStructuredClonesInOrder(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let read = try await view.run(
                Self.collect + #"""
                    const w = new Worker(URL.createObjectURL(new Blob([`
                      postMessage([typeof window, typeof document, typeof localStorage, typeof webkit, self instanceof WorkerGlobalScope,
                        String(self), String(navigator), String(location).slice(0, 5), location.origin, self.name, typeof importScripts,
                        typeof indexedDB, typeof crypto.subtle]);
                      onmessage = event => {
                        const d = event.data;
                        postMessage(d.n === undefined ? [d.date instanceof Date && d.date.getTime(), d.map instanceof Map && [...d.map], d.bytes instanceof Uint8Array && Array.from(d.bytes)] : d.n);
                      };
                    `])), { name: "counter" });
                    const first = collect(w, 1);
                    const scope = (await first)[0];
                    const answers = collect(w, 21);
                    w.postMessage({ date: new Date(7), map: new Map([["a", 1]]), bytes: new Uint8Array([1, 2]) });
                    for (let n = 0; n < 20; n++) w.postMessage({ n });
                    const [clone, ...numbers] = await answers;
                    w.terminate();
                    return { scope, sameOrigin: scope[8] === location.origin, clone, numbers };
                    """#)
            let scope: ScriptValue = [
                "undefined", "undefined", "undefined", "undefined", true, "[object DedicatedWorkerGlobalScope]",
                "[object WorkerNavigator]", "blob:", .string(harness.origin.description), "counter", "function", "object", "object",
            ]
            #expect(read["scope"] == scope, "\(engine): \(read)")
            #expect(read["clone"] == [7, [["a", 1]], [1, 2]], "\(engine): \(read)")
            #expect(read["numbers"] == .array((0..<20).map { .number(Double($0)) }), "\(engine): \(read)")
        }
    }

    /// A worker's global scope has what WebKit gives a dedicated worker and nothing of a
    /// window's; `FileReaderSync` reads a blob at once.
    /// A blob URL is its origin's, not only its context's: a worker reads the one its page
    /// made, and the page the one its worker made, with `fetch` and `XMLHttpRequest`; a revoked
    /// one reads nowhere. (Before, the headless engine read a blob URL only in the context that
    /// made it: the worker's `fetch` failed.)
    @Test(arguments: Engine.allCases)
    func blobURLsAreReadBetweenAPageAndItsWorker(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let read = try await view.run(
                Self.collect + #"""
                    const made = URL.createObjectURL(new Blob(["from the page"], { type: "text/plain" }));
                    const gone = URL.createObjectURL(new Blob(["revoked"]));
                    URL.revokeObjectURL(gone);
                    const w = worker(`
                      const read = async url => {
                        try { const r = await fetch(url); return [r.status, r.headers.get("content-type"), await r.text()]; } catch (e) { return e.name; }
                      };
                      onmessage = async event => {
                        const mine = URL.createObjectURL(new Blob(["from the worker"], { type: "text/x-worker" }));
                        postMessage([await read(event.data[0]), await read(event.data[1]), mine]);
                      };
                    `);
                    const answer = collect(w, 1);
                    w.postMessage([made, gone]);
                    const [[fromPage, revoked, mine]] = await answer;
                    const r = await fetch(mine);
                    const fromWorker = [r.status, r.headers.get("content-type"), await r.text()];
                    const xhr = await new Promise(resolve => {
                      const x = new XMLHttpRequest();
                      x.open("GET", mine);
                      x.onload = () => resolve([x.status, x.responseText]);
                      x.onerror = () => resolve("error");
                      x.send();
                    });
                    w.terminate();
                    return { fromPage, revoked, fromWorker, xhr };
                    """#)
            #expect(read["fromPage"] == [200, "text/plain", "from the page"], "\(engine): \(read)")
            #expect(read["revoked"] == "TypeError", "\(engine): \(read)")
            #expect(read["fromWorker"] == [200, "text/x-worker", "from the worker"], "\(engine): \(read)")
            #expect(read["xhr"] == [200, "from the worker"], "\(engine): \(read)")
        }
    }

    @Test(arguments: Engine.allCases)
    func aWorkersScopeHasAWorkersMembers(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let read = try await view.run(
                Self.collect + #"""
                    const [answer] = await collect(worker(`
                      const names = ["FileReaderSync", "WorkerLocation", "WorkerNavigator", "WorkerGlobalScope", "DedicatedWorkerGlobalScope",
                        "importScripts", "postMessage", "close", "fetch", "crypto", "indexedDB", "BroadcastChannel", "MessageChannel", "WebSocket",
                        "EventSource", "XMLHttpRequest", "Worker", "requestAnimationFrame", "structuredClone", "performance",
                        "document", "window", "localStorage", "sessionStorage", "alert", "history", "open", "opener", "parent", "top",
                        "onmessage", "onerror", "onlanguagechange", "onload"];
                      const reader = new FileReaderSync(), blob = new Blob(["h\\u00e9"], { type: "text/plain" });
                      postMessage([names.filter(name => !(name in self)), location instanceof WorkerLocation, navigator instanceof WorkerNavigator,
                        reader.readAsText(blob), reader.readAsDataURL(blob), new Uint8Array(reader.readAsArrayBuffer(blob)).length]);
                    `), 1);
                    return answer;
                    """#)
            let expected: ScriptValue = [
                [
                    "document", "window", "localStorage", "sessionStorage", "alert", "history", "open", "opener", "parent", "top",
                    "onlanguagechange", "onload",
                ],
                true, true, "hé", "data:text/plain;base64,aMOp", 3,
            ]
            #expect(read == expected, "\(engine): \(read)")
        }
    }

    /// A worker starts workers of its own: a nested worker from a `blob:` URL the worker made,
    /// its answers relayed to the page; it goes with the worker that started it.
    @Test(arguments: Engine.allCases)
    func aWorkerStartsWorkersOfItsOwn(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let read = try await view.run(
                Self.collect + #"""
                    const [answer] = await collect(worker(`
                      const inner = new Worker(URL.createObjectURL(new Blob(["postMessage([self.name, typeof document, location.protocol])"])), { name: "inner" });
                      inner.onmessage = event => postMessage(["relayed", ...event.data]);
                    `), 1);
                    return answer;
                    """#)
            #expect(read == ["relayed", "inner", "undefined", "blob:"], "\(engine): \(read)")
        }
    }

    /// A `MessagePort` moves to a worker and back with a message, as authentication SDKs send
    /// their worker a request with the port its answer comes back on (auth0-spa-js does, each
    /// request a channel of its own), and as RPC libraries pass ports inside their messages.
    @Test(arguments: Engine.allCases)
    func portsMoveToAWorkerAndBack(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let read = try await view.run(
                Self.collect + #"""
                    const w = worker(`
                      addEventListener("message", ({ data, ports: [port] }) => {
                        if (data.kind === "ask") { port.postMessage({ answer: data.n * 2, ports: 1 }); return; }
                        // A port inside the message: the worker answers on it, and sends one of its own back.
                        const channel = new MessageChannel();
                        channel.port1.onmessage = event => { data.reply.postMessage("worker heard " + event.data); };
                        data.reply.postMessage({ back: channel.port2 }, [channel.port2]);
                      });
                    `);
                    const ask = n => new Promise(resolve => {
                      const channel = new MessageChannel();
                      channel.port1.onmessage = event => { resolve([event.data.answer, event.ports.length]); channel.port1.close(); };
                      w.postMessage({ kind: "ask", n }, [channel.port2]);
                    });
                    const answers = await Promise.all([ask(1), ask(2), ask(3)]);
                    const channel = new MessageChannel();
                    const replies = [];
                    const heard = new Promise(resolve => {
                      channel.port1.onmessage = event => {
                        replies.push(event.data);
                        if (event.data.back instanceof MessagePort) event.data.back.postMessage("page");
                        else resolve();
                      };
                    });
                    w.postMessage({ kind: "nested", reply: channel.port2 }, [channel.port2]);
                    await heard;
                    let again;
                    try { w.postMessage({}, [channel.port2]); } catch (error) { again = error.name; }
                    return [answers, replies.length, replies[1], again];
                    """#)
            #expect(read == [[[2, 0], [4, 0], [6, 0]], 2, "worker heard page", "DataCloneError"], "\(engine): \(read)")
        }
    }

    /// A worker loaded from the network runs under its script's own Content Security Policy,
    /// not its document's; a worker made from a `blob:` URL runs under its document's.
    @Test(arguments: Engine.allCases)
    func aWorkerRunsUnderItsScriptsPolicyOrItsDocumentsForABlob(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let probe = """
                try { eval("1"); postMessage("eval ran"); } catch (error) { postMessage("eval " + error.name); }
                fetch(self.origin + "/login").then(response => postMessage("fetched " + response.status), error => postMessage("refused " + error.message));
                """
            harness.server.serve(
                path: "/workers/own-policy.js", body: probe, contentType: "text/javascript",
                headers: ["Content-Security-Policy": "connect-src 'none'; script-src 'self'"])
            harness.server.serve(path: "/workers/no-policy.js", body: probe, contentType: "text/javascript")
            harness.server.serve(
                path: "/workers/strict", body: "<title>strict</title>", contentType: "text/html",
                headers: ["Content-Security-Policy": "connect-src 'none'; script-src 'self' 'unsafe-inline'; worker-src 'self' blob:"])
            let view = try await harness.makeEchoView()
            let run = { (url: String) in
                """
                const w = new Worker(\(url));
                return await new Promise(resolve => { const got = []; w.onmessage = event => { got.push(event.data); if (got.length === 2) resolve(got); }; });
                """
            }
            let own = try await view.run(run("\"/workers/own-policy.js\""))
            _ = try await view.load(harness.url("/workers/strict"))
            let plain = try await view.run(run("\"/workers/no-policy.js\""))
            let blob = try await view.run(
                run("URL.createObjectURL(new Blob([\(String(decoding: try JSONEncoder().encode(probe), as: UTF8.self))]))"))
            #expect(own == ["eval EvalError", "refused Load failed"], "\(engine): \(own)")
            #expect(plain == ["eval ran", "fetched 200"], "\(engine): \(plain)")
            #expect(blob == ["eval EvalError", "refused Load failed"], "\(engine): \(blob)")
        }
    }

    /// A transfer list moves its `ArrayBuffer`s both ways: the sender's is detached.
    @Test(arguments: Engine.allCases)
    func aTransferListMovesItsBuffers(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let read = try await view.run(
                Self.collect + #"""
                    const w = worker(`onmessage = event => {
                      const bytes = new Uint8Array(event.data.buffer);
                      const back = new Uint8Array(bytes.map(byte => byte * 2)).buffer;
                      postMessage({ back }, [back]);
                      postMessage(back.byteLength);
                    };`);
                    const buffer = new Uint8Array([1, 2, 3]).buffer;
                    const answers = collect(w, 2);
                    w.postMessage({ buffer }, { transfer: [buffer] });
                    const sentLength = buffer.byteLength;
                    const [first, second] = await answers;
                    w.terminate();
                    return [sentLength, Array.from(new Uint8Array(first.back)), second];
                    """#)
            #expect(read == [0, [2, 4, 6], 0], "\(engine): \(read)")
        }
    }

    @Test(arguments: Engine.allCases)
    func aWorkersRequestsUseThePagesCookiesAndImportScriptsRunsScriptsInOrder(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            harness.server.serve(
                path: "/workers/set-cookie", body: "{}", contentType: "application/json",
                headers: ["Set-Cookie": "from_worker=w1; Path=/; Secure; SameSite=Lax"])
            harness.server.serve(
                path: "/workers/a.js", body: "self.order = (self.order || []).concat('a');", contentType: "text/javascript")
            harness.server.serve(
                path: "/workers/b.js", body: "self.order = (self.order || []).concat('b');", contentType: "text/javascript")
            harness.server.serve(
                path: "/workers/main.js",
                body: """
                    importScripts("a.js", "b.js");
                    let missing;
                    try { importScripts("missing.js"); } catch (error) { missing = error.name; }
                    fetch("/workers/set-cookie").then(response => postMessage([self.order, missing, location.pathname, response.status]));
                    """, contentType: "text/javascript")
            let view = try await harness.makeEchoView()
            let read = try await view.run(
                Self.collect + #"""
                    const [answer] = await collect(new Worker("/workers/main.js"), 1);
                    return [answer, document.cookie.split("; ").includes("from_worker=w1")];
                    """#)
            #expect(read == [[["a", "b"], "NetworkError", "/workers/main.js", 200], true], "\(engine): \(read)")
        }
    }

    @Test(arguments: Engine.allCases)
    func aModuleWorkerLoadsItsGraph(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            harness.server.serve(path: "/workers/lib.js", body: "export const value = 5;", contentType: "text/javascript")
            harness.server.serve(
                path: "/workers/module.js",
                body:
                    "import { value } from './lib.js'; postMessage(['static', value]); import('./lib.js').then(m => postMessage(['dynamic', m.value]));",
                contentType: "text/javascript")
            let view = try await harness.makeEchoView()
            let read = try await view.run(
                Self.collect + #"""
                    const served = await collect(new Worker("/workers/module.js", { type: "module" }), 2);
                    const inline = await collect(new Worker(URL.createObjectURL(new Blob([`import { value } from "${location.origin}/workers/lib.js"; postMessage(value * 2);`])), { type: "module" }), 1);
                    return [served, inline];
                    """#)
            #expect(read == [[["static", 5], ["dynamic", 5]], [10]], "\(engine): \(read)")
        }
    }

    @Test(arguments: Engine.allCases)
    func aWorkersErrorsReachItsWorkerObjectUnlessItCancelsThem(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let read = try await view.run(
                Self.collect + #"""
                    const w = worker(`onmessage = () => { throw new TypeError("boom"); };`);
                    const uncaught = collect(w, 1);
                    w.postMessage(1);
                    const cancelled = worker(`addEventListener("error", event => { event.preventDefault(); postMessage("handled " + event.message); });
                      onmessage = () => { throw new RangeError("kept"); };`);
                    const handled = collect(cancelled, 1);
                    cancelled.postMessage(1);
                    const missing = await collect(new Worker("/workers/not-there.js"), 1);
                    let crossOrigin;
                    try { new Worker("https://example.com/worker.js"); } catch (error) { crossOrigin = [error.name, error.message]; }
                    return [await uncaught, await handled, missing, crossOrigin];
                    """#)
            let expected: ScriptValue = [
                ["error", "ErrorEvent", "TypeError: boom", "blob:", 1, []], ["handled RangeError: kept"],
                ["error", "Event", "none", "", 0, []], ["SecurityError", "The operation is insecure."],
            ]
            #expect(read == expected, "\(engine): \(read)")
        }
    }

    @Test(arguments: Engine.allCases)
    func terminateAndCloseEndAWorker(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let read = try await view.run(
                Self.collect + #"""
                    const pause = ms => new Promise(resolve => setTimeout(resolve, ms));
                    // It posts what it has, closes, and posts once more in the same task; its timer never runs.
                    const closing = worker(`onmessage = () => { postMessage(1); close(); postMessage(2); setTimeout(() => postMessage(3), 5); };`);
                    const closed = [];
                    closing.onmessage = event => closed.push(event.data);
                    closing.postMessage("go");
                    for (let turn = 0; turn < 300 && closed.length < 2; turn++) await pause(10);
                    await pause(100);
                    closing.postMessage("again");
                    await pause(100);
                    // A terminated worker's messages, even those already posted, never arrive.
                    const ticking = worker(`setInterval(() => postMessage("tick"), 1); postMessage("started");`);
                    await collect(ticking, 1);
                    ticking.terminate();
                    let late = 0;
                    ticking.onmessage = () => { late++; };
                    await pause(200);
                    return [closed, late];
                    """#)
            #expect(read == [[1, 2], 0], "\(engine): \(read)")
        }
    }

    /// A document's workers go with it: once its page has loaded another document, a worker
    /// that was telling another page of the same store something every few milliseconds says
    /// nothing more.
    @Test(arguments: Engine.allCases)
    func aDocumentsWorkersGoWithIt(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let listener = try await harness.makeEchoView(sharingStore: true)
            let owner = try await harness.makeEchoView(sharingStore: true)
            _ = try await listener.run(
                """
                window.ticks = 0;
                window.ticking = new Promise(resolve => { new BroadcastChannel("ticks").onmessage = () => { window.ticks++; resolve(); }; });
                return 1;
                """)
            _ = try await owner.run(
                Self.collect + #"""
                    window.ticker = worker(`const channel = new BroadcastChannel("ticks"); setInterval(() => channel.postMessage("tick"), 5); postMessage("started");`);
                    await collect(window.ticker, 1);
                    return 1;
                    """#)
            let before = try await listener.run("await window.ticking; return window.ticks > 0;")
            _ = try await owner.load(harness.url("/login?next=1"))
            let after = try await listener.run(
                """
                const pause = ms => new Promise(resolve => setTimeout(resolve, ms));
                // Waits (3 s at most) for a tenth of a second without a tick, then counts 400 ms more.
                for (let turn = 0; turn < 30; turn++) {
                  const before = window.ticks;
                  await pause(100);
                  if (window.ticks === before) break;
                }
                const settled = window.ticks;
                await pause(400);
                return window.ticks - settled;
                """)
            #expect(before == true, "\(engine)")
            #expect(after == 0, "\(engine): \(after)")
        }
    }

    /// A document's Content Security Policy decides which workers it may start (`worker-src`,
    /// falling back to `child-src`, `script-src`, then `default-src`): a refused one throws
    /// WebKit's `SecurityError` and fires `securitypolicyviolation`.
    @Test(arguments: Engine.allCases)
    func aDocumentsPolicyDecidesWhichWorkersItMayStart(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            harness.server.serve(path: "/workers/plain.js", body: "postMessage('ran');", contentType: "text/javascript")
            let policies = [
                "script-src 'self' 'unsafe-inline'", "child-src 'none'; script-src 'self' blob: 'unsafe-inline'", "worker-src 'self' blob:",
            ]
            var read: [ScriptValue] = []
            for (index, policy) in policies.enumerated() {
                harness.server.serve(
                    path: "/workers/policy\(index)", body: "<title>policy</title>", contentType: "text/html",
                    headers: ["Content-Security-Policy": policy])
                let view = try await harness.makeEchoView()
                _ = try await view.load(harness.url("/workers/policy\(index)"))
                read.append(
                    try await view.run(
                        #"""
                        const events = [];
                        document.addEventListener("securitypolicyviolation", event => events.push([event.effectiveDirective, event.blockedURI.slice(0, 5)]));
                        const attempt = url => {
                          try {
                            const w = new Worker(url);
                            return new Promise(resolve => { w.onmessage = event => resolve(event.data); w.onerror = () => resolve("error event"); });
                          } catch (error) { return Promise.resolve([error.name, error.message]); }
                        };
                        const fromBlob = await attempt(URL.createObjectURL(new Blob(["postMessage('ran')"])));
                        const sameOrigin = await attempt("/workers/plain.js");
                        await new Promise(resolve => setTimeout(resolve, 20));
                        return [fromBlob, sameOrigin, events];
                        """#))
            }
            let refused: ScriptValue = ["SecurityError", "The operation is insecure."]
            let expected: [ScriptValue] = [
                [refused, "ran", [["worker-src", "blob"]]],
                [refused, refused, [["worker-src", "blob"], ["worker-src", "https"]]],
                ["ran", "ran", []],
            ]
            #expect(read == expected, "\(engine): \(read)")
        }
    }

    /// The pages of one origin sharing a data store connect to one shared worker by its URL and
    /// name: each `SharedWorker` gets a port to it, the worker a `connect` event with the other
    /// end, and what one page sends can reach the others through it.
    @Test(arguments: Engine.allCases)
    func pagesConnectToOneSharedWorker(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            harness.server.serve(
                path: "/workers/shared.js",
                body: """
                    const ports = [];
                    onconnect = event => {
                      const port = event.ports[0];
                      ports.push(port);
                      port.onmessage = message => { for (const each of ports) each.postMessage("heard " + message.data); };
                      port.postMessage([ports.length, self.name, String(self), typeof postMessage, event.source === port]);
                    };
                    """, contentType: "text/javascript")
            let first = try await harness.makeEchoView(sharingStore: true)
            let second = try await harness.makeEchoView(sharingStore: true)
            let connect = #"""
                window.shared = new SharedWorker("/workers/shared.js", NAME);
                window.heard = [];
                const hello = await new Promise(resolve => {
                  window.shared.port.onmessage = event => { if (Array.isArray(event.data)) resolve(event.data); else window.heard.push(event.data); };
                  window.shared.onerror = () => resolve("error");
                });
                return hello;
                """#
            let one = try await first.run(connect.replacingOccurrences(of: "NAME", with: "\"one\""))
            let two = try await second.run(connect.replacingOccurrences(of: "NAME", with: "\"one\""))
            let other = try await second.run(
                """
                const other = new SharedWorker("/workers/shared.js", { name: "two" });
                return await new Promise(resolve => { other.port.onmessage = event => resolve(event.data); });
                """)
            _ = try await second.run("window.shared.port.postMessage('from second'); return 1;")
            let heard = try await first.run(
                """
                for (let turn = 0; turn < 500 && window.heard.length === 0; turn++) await new Promise(resolve => setTimeout(resolve, 10));
                return window.heard;
                """)
            #expect(one == [1, "one", "[object SharedWorkerGlobalScope]", "undefined", true], "\(engine): \(one)")
            #expect(two == [2, "one", "[object SharedWorkerGlobalScope]", "undefined", true], "\(engine): \(two)")
            #expect(other == [1, "two", "[object SharedWorkerGlobalScope]", "undefined", true], "\(engine): \(other)")
            #expect(heard == ["heard from second"], "\(engine): \(heard)")
        }
    }
}
