import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

/// Details of what a page's requests send and read, as WebKit has them (each found by running
/// the same page on both engines): a response's URL, an `XMLHttpRequest`'s text encoding, a
/// beacon's request mode and an exported key's members.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct ResponseDetailsOnBothEnginesTests {
    /// `response.url` has no fragment, the request's or a redirect's, as Fetch serializes it.
    @Test(arguments: Engine.allCases)
    func aResponsesURLHasNoFragment(engine: Engine) async throws {
        try await withSite { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                let seen = try await view.run(
                    """
                    const path = (url) => new URL(url).pathname + new URL(url).search + new URL(url).hash;
                    const direct = await fetch("/echo?x=1#frag");
                    const redirected = await fetch("/cors/redirect?to=" + encodeURIComponent("/echo#moved"));
                    const request = await fetch(new Request("/echo#asked"));
                    return [path(direct.url), path(redirected.url), redirected.redirected, path(request.url)];
                    """)
                #expect(seen == ["/echo?x=1", "/echo", true, "/echo"], "\(engine)")
            }
        }
    }

    /// An `XMLHttpRequest`'s text is decoded by the charset its response's `Content-Type`
    /// names, or `overrideMimeType`'s (UTF-8 without one), as in WebKit: a windows-1252 page
    /// read `café €`, where the headless engine had read two U+FFFD.
    @Test(arguments: Engine.allCases)
    func anXMLHttpRequestsTextIsDecodedByItsCharset(engine: Engine) async throws {
        try await withSite { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                let seen = try await view.run(
                    """
                    const text = (url, mime) => new Promise((resolve) => {
                      const xhr = new XMLHttpRequest();
                      xhr.open("GET", url);
                      if (mime) xhr.overrideMimeType(mime);
                      xhr.onload = () => resolve(xhr.responseText);
                      xhr.onerror = () => resolve("error");
                      xhr.send();
                    });
                    const word = (t) => (/caf. ./.exec(t) || ["none"])[0];
                    return [
                      word(await text("/latin/header")),
                      word(await text("/latin/script.js")),
                      word(await text("/latin/script.js", "text/plain; charset=windows-1252")),
                      word(await (await fetch("/latin/header")).text()),
                    ];
                    """)
                #expect(seen == ["café €", "caf\u{FFFD} \u{FFFD}", "café €", "caf\u{FFFD} \u{FFFD}"], "\(engine)")
            }
        }
    }

    /// A beacon is sent in `no-cors` mode unless its body's type is one a form could not send
    /// (the Beacon standard; WebKit's `Sec-Fetch-Mode`).
    @Test(arguments: Engine.allCases)
    func aBeaconsModeIsNoCorsForAFormsTypes(engine: Engine) async throws {
        try await withSite { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                _ = try await view.evaluate(
                    """
                    navigator.sendBeacon("/beacon/text", "a=1");
                    navigator.sendBeacon("/beacon/params", new URLSearchParams("a=1"));
                    navigator.sendBeacon("/beacon/json", new Blob(["{}"], { type: "application/json" }));
                    true
                    """)
                let paths = ["/beacon/text", "/beacon/params", "/beacon/json"]
                #expect(try await eventually { paths.allSatisfy { !home.requests(to: $0).isEmpty } }, "\(engine)")
                let modes = paths.map { home.requests(to: $0).first?.fields["sec-fetch-mode"] ?? "none" }
                #expect(modes == ["no-cors", "no-cors", "cors"], "\(engine)")
            }
        }
    }

    /// An exported JSON Web Key's members come in WebIDL's order, by name, as WebKit gives them:
    /// `JSON.stringify` of a DPoP client's public key reads the same on both engines.
    @Test(arguments: Engine.allCases)
    func anExportedJSONWebKeysMembersAreInOrder(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let seen = try await view.run(
                """
                const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
                const secret = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, true, ["sign"]);
                return [
                  Object.keys(await crypto.subtle.exportKey("jwk", pair.publicKey)).join(),
                  Object.keys(await crypto.subtle.exportKey("jwk", pair.privateKey)).join(),
                  Object.keys(await crypto.subtle.exportKey("jwk", secret)).join(),
                ];
                """)
            #expect(seen == ["crv,ext,key_ops,kty,x,y", "crv,d,ext,key_ops,kty,x,y", "alg,ext,k,key_ops,kty"], "\(engine)")
        }
    }

    /// A received response without content (a `204`, a `304`, an answer to `HEAD`) has an empty
    /// body stream, as WebKit gives it; the headless engine had given `null` for the first two.
    @Test(arguments: Engine.allCases)
    func aResponseWithoutContentHasAnEmptyBody(engine: Engine) async throws {
        try await withSite { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                let seen = try await view.run(
                    """
                    const read = async (response) => [response.status, String(response.body), await response.text()].join(" ");
                    const head = await fetch("/page", { method: "HEAD" });
                    return [await read(await fetch("/status/204")), await read(await fetch("/status/304")), String(head.body) + " " + await head.text()];
                    """)
                #expect(seen == ["204 [object ReadableStream] ", "304 [object ReadableStream] ", "[object ReadableStream] "], "\(engine)")
            }
        }
    }
}
