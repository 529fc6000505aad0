import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

/// A body that starts with a UTF-8 byte order mark (as some servers send their JSON) is read
/// without it, as WebKit reads it: `text()`, `json()`, an `XMLHttpRequest`'s text and JSON, and
/// a `Blob`'s `text()`; its bytes keep it.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct ByteOrderMarkOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func aBodysByteOrderMarkIsNoPartOfItsText(engine: Engine) async throws {
        try await withSite(pages: ["/page": "<title>bom</title>", "/marked": "\u{FEFF}{\"a\":1}"]) { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                let seen = try await view.run(
                    """
                    const xhr = (type) => new Promise((resolve) => {
                      const request = new XMLHttpRequest();
                      request.open("GET", "/marked");
                      request.responseType = type;
                      request.onloadend = () => resolve(type === "json" ? JSON.stringify(request.response) : request.response);
                      request.send();
                    });
                    const response = await fetch("/marked");
                    const text = await response.clone().text();
                    let json;
                    try { json = JSON.stringify(await response.clone().json()); } catch (error) { json = error.name; }
                    const bytes = new Uint8Array(await response.arrayBuffer());
                    return [
                      text, json, bytes.length, bytes[0], await xhr(""), await xhr("json"),
                      await new Blob([new Uint8Array([0xEF, 0xBB, 0xBF, 0x41])]).text(),
                    ];
                    """)
                #expect(seen == [#"{"a":1}"#, #"{"a":1}"#, 10, 0xEF, #"{"a":1}"#, #"{"a":1}"#, "A"], "\(engine)")
            }
        }
    }
}
