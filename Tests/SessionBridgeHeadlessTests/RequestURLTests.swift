import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeHeadless

/// The URL a request names resolves as the page's own `URL` does (the URL Standard's parser,
/// which passes web-platform-tests' cases), over thousands of inputs made of the parts that
/// tell parsers apart: dot segments (`%2e` too), backslashes, spaces, tabs and newlines,
/// escapes, non-ASCII text, a query and a fragment, a scheme and host in capitals, a default
/// port, a colon. Left out: what comes out escaped where the standard leaves it (a lone `%`,
/// `|`, `^`, `[`, `]`; a `\` or a second `#` in the fragment), as the engine documents.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct RequestURLTests {
    @Test func aRequestsURLIsTheURLStandardsOverThousandsOfInputs() async throws {
        let page = WebPage()
        try await page.loadHTMLString("<p>urls</p>", baseURL: URL(string: "https://app.example/dir/page?x=1#top")!)
        let outcome = try await page.callAsyncJavaScript(
            #"""
            const parts = ["a", "..", ".", "%2e", "%2E%2e", "b c", "\\", "/", "é", "%41", "%zz", "?q", "#f", "//", "HTTP://EXAMPLE.com:443/",
              "https://Example.COM:8443", "\t", "\n", " ", "ü=", "x.y", ":"];
            const mismatches = [];
            let compared = 0, refusedBoth = 0;
            let state = 7;
            const next = () => { state = (state * 1103515245 + 12345) % 2147483648; return state; };
            for (let round = 0; round < 4000; round++) {
              let input = "";
              for (let count = 1 + next() % 5; count > 0; count--) input += parts[next() % parts.length];
              let expected = null, actual = null;
              try { expected = new URL(input, document.baseURI).href; } catch {}
              try { actual = new Request(input).url; } catch {}
              if (expected !== null && /[|^\[\]\\]|%(?![0-9A-Fa-f]{2})|#.*#/.test(expected.replace(/^[a-z]+:\/\/[^\/]*/, ""))) continue;
              if (expected === null && actual === null) { refusedBoth++; continue; }
              compared++;
              if (expected !== actual && mismatches.length < 10) mismatches.push([input, expected, actual]);
            }
            return [compared, refusedBoth, mismatches];
            """#)
        guard case .array(let results) = outcome, results.count == 3 else {
            Issue.record("unexpected outcome \(outcome)")
            return
        }
        #expect((results[0].numberValue ?? 0) > 2000, "\(outcome)")
        #expect(results[2] == [], "\(results[2])")
        await page.close()
    }
}
