/// The page code of the round-trip figures, shared by the raw C baselines and the bridge so both
/// run exactly the same JavaScript.
///
/// `__run(n, lanes)` starts `lanes` concurrent async loops of `n / lanes` sequential
/// `await window.webkit.messageHandlers.h.postMessage(...)` calls and reports the sum of the
/// replies to the native `__done(sum)`.
enum PageScripts {
    /// The body each call sends, and how the reply is added to the sum.
    enum Body: Sendable {
        /// `postMessage(i)`, reply `i`.
        case number
        /// `postMessage({action: "refresh", id: i, meta: {a: 1, b: "x"}})`, reply `{ok: true, expiresAt: i}`.
        case refresh
    }

    static func source(_ body: Body) -> String {
        let step: String
        switch body {
        case .number:
            step = "s += await window.webkit.messageHandlers.h.postMessage(i);"
        case .refresh:
            step = """
                const r = await window.webkit.messageHandlers.h.postMessage({action: "refresh", id: i, meta: {a: 1, b: "x"}});
                if (r.ok === true) s += r.expiresAt;
                """
        }
        return """
            globalThis.__run = function (n, lanes) {
              const per = Math.floor(n / lanes);
              async function lane(start, count) {
                let s = 0;
                const end = start + count;
                for (let i = start; i < end; i++) { \(step) }
                return s;
              }
              const chains = [];
              for (let l = 0; l < lanes; l++) chains.push(lane(l * per, per));
              Promise.all(chains).then(sums => { let s = 0; for (const x of sums) s += x; __done(s); },
                                       e => __done(-1));
            };
            """
    }

    /// The sum `__done` must report for `n` calls in `lanes` lanes.
    static func expectedSum(n: Int, lanes: Int) -> Double {
        let m = Double((n / lanes) * lanes)
        return m * (m - 1) / 2
    }
}
