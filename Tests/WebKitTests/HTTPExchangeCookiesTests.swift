import Foundation
import SessionBridgeHeadless
import SessionBridgeTestSupport
import SessionBridgeWebKit
import Synchronization
import Testing

/// The cookie names a WebKit view's HTTP exchanges report, found from the store (WebKit strips
/// `Set-Cookie` from what it hands on): each change is told by one exchange, and a document's
/// exchange ends at its response, before its scripts run.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct HTTPExchangeCookiesTests {
    static let page = """
        <title>exchanges</title>
        <script>
        fetch('/set/a?delay=150')
          .then(() => Promise.all([fetch('/set/d?delay=150'), fetch('/set/e?delay=600')]))
          .then(() => { document.title = 'done'; });
        </script>
        """

    /// Two fetches out at once: the cookie the first one's answer set had been reported by the
    /// second one too (`set d,e`), whose window it fell in. And the document's own exchange had
    /// listed what its script's fetch set.
    @Test func eachCookieChangeIsToldByTheExchangeWhoseAnswerMadeIt() async throws {
        try await withSite(pages: ["/exchanges": Self.page]) { site in
            let exchanges = Mutex<[HTTPExchange]>([])
            let configuration = WebKitWebViewConfiguration(eventHandler: { event in
                if case .http(let exchange) = event { exchanges.withLock { $0.append(exchange) } }
            })
            try await withView(configuration) { view in
                try await view.load(site.url("/exchanges"))
                for _ in 0..<400 where !exchanges.withLock({ $0.contains { $0.url.path == "/set/e" } }) {
                    try await Task.sleep(for: .milliseconds(25))
                }
            }
            let seen = exchanges.withLock { $0 }
            func set(_ path: String) -> [String]? { seen.first { $0.url.path == path }?.cookiesSet }
            #expect(set("/exchanges") == [], "\(seen.map { "\($0.url.path) \($0.cookiesSet)" })")
            #expect(set("/set/a") == ["a"])
            #expect(set("/set/d") == ["d"])
            #expect(set("/set/e") == ["e"], "\(seen.map { "\($0.url.path) \($0.cookiesSet)" })")
            #expect(seen.first { $0.url.path == "/set/e" }?.cookiesSent.contains("a") == true)
        }
    }
}
