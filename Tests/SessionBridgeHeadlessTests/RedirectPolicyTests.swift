import Foundation
import SessionBridgeCookies
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridgeHeadless

/// What the navigation delegate saw of one navigation action.
struct DecidedHop: Sendable, Equatable {
    var path: String
    var isRedirect: Bool
    /// The cookies the page's store held when the hop was decided.
    var cookies: [String]
}

/// A navigation delegate that records every action and cancels those `cancels` picks.
final class HopRecorder: NavigationDelegate {
    let hops = Locked<[DecidedHop]>([])
    let urls = Locked<[URL]>([])
    let cancels: @Sendable (NavigationAction) -> Bool

    init(cancelling cancels: @escaping @Sendable (NavigationAction) -> Bool = { _ in false }) {
        self.cancels = cancels
    }

    func webPage(_ page: any WebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        let cookies = await page.httpCookieStore.allCookies().map(\.name).sorted()
        hops.update { $0.append(DecidedHop(path: action.request.url.path, isRedirect: action.isRedirect, cookies: cookies)) }
        urls.update { $0.append(action.request.url) }
        return cancels(action) ? .cancel : .allow
    }
}

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct RedirectPolicyTests {
    @Test func eachRedirectHopIsDecidedByTheDelegateAfterThePreviousHopsCookiesWereApplied() async throws {
        try await withServer { server in
            let delegate = HopRecorder()
            let recorder = PageEventRecorder()
            let page = WebPage(configuration: WebPageConfiguration(navigationDelegate: delegate, eventHandler: recorder.handler))
            let navigation = try await page.load(server.url("/redirect-chain"))
            #expect(navigation.url.path == "/redirect-chain/3")
            // The document's navigation entry counts the two same-origin hops.
            #expect(try await page.evaluateJavaScript("performance.getEntriesByType('navigation')[0].redirectCount") == 2)
            // Three requests, three decisions; each hop's Set-Cookie was in the store before the
            // next hop was decided and sent (hop 3's answer then deleted hop1).
            #expect(
                delegate.hops.value == [
                    DecidedHop(path: "/redirect-chain", isRedirect: false, cookies: []),
                    DecidedHop(path: "/redirect-chain/2", isRedirect: true, cookies: ["hop1"]),
                    DecidedHop(path: "/redirect-chain/3", isRedirect: true, cookies: ["hop1", "hop2"]),
                ])
            let hops = recorder.exchanges.filter { $0.initiator == .navigation }
            #expect(hops.map(\.cookiesSent) == [[], ["hop1"], ["hop1", "hop2"]])
            let policies = recorder.events.compactMap { event -> Bool? in
                if case .navigationPolicy(let action, _, _) = event { return action.isRedirect } else { return nil }
            }
            #expect(policies == [false, true, true])
            // A fetch's redirects are not navigations: the delegate is not asked.
            _ = try await page.callAsyncJavaScript("await fetch('/redirect-chain')")
            #expect(delegate.hops.value.count == 3)
            await page.close()
        }
    }

    @Test func theDelegateCanCancelTheSecondHop() async throws {
        try await withServer { server in
            let delegate = HopRecorder { $0.request.url.path == "/redirect-chain/2" }
            let recorder = PageEventRecorder()
            let page = WebPage(configuration: WebPageConfiguration(navigationDelegate: delegate, eventHandler: recorder.handler))
            do throws(PageError) {
                try await page.load(server.url("/redirect-chain"))
                Issue.record("the cancelled chain loaded")
            } catch {
                #expect(error.code == .cancelled)
                #expect(error.url?.path == "/redirect-chain/2")
            }
            #expect(delegate.hops.value.map(\.path) == ["/redirect-chain", "/redirect-chain/2"])
            // The first hop's answer was applied; the cancelled hop was never requested.
            #expect(page.cookieJar.cookies(for: server.url("/")).map(\.name) == ["hop1"])
            #expect(recorder.exchanges.filter { $0.initiator == .navigation }.map(\.url.path) == ["/redirect-chain"])
            #expect(await page.url == nil)
            await page.close()
        }
    }

    @Test func aRedirectToACustomSchemeIsOfferedToTheDelegateSoItCanBeCaught() async throws {
        let callback = "com.example.app:/oauth2redirect?code=abc123&state=s1"
        let listener = try RawHTTPListener { line in
            line.hasPrefix("GET /authorize ")
                ? "HTTP/1.1 302 Found\r\nLocation: \(callback)\r\nSet-Cookie: seen=1; Path=/\r\nContent-Length: 0\r\n\r\n"
                : RawHTTPListener.ok
        }
        defer { listener.stop() }
        let caught = HopRecorder { $0.request.url.scheme == "com.example.app" }
        let page = WebPage(configuration: WebPageConfiguration(navigationDelegate: caught))
        do throws(PageError) {
            try await page.load(listener.url.appendingPathComponent("authorize"))
            Issue.record("the redirect URI was not caught")
        } catch {
            #expect(error.code == .cancelled)
        }
        #expect(caught.urls.value.map(\.absoluteString) == [listener.url.appendingPathComponent("authorize").absoluteString, callback])
        #expect(caught.hops.value.last == DecidedHop(path: "/oauth2redirect", isRedirect: true, cookies: ["seen"]))
        // A delegate that lets it through gets the scheme's failure, as before.
        let allowing = HopRecorder()
        let other = WebPage(configuration: WebPageConfiguration(navigationDelegate: allowing))
        do throws(PageError) {
            try await other.load(listener.url.appendingPathComponent("authorize"))
            Issue.record("a custom scheme loaded")
        } catch {
            #expect(error.code == .unsupportedScheme)
            #expect(error.url?.absoluteString == callback)
        }
        #expect(allowing.urls.value.last?.absoluteString == callback)
        await page.close()
        await other.close()
    }

    @Test func hopsAreBoundedAsBrowsersBoundThem() async throws {
        let listener = try RawHTTPListener { line in
            let hop = Int(line.split(separator: " ")[1].dropFirst(5)) ?? 0  // "/hop/N"
            return "HTTP/1.1 302 Found\r\nLocation: /hop/\(hop + 1)\r\nContent-Length: 0\r\n\r\n"
        }
        defer { listener.stop() }
        let delegate = HopRecorder()
        let page = WebPage(configuration: WebPageConfiguration(navigationDelegate: delegate))
        do throws(PageError) {
            try await page.load(listener.url.appendingPathComponent("hop/0"))
            Issue.record("an endless chain loaded")
        } catch {
            #expect(error.code == .tooManyRedirects)
        }
        // The first request and twenty redirect hops were decided; the 21st was refused unasked.
        #expect(delegate.hops.value.count == 21)
        #expect(delegate.hops.value.last?.path == "/hop/20")
        await page.close()
    }
}
