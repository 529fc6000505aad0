import Foundation
import PropertyBased
import SessionBridgeTestSupport
import Synchronization
import Testing

@testable import SessionBridgeCookies

/// The identity index of each domain's cookies against a plain list that finds cookies by
/// comparing identities one by one.
@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct BucketIndexTests {
    /// One step of a random history: sets (new, replacing, deleting, expiring, from a script),
    /// time passing, lookups that drop expired cookies, removals, direct inserts, and enough
    /// cookies to hit the per-domain and total limits.
    static func apply(_ step: Int, to jars: [CookieJar], clock: TestClock) {
        let names = ["a", "b", "c", "d", "e"]
        let origins = [URL(string: "https://example.com/p/q")!, URL(string: "https://www.example.com/")!]
        let name = names[step % names.count]
        let origin = origins[(step / 5) % origins.count]
        switch step % 11 {
        case 0...5:
            var header = "\(name)=v\(step)"
            header += ["", "; Path=/", "; Path=/p"][(step / 3) % 3]
            if (step / 7) % 2 == 0 { header += "; Domain=example.com" }
            header += ["", "; Max-Age=0", "; Max-Age=5", ""][(step / 13) % 4]
            if (step / 17) % 3 == 0 { header += "; HttpOnly" }
            for jar in jars {
                if (step / 19) % 4 == 0 { jar.setDocumentCookie(header, for: origin) } else { jar.setCookie(header, from: origin) }
            }
        case 6: clock.advance(3)
        case 7: for jar in jars { _ = jar.cookieHeader(for: origin) }
        case 8: for jar in jars { jar.remove(name: name, domain: "example.com", path: "/") }
        case 9:
            let cookie = Cookie(
                name: name, value: "i\(step)", domain: "www.example.com", path: "/p",
                expiresAt: clock.read().addingTimeInterval(4), creationTime: clock.read())
            for jar in jars { jar.insert(cookie) }
        default:
            for jar in jars { jar.setCookie("n\(step)=1; Max-Age=\(step % 9)", from: origin) }
        }
    }

    /// Every cookie held, expired ones not yet dropped included, in a fixed order.
    static func held(_ jar: CookieJar) -> [Cookie] {
        jar.state.withLock { state in
            state.groups.values.flatMap { $0.values.flatMap { $0.entries.map(\.cookie) } }
        }.sorted { ($0.domain, $0.name, $0.path, $0.isHostOnly ? 1 : 0) < ($1.domain, $1.name, $1.path, $1.isHostOnly ? 1 : 0) }
    }

    /// Lookups touch last-access times without a change to report: the model compares the rest.
    static func untouched(_ cookie: Cookie) -> Cookie {
        var cookie = cookie
        cookie.lastAccessTime = cookie.creationTime
        return cookie
    }

    static func indexesAreConsistent(_ jar: CookieJar) -> Bool {
        jar.state.withLock { state in state.groups.values.allSatisfy { $0.values.allSatisfy(\.isConsistent) } }
    }

    @Test func theIndexAgreesWithALinearScanThroughReplaceDeleteEvictAndExpire() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...10_000).array(of: 1...80)) { steps in
            let clock = TestClock(Date(timeIntervalSince1970: 1_502_236_800))
            let limits = CookieJarLimits(perDomain: 4, total: 9)
            let observed = CookieJar(limits: limits, clock: clock.read)
            let unobserved = CookieJar(limits: limits, clock: clock.read)
            // The plain model: a list following the observed jar's changes, searched linearly.
            let model = LockedValue<[Cookie]>([])
            let mismatches = LockedValue<[String]>([])
            let observation = observed.observe { change in
                model.update { list in
                    let at = list.firstIndex { $0.hasSameIdentity(as: change.cookie) }
                    switch change.kind {
                    case .added:
                        if at != nil { mismatches.update { $0.append("added a duplicate: \(change.cookie)") } }
                        list.append(change.cookie)
                    case .replaced:
                        guard let at else { return mismatches.update { $0.append("replaced a missing cookie: \(change.cookie)") } }
                        if Self.untouched(list[at]) != change.previous.map(Self.untouched) {
                            mismatches.update { $0.append("replaced another cookie: \(change.cookie)") }
                        }
                        list[at] = change.cookie
                    case .deleted, .expired, .evicted:
                        guard let at else { return mismatches.update { $0.append("removed a missing cookie: \(change.cookie)") } }
                        if Self.untouched(list[at]) != Self.untouched(change.cookie) {
                            mismatches.update { $0.append("removed another cookie: \(change.cookie)") }
                        }
                        list.remove(at: at)
                    }
                }
            }
            defer { observation.cancel() }
            for step in steps {
                Self.apply(step, to: [observed, unobserved], clock: clock)
                #expect(Self.indexesAreConsistent(observed) && Self.indexesAreConsistent(unobserved), "after step \(step)")
                let held = Self.held(observed)
                #expect(held == Self.held(unobserved), "after step \(step)")
                let expected = model.get().sorted {
                    ($0.domain, $0.name, $0.path, $0.isHostOnly ? 1 : 0) < ($1.domain, $1.name, $1.path, $1.isHostOnly ? 1 : 0)
                }
                #expect(held.map(Self.untouched) == expected.map(Self.untouched), "after step \(step)")
                #expect(observed.count == held.count && unobserved.count == held.count)
            }
            #expect(mismatches.get().isEmpty)
            #expect(observed.count <= limits.total)
        }
    }

    @Test func removingFromTheMiddleKeepsLaterCookiesFindable() {
        let jar = CookieJar(clock: { Date(timeIntervalSince1970: 1_502_236_800) })
        let u = URL(string: "https://example.com/")!
        for name in ["a", "b", "c", "d"] { jar.setCookie("\(name)=1", from: u) }
        jar.setCookie("b=; Max-Age=0", from: u)
        let replaced = jar.setCookie("d=2", from: u)
        #expect(replaced.cookie?.value == "2")
        guard case .replaced(_, let previous) = replaced else {
            Issue.record("expected a replacement, got \(replaced)")
            return
        }
        #expect(previous.value == "1")
        #expect(jar.cookieHeader(for: u) == "a=1; c=1; d=2")
        #expect(Self.indexesAreConsistent(jar))
    }
}
