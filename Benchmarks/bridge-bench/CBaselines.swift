import CBaselines
import Foundation

/// A raw JavaScriptCore C API bench (no Swift layer): one context with a native `post`.
@safe  // the JavaScriptCore references it holds are used only by the bench that owns it, on one thread
final class RawJSBench {
    private let bench: OpaquePointer

    /// - Parameters:
    ///   - kind: what the native callback does.
    ///   - body: the page code's body (must match `kind`).
    ///   - jsSpin: how long the JS thread polls for replies before blocking (hop kinds).
    ///   - workerSpin: how long the worker polls for requests before blocking (hop kinds).
    ///   - timeLimit: an execution time limit on the context group, as pages have.
    init(
        _ kind: cb_js_kind, body: PageScripts.Body, jsSpin: Duration = .zero, workerSpin: Duration = .zero, timeLimit: Duration? = nil
    ) throws {
        guard let bench = unsafe cb_js_open(kind, PageScripts.source(body), Int64(jsSpin.nanoseconds), Int64(workerSpin.nanoseconds)) else {
            throw BenchFailure("could not open the raw JavaScriptCore bench")
        }
        unsafe self.bench = unsafe bench
        if let timeLimit { unsafe cb_js_set_time_limit(bench, timeLimit.nanoseconds / 1e9) }
    }

    deinit { unsafe cb_js_close(bench) }

    /// A full, synchronous garbage collection of this bench's VM.
    func collectGarbage() { unsafe cb_js_collect_garbage(bench) }

    /// Runs `n` round trips in `lanes` lanes; returns nanoseconds per round trip.
    func run(_ n: Int, lanes: Int = 1) throws -> Double {
        var ok: Int32 = 0
        let elapsed = unsafe cb_js_run(bench, Int64(n), Int32(lanes), &ok)
        guard ok == 1 else { throw BenchFailure("raw JavaScriptCore bench: wrong sum") }
        return Double(elapsed) / Double((n / lanes) * lanes)
    }
}

/// libsoup's `soup_cookie_parse` over `headers`, `rounds` times; returns ns per header.
func soupParse(_ headers: [String], rounds: Int, url: String) throws -> Double {
    let pointers = unsafe headers.map { unsafe strdup($0) }
    defer { unsafe pointers.forEach { unsafe free($0) } }
    var parsed: Int32 = 0
    let elapsed = unsafe pointers.map { unsafe UnsafePointer($0) }.withUnsafeBufferPointer { buffer in
        unsafe cb_soup_parse(buffer.baseAddress, Int32(buffer.count), Int32(rounds), url, &parsed)
    }
    guard parsed > 0 else { throw BenchFailure("libsoup parsed no cookie") }
    return Double(elapsed) / Double(headers.count * rounds)
}
