import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeWebKit
import Testing

/// The URLs a page's requests name, resolved as the URL Standard (and WebKit) resolves them,
/// side by side: spaces, tabs and newlines, backslashes, escapes already there, non-ASCII text,
/// case and default ports, dot segments; and the URLs `fetch` refuses (one with credentials,
/// which `XMLHttpRequest` takes).
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct URLResolutionOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func requestURLsResolveAsTheURLStandardHasIt(engine: Engine) async throws {
        try await withSite(pages: ["/dir/page": #"<meta charset="utf-8"><title>urls</title>"#]) { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/dir/page"))
                let seen = try await view.run(
                    #"""
                    const inputs = ["a b", "\\x\\y", " /lead ", "/t\tab", "/n\nl", "/ünï", "?q=1 2", "#f", "../../../up", "HTTP://127.0.0.1:80/x",
                      "http://EXAMPLE.com/%7e", "http://bücher.example/", "/p?ü=é", "/a/./b/../c", "/a/%2e%2E/c", "/x#a b", "", "/é%20", "javascript:1"];
                    const urls = inputs.map((input) => new Request(input).url.replace(location.origin, "O"));
                    const refused = [];
                    for (const input of ["http://user:pw@127.0.0.1/", "http://[::1"]) {
                      try { new Request(input); refused.push("made"); } catch (error) { refused.push(error.name + ": " + error.message); }
                      refused.push(await fetch(input).then(() => "fetched", (error) => error.name + ": " + error.message));
                    }
                    for (const path of ["\\status\\204", " /status/./x/../204\t", "/status/%32%30%34/../204"]) await fetch(path);
                    // XMLHttpRequest takes a URL with credentials.
                    const xhr = await new Promise((resolve) => {
                      const request = new XMLHttpRequest();
                      request.open("GET", location.origin.replace("://", "://user:pw@") + "/status/204");
                      request.onload = () => resolve(request.status);
                      request.onerror = () => resolve("error");
                      request.send();
                    });
                    return [urls, refused, xhr];
                    """#)
                let expected: ScriptValue = [
                    [
                        "O/dir/a%20b", "O/x/y", "O/lead", "O/tab", "O/nl", "O/%C3%BCn%C3%AF", "O/dir/page?q=1%202", "O/dir/page#f", "O/up",
                        "http://127.0.0.1/x", "http://example.com/%7e", "http://xn--bcher-kva.example/", "O/p?%C3%BC=%C3%A9", "O/a/c",
                        "O/c",
                        "O/x#a%20b", "O/dir/page", "O/%C3%A9%20", "javascript:1",
                    ],
                    Array(repeating: "TypeError: URL is not valid or contains user credentials.", count: 4).map(ScriptValue.string)
                        .scriptArray,
                    204,
                ]
                #expect(seen == expected, "\(engine)")
                #expect(home.requests(to: "/status/204").count == 4, "\(engine)")
            }
        }
    }

    /// `new URL`'s refusals read as WebKit's: the base named only when the base does not parse.
    @Test(arguments: Engine.allCases)
    func urlRefusalsReadAsWebKits(engine: Engine) async throws {
        try await withSite(pages: ["/page": "<title>urls</title>"]) { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                let seen = try await view.run(
                    #"""
                    const out = [];
                    for (const [input, base] of [["/x", "blob:http://a/b"], ["http://[", undefined], ["a", "b"], ["", "about:blank"]]) {
                      try { out.push(new URL(input, base).href); } catch (error) { out.push(error.name + ": " + error.message); }
                    }
                    return out;
                    """#)
                let expected: ScriptValue = [
                    #"TypeError: "/x" cannot be parsed as a URL."#, #"TypeError: "http://[" cannot be parsed as a URL."#,
                    #"TypeError: "a" cannot be parsed as a URL against "b"."#, #"TypeError: "" cannot be parsed as a URL."#,
                ]
                #expect(seen == expected, "\(engine)")
            }
        }
    }
}

extension Array where Element == ScriptValue {
    fileprivate var scriptArray: ScriptValue { .array(self) }
}
