import Foundation
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeTestSupport
import SessionBridgeWebKit
import Synchronization
import Testing

@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct NavigationTests {
    @Test func aHeldNavigationLeavesWithTheCookieWrittenDuringTheHold() async throws {
        try await withSite(pages: ["/start": "<title>start</title>"]) { site in
            let decided = Mutex<[String]>([])
            let delegate = ClosureNavigationDelegate { page, action in
                decided.withLock { $0.append(action.request.url.path) }
                guard action.request.url.path == "/next" else { return .allow }
                try? await Task.sleep(for: .milliseconds(300))
                await page.httpCookieStore.setCookie(Cookie(name: "held", value: "during-hold", domain: "127.0.0.1"))
                return .allow
            }
            let events = Mutex<[PageEvent]>([])
            try await withView(
                WebKitWebViewConfiguration(navigationDelegate: delegate, eventHandler: { event in events.withLock { $0.append(event) } })
            ) { view in
                try await view.load(site.url("/start"))
                _ = try await view.evaluateJavaScript("location.href = '/next'; true")
                for _ in 0..<100 {
                    if view.url?.path == "/next" { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(view.url?.path == "/next")
                let requests = site.requests(to: "/next")
                #expect(requests.count == 1)
                #expect(requests.first?.cookies["held"] == "during-hold")
                #expect(decided.withLock { $0 }.contains("/next"))
                let waited = events.withLock { events in
                    events.compactMap { event -> Duration? in
                        if case .navigationPolicy(let action, .allow, let waited) = event, action.request.url.path == "/next" {
                            return waited
                        }
                        return nil
                    }
                }
                #expect(waited.count == 1)
            }
        }
    }

    /// A load started while another is under way supersedes it: the first fails, and the
    /// cancellation WebKit reports for it is not taken for the second's failure.
    @Test func aLoadThatSupersedesAnotherSucceeds() async throws {
        try await withSite { site in
            try await withView(WebKitWebViewConfiguration()) { view in
                try await view.load(site.url("/start"))
                let first = Task { @WebKitActor in try await view.load(site.url("/held/first")) }
                // Until WebKit has started the first load (its request is at the server, which
                // holds its answer).
                let deadline = ContinuousClock.now + .seconds(10)
                while site.requests(to: "/held/first").isEmpty, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(site.requests(to: "/held/first").count == 1)
                let second = try await view.load(site.url("/fast"))
                #expect(second.url.path == "/fast")
                #expect(view.url?.path == "/fast")
                let superseded = await #expect(throws: PageError.self) { try await first.value }
                #expect(superseded?.code == .superseded)
                site.release("first")
            }
        }
    }

    /// A page's own navigation that the delegate cancels while the app's load waits for its
    /// policy fails only itself: the app's load goes on (it failed as "cancelled").
    @Test func aCancelledPageNavigationLeavesTheAppsPendingLoad() async throws {
        try await withSite { site in
            let delegate = ClosureNavigationDelegate { _, action in
                switch action.request.url.path {
                case "/forbidden":
                    try? await Task.sleep(for: .milliseconds(100))
                    return .cancel
                case "/fast":
                    try? await Task.sleep(for: .milliseconds(600))
                    return .allow
                default:
                    return .allow
                }
            }
            try await withView(WebKitWebViewConfiguration(navigationDelegate: delegate)) { view in
                try await view.load(site.url("/start"))
                _ = try await view.evaluateJavaScript("location.href = '/forbidden'; 1")
                let landed = try await view.load(site.url("/fast"))
                #expect(landed.url.path == "/fast")
                #expect(view.url?.path == "/fast")
                #expect(site.requests(to: "/forbidden").isEmpty)
            }
        }
    }

    /// The app's own load is known as WebKit writes its URL (`http://host:port` asks for
    /// `http://host:port/`): cancelled, it fails at once as cancelled, not at its time limit.
    @Test func aCancelledLoadOfAURLWithoutAPathFailsAsCancelled() async throws {
        try await withSite { site in
            let delegate = ClosureNavigationDelegate { _, action in
                ["", "/"].contains(action.request.url.path) ? .cancel : .allow
            }
            var configuration = WebKitWebViewConfiguration(navigationDelegate: delegate)
            configuration.loadTimeout = .seconds(20)
            try await withView(configuration) { view in
                try await view.load(site.url("/start"))
                let error = await #expect(throws: PageError.self) { try await view.load(site.baseURL) }
                #expect(error?.code == .cancelled)
                #expect(view.url?.path == "/start")
            }
        }
    }

    @Test func aCancelledNavigationNeverReachesTheServer() async throws {
        try await withSite { site in
            let delegate = ClosureNavigationDelegate { _, action in action.request.url.path == "/forbidden" ? .cancel : .allow }
            try await withView(WebKitWebViewConfiguration(navigationDelegate: delegate)) { view in
                try await view.load(site.url("/allowed"))
                let error = await #expect(throws: PageError.self) { try await view.load(site.url("/forbidden")) }
                #expect(error?.code == .cancelled)
                #expect(site.requests(to: "/forbidden").isEmpty)
                #expect(view.url?.path == "/allowed")
            }
        }
    }

    @Test func eachRedirectHopIsOfferedToTheDelegateAsARedirect() async throws {
        try await withSite { site in
            let decided = Mutex<[(path: String, isRedirect: Bool)]>([])
            let delegate = ClosureNavigationDelegate { _, action in
                decided.withLock { $0.append((action.request.url.path, action.isRedirect)) }
                return .allow
            }
            try await withView(WebKitWebViewConfiguration(navigationDelegate: delegate)) { view in
                try await view.load(site.url("/hop/1"))
                #expect(view.url?.path == "/hop/3")
                let hops = decided.withLock { $0 }
                #expect(hops.map(\.path) == ["/hop/1", "/hop/2", "/hop/3"])
                #expect(hops.map(\.isRedirect) == [false, true, true])
                // Each hop's request carried the cookies the previous hops set.
                #expect(site.requests(to: "/hop/3").first?.cookies.keys.sorted() == ["hop1", "hop2"])
            }
        }
    }
}
