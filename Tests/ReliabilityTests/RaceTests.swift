import Foundation
import PropertyBased
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTestSupport
import SessionBridgeTesting
import Synchronization
import Testing

/// Generated interleavings of page refreshes, native refreshes, navigations, `document.cookie`
/// writes, server-side expiry and logout, each run against one shared reference server with a
/// fresh session and page. A failing case is reported by PropertyBased with its input and the
/// `.fixedSeed("…")` trait that replays it.
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct RaceTests {
    enum Op: String, CaseIterable, Sendable, CustomStringConvertible {
        /// `postMessage({action: "refresh"})` from the page.
        case pageRefresh
        /// `SessionController.refresh()`.
        case nativeRefresh
        /// A top-level navigation to `/app` (the navigation policy may refresh; the page's
        /// `fetch` wrapper refreshes on a `401`).
        case navigate
        /// `document.cookie` writes of script-readable cookies.
        case cookieWrite
        /// `document.cookie` trying to overwrite the HttpOnly session cookie.
        case cookieForge
        /// The server expires every access token issued so far.
        case expire
        /// `SessionController.logout()`.
        case logout

        var description: String { rawValue }
        /// How many token-endpoint refreshes one such operation may cause.
        var refreshBudget: Int {
            switch self {
            case .pageRefresh, .nativeRefresh: 1
            case .navigate: 2  // the policy's refresh and the page's own 401 retry
            default: 0
            }
        }
    }

    static let caseCount = ProcessInfo.processInfo.environment["RELIABILITY_RACE_CASES"].flatMap(Int.init) ?? 1000
    static let timeBudget: Duration = .seconds(100)

    static func configuration(_ server: ReferenceServer) -> SessionConfiguration {
        var configuration = SessionConfiguration(server: server.baseURL)
        configuration.freshnessWindow = .zero  // every refresh that does not join one in flight goes to the network
        configuration.refreshMargin = .milliseconds(200)
        // The cases are about interleavings, not latency: a loaded machine must not time out a
        // sign-in or a refresh of the fault-free server.
        configuration.requestTimeout = .seconds(30)
        configuration.retry = RetryPolicy(baseDelay: .milliseconds(10))
        return configuration
    }

    static func perform(_ op: Op, _ fixture: SessionFixture, _ server: ReferenceServer, forgeCounter: Int) async {
        switch op {
        case .pageRefresh:
            _ = try? await fixture.page.callAsyncJavaScript(
                """
                try { await window.webkit.messageHandlers.session.postMessage({action: "refresh"}); return "ok"; }
                catch (e) { return String(e.code || e); }
                """, timeout: .seconds(10))
        case .nativeRefresh:
            _ = try? await fixture.session.refresh()
        case .navigate:
            _ = try? await fixture.page.load(server.url("/app"))
        case .cookieWrite:
            _ = try? await fixture.page.evaluateJavaScript(
                "document.cookie = 'csrf_token=page-\(forgeCounter); Path=/'; document.cookie = 'theme=dark; Path=/'; document.cookie")
        case .cookieForge:
            _ = try? await fixture.page.evaluateJavaScript("document.cookie = '__Host-session=forged-\(forgeCounter); Path=/; Secure'")
        case .expire:
            server.expireAccessTokens()
        case .logout:
            await fixture.session.logout()
        }
    }

    /// `#expect(condition)`, also printed when it fails: a property check reports a failed
    /// expectation only as "Issue recorded", with the input.
    static func check(_ condition: Bool, _ message: String) {
        if !condition { print("[races] invariant failed: \(message)") }
        #expect(condition, Comment(rawValue: message))
    }

    /// What a page's session cookie is, said without its value: none, a forged one, a session
    /// value seen before in the case, or another.
    static func kind(of value: String?, live: Set<String>) -> String {
        guard let value else { return "absent" }
        if value.hasPrefix("forged-") { return "forged" }
        return live.contains(value) ? "an earlier session value" : "a value native code never had"
    }

    /// Runs `body`, recording what it throws with `what` before passing it on: a property
    /// check reports a thrown error only as "Issue recorded", with the input.
    static func recordingFailure<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            Issue.record("\(what) failed: \(error)")
            throw error
        }
    }

    /// What a case is doing, printed by its watchdog when the case has not ended in
    /// `caseWatchdog`: a hang then names the operation that did not return instead of showing
    /// only the test's time limit.
    final class CaseProgress: Sendable {
        private let state = Mutex((phase: "setting up", pending: [String]()))

        func enter(_ phase: String) { state.withLock { $0 = (phase, []) } }
        func started(_ op: String) { state.withLock { $0.pending.append(op) } }
        func finished(_ op: String) {
            state.withLock { if let index = $0.pending.firstIndex(of: op) { $0.pending.remove(at: index) } }
        }
        var description: String {
            state.withLock { $0.pending.isEmpty ? $0.phase : "\($0.phase), waiting for \($0.pending.joined(separator: ", "))" }
        }

        /// Prints what the case is doing if it is still running after `limit`.
        func watch(_ steps: [[Op]], limit: Duration) -> Task<Void, Never> {
            Task {
                guard (try? await Task.sleep(for: limit)) != nil else { return }
                print("[races] a case has not ended after \(limit): \(self.description); case: \(steps)")
            }
        }
    }

    static let caseWatchdog: Duration = .seconds(45)
    /// The longest one operation may take (its requests time out after 30 s, its page calls
    /// after 10 s): past it the case fails naming the operation, and the run goes on.
    static let operationLimit: Duration = .seconds(90)

    /// Runs `operation`, waiting for it at most `limit`: an operation that never returns fails
    /// the test, naming `what`, instead of holding the whole run (it is left running).
    static func bounded(_ what: String, limit: Duration, _ operation: @escaping @Sendable () async -> Void) async {
        let (ends, end) = AsyncStream<Bool>.makeStream()
        let work = Task {
            await operation()
            end.yield(true)
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            end.yield(false)
        }
        var first = ends.makeAsyncIterator()
        let returned = await first.next() ?? false
        timer.cancel()
        if !returned {
            print("[races] \(what) did not return within \(limit)")
            Issue.record("\(what) did not return within \(limit)")
        }
        _ = work
    }

    @Test func anOperationThatNeverReturnsFailsTheCaseInsteadOfHoldingTheRun() async {
        let clock = ContinuousClock()
        let started = clock.now
        await withKnownIssue {
            await Self.bounded("an operation that sleeps for an hour", limit: .milliseconds(200)) {
                try? await Task.sleep(for: .seconds(3600))
            }
        }
        #expect(clock.now - started < .seconds(30))
    }

    @Test func interleavingsKeepOneRefreshInFlightAndTheNewestCookie() async throws {
        let clock = ContinuousClock()
        let started = clock.now
        let cases = Mutex(0)
        let skipped = Mutex(0)
        let figures = Mutex((ops: 0, refreshes: 0, budget: 0, logouts: 0, navigations: 0))
        try await withReferenceServer { server in
            let configuration = Self.configuration(server)
            let input = Gen<Op>.case.array(of: 1...3).array(of: 1...4)
            await propertyCheck(count: Self.caseCount, input: input) { steps in
                guard clock.now - started < Self.timeBudget else {
                    skipped.withLock { $0 += 1 }
                    return
                }
                let progress = CaseProgress()
                let watchdog = progress.watch(steps, limit: Self.caseWatchdog)
                defer { watchdog.cancel() }
                let fixture = try await Self.recordingFailure("setting up") {
                    try await SessionFixture.connect(to: server.baseURL, sessionConfiguration: configuration)
                }
                defer { Task { await fixture.stop() } }
                progress.enter("signing in")
                try await Self.recordingFailure("signing in") {
                    try await fixture.session.login(username: "demo", password: "demo")
                    try await fixture.page.loadHTMLString("<p>start</p>", baseURL: server.url("/start"))
                }
                let root = server.baseURL
                let before = server.stats()
                var budget = 0
                var deleted: Set<String> = []
                var signedOut = false
                var live: Set<String> = []
                for (index, step) in steps.enumerated() {
                    if let value = fixture.session.cookieJar.value("__Host-session", for: root) { live.insert(value) }
                    progress.enter("step \(index) \(step)")
                    await withTaskGroup(of: Void.self) { group in
                        for (n, op) in step.enumerated() {
                            group.addTask {
                                progress.started("\(op)#\(n)")
                                await Self.bounded("step \(index) \(step): \(op)", limit: Self.operationLimit) {
                                    await Self.perform(op, fixture, server, forgeCounter: index * 10 + n)
                                }
                                progress.finished("\(op)#\(n)")
                            }
                        }
                    }
                    // What a step started in the page (its own 401 retry, say) ends before the
                    // checks, and so does a refresh a page asked for and left when it navigated
                    // (its call rejected with `navigation`, the refresh goes on): the checks
                    // read the two stores one after the other.
                    progress.enter("step \(index): waiting for the page to be quiescent")
                    var quiet = await fixture.page.runUntilQuiescent(timeout: .seconds(30))
                    progress.enter("step \(index): waiting for the refresh in flight")
                    await fixture.session.waitForRefreshInFlight()
                    if quiet { quiet = await fixture.page.runUntilQuiescent(timeout: .seconds(30)) }
                    if !quiet {
                        print("[races] step \(index) \(step): the page was not quiescent within 30 s; the checks see its work in flight")
                    }
                    progress.enter("step \(index): checks")
                    budget += step.reduce(0) { $0 + $1.refreshBudget }
                    if step.contains(.logout) {
                        signedOut = true
                        deleted.formUnion(live)
                    }
                    // Invariants at the end of every step.
                    let native = fixture.session.cookieJar.value("__Host-session", for: root)
                    let page = fixture.page.cookieJar.value("__Host-session", for: root)
                    if let value = native { live.insert(value) }
                    if let native {
                        Self.check(
                            page == native,
                            "step \(index) \(step): the page's session cookie is not the native one (the page's is \(Self.kind(of: page, live: live)); quiescent: \(quiet))"
                        )
                        Self.check(!signedOut, "step \(index) \(step): a session cookie came back after logout")
                    } else {
                        Self.check(
                            page == nil || page!.hasPrefix("forged-"),
                            "step \(index) \(step): the page kept a session cookie native code does not have")
                    }
                    if signedOut {
                        for jar in [fixture.session.cookieJar, fixture.page.cookieJar] {
                            Self.check(
                                !jar.cookies(for: root).contains { deleted.contains($0.value) },
                                "step \(index) \(step): a cookie deleted at logout came back")
                        }
                        Self.check(try fixture.session.vault.load() == nil, "step \(index) \(step): the vault kept a token after logout")
                    }
                    Self.check(server.stats().reuseEvents == 0, "step \(index) \(step): a refresh token was used twice")
                }
                progress.enter("final checks")
                let after = server.stats()
                let refreshes = after.refreshes - before.refreshes
                #expect(refreshes <= budget, "\(refreshes) refreshes for \(budget) refresh epochs")
                let sent = await fixture.session.networkRefreshCount
                #expect(refreshes <= sent, "the server rotated \(refreshes) times for \(sent) requests the controller sent")
                #expect(after.reuseEvents == 0)
                cases.withLock { $0 += 1 }
                figures.withLock {
                    $0.ops += steps.reduce(0) { $0 + $1.count }
                    $0.refreshes += refreshes
                    $0.budget += budget
                    $0.logouts += steps.contains { $0.contains(.logout) } ? 1 : 0
                    $0.navigations += steps.reduce(0) { $0 + $1.filter { $0 == .navigate }.count }
                }
            }
            let stats = server.stats()
            #expect(stats.reuseEvents == 0)
            let elapsed = clock.now - started
            let run = cases.withLock { $0 }
            let totals = figures.withLock { $0 }
            print(
                """
                [races] interleavings explored: \(run) (skipped past the time budget: \(skipped.withLock { $0 })) in \(elapsed); \
                operations: \(totals.ops), navigations: \(totals.navigations), cases with logout: \(totals.logouts); \
                token-endpoint refreshes: \(totals.refreshes) of a budget of \(totals.budget) epochs; reuse events: \(stats.reuseEvents); \
                seed: PropertyBased draws a fresh seed per case and prints `.fixedSeed("…")` with any failing input; add it to this test to replay
                """)
            #expect(run >= min(Self.caseCount, 200), "too few cases ran in the time budget")
        }
    }
}
