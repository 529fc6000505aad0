import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeWebKit
import Testing

/// The Cache API (`caches`, `CacheStorage`, `Cache`), side by side: what a page's service-worker
/// library or its sign-out code (`caches.keys()`, then `caches.delete` of each) does with it.
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct CacheStorageOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func cachesStoreMatchAndRefuseAsWebKitDoes(engine: Engine) async throws {
        try await withSite(pages: ["/page": "<title>caches</title>", "/asset": "<p>an asset</p>"]) { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                let seen = try await view.run(
                    """
                    const out = [], failure = async (promise) => { try { await promise; return "resolved"; } catch (e) { return e.name + ": " + e.message; } };
                    out.push(Object.prototype.toString.call(caches), typeof CacheStorage, typeof Cache);
                    const c = await caches.open("v1");
                    out.push(Object.prototype.toString.call(c), c instanceof Cache, await caches.has("v1"), await caches.has("v0"));
                    await c.put("/a?x=1#f", new Response("hello", { headers: { "X-Test": "1" } }));
                    const r = await c.match("/a?x=1");
                    out.push(Object.prototype.toString.call(r), r.status, r.headers.get("x-test"), await r.text());
                    out.push(await c.match("/a") === undefined, (await c.match("/a", { ignoreSearch: true })) !== undefined);
                    const post = new Request("/a?x=1", { method: "POST" });
                    out.push(await c.match(post) === undefined, (await c.match(post, { ignoreMethod: true })) !== undefined);
                    await c.add("/asset");
                    out.push((await c.keys()).map((k) => k.url.replace(location.origin, "") + " " + k.method));
                    const asset = await caches.match("/asset");
                    out.push(asset.type, asset.url.replace(location.origin, ""), await asset.text());
                    out.push(await failure(c.put(new Request("/p", { method: "POST" }), new Response("x"))));
                    out.push(await failure(c.put("/v", new Response("x", { headers: { Vary: "*" } }))));
                    out.push(await failure(c.put("/p", new Response("x", { status: 206 }))));
                    const used = new Response("u"); await used.text();
                    out.push(await failure(c.put("/u", used)));
                    out.push(await failure(c.put("data:text/plain,x", new Response("x"))));
                    out.push(await failure(c.add("/status/404")));
                    out.push(await failure(caches.open()));
                    await c.put("/vary", new Response("de", { headers: { Vary: "Accept-Language" } }));
                    const french = new Request("/vary", { headers: { "Accept-Language": "fr" } });
                    out.push(await c.match(french) === undefined, (await c.match(french, { ignoreVary: true })) !== undefined);
                    out.push(await c.delete("/a?x=1"), await c.delete("/a?x=1"));
                    await c.put("/asset", new Response("replaced"));
                    out.push((await c.matchAll()).length, await (await c.match("/asset")).text());
                    const other = await caches.open("v2");
                    await other.put("/only2", new Response("two"));
                    out.push(await caches.keys(), await (await caches.match("/only2")).text(), await caches.match("/only2", { cacheName: "v1" }) === undefined);
                    // A deleted cache leaves the names; its Cache object goes on with its pairs.
                    out.push(await caches.delete("v1"), await caches.has("v1"), await caches.keys());
                    out.push(await (await c.match("/asset")).text(), (await (await caches.open("v1")).keys()).length);
                    return out;
                    """)
                let expected: ScriptValue = [
                    "[object CacheStorage]", "function", "function",
                    "[object Cache]", true, true, false,
                    "[object Response]", 200, "1", "hello",
                    true, true,
                    true, true,
                    ["/a?x=1#f GET", "/asset GET"],
                    "basic", "/asset", "<p>an asset</p>",
                    "TypeError: Request method is not GET",
                    "TypeError: Response has a '*' Vary header value",
                    "TypeError: Response is a 206 partial",
                    "TypeError: Response is disturbed or locked",
                    "TypeError: Request url is not HTTP/HTTPS",
                    "TypeError: Response is not OK",
                    "TypeError: Not enough arguments",
                    true, true,
                    true, false,
                    2, "replaced",
                    ["v1", "v2"], "two", true,
                    true, false, ["v2"],
                    "replaced", 0,
                ]
                #expect(seen == expected, "\(engine)")
            }
        }
    }

    /// A data store's pages share their origin's caches; another store's pages do not see them,
    /// and removing the store's data (an app's "clear all web data" at sign-out) removes them.
    @Test(arguments: Engine.allCases)
    func cachesAreTheDataStoresAndGoWithItsData(engine: Engine) async throws {
        try await withSite(pages: ["/page": "<title>caches</title>"]) { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let first = try await harness.makeEchoView(sharingStore: true)
                let second = try await harness.makeEchoView(sharingStore: true)
                let apart = try await harness.makeEchoView()
                for view in [first, second, apart] { _ = try await view.load(home.url("/page")) }
                _ = try await first.run(#"await (await caches.open("app")).put("/token-free", new Response("kept")); return true;"#)
                let read =
                    #"const found = await caches.match("/token-free"); return [await caches.keys(), found ? await found.text() : null];"#
                #expect(try await second.run(read) == [["app"], "kept"], "\(engine)")
                #expect(try await apart.run(read) == [[], .null], "\(engine)")
                try await harness.removeAllSharedData()
                #expect(try await second.run(read) == [[], .null], "\(engine)")
            }
        }
    }
}
