import Foundation
import SessionBridgeTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Peak memory of `bridge-runner run` on pages that try to make it copy or keep far more than
/// they allocate: a body built as a rope (`s = s + s`, about 1 GiB nominal, a few kilobytes
/// real) sent through the bridge and through `fetch`, and one shared 4 MiB string logged 300
/// times. Each must stay within 100 MB of a blank page's peak. This asserts memory, not time.
@Suite(.serialized, .timeLimit(.minutes(10)), .hangWatchdog)
struct MemoryTests {
    /// How far above a blank page's peak a memory case may go.
    static let allowance = 100 << 20

    static let blank = "console.log('blank');"

    static let rope = """
        let s = "x".repeat(1024);
        while (s.length < (1 << 29)) s = s + s;
        try { window.webkit.messageHandlers.session.postMessage({ action: "refresh", pad: s }).catch(e => console.log("bridge refused:", e.message)); }
        catch (e) { console.log("bridge refused:", e.message); }
        fetch("/", { method: "POST", body: s }).then(() => console.log("fetch sent"), e => console.log("fetch refused:", e.message));
        console.log("rope of", s.length, "code units");
        """

    static let console = """
        const line = "y".repeat(4 << 20);
        for (let i = 0; i < 300; i++) console.log(line);
        console.log("logged 300 lines");
        """

    @Test func ropeBodiesAndRepeatedConsoleLinesStayNearABlankPage() async throws {
        let blank = try await Self.peak(of: Self.blank)
        let rope = try await Self.peak(of: Self.rope)
        let console = try await Self.peak(of: Self.console)
        print("peak RSS: blank \(blank.peak >> 20) MiB, rope \(rope.peak >> 20) MiB, console \(console.peak >> 20) MiB")
        #expect(blank.status == 0, "blank page run failed (\(blank.status))")
        #expect(rope.peak - blank.peak < Self.allowance, "rope body: \(rope.peak >> 20) MiB against \(blank.peak >> 20) MiB blank")
        #expect(console.peak - blank.peak < Self.allowance, "console: \(console.peak >> 20) MiB against \(blank.peak >> 20) MiB blank")
        // The pages really did what they were meant to.
        #expect(rope.output.contains("rope of 536870912 code units"), "\(rope.output.suffix(2000))")
        #expect(console.output.contains("logged 300 lines"), "\(console.output.suffix(2000))")
    }

    /// Runs `bridge-runner run` on `script` and returns the child's peak resident set size
    /// (its `VmHWM`), its exit status and its output.
    static func peak(of script: String) async throws -> (peak: Int, status: Int32, output: String) {
        let file = try RunnerProcess.temporaryFile("page.js", script)
        // The console page's output is over a gigabyte: it goes with the directory.
        defer { RunnerProcess.removeTemporaryFile(file) }
        let output = file.deletingLastPathComponent().appendingPathComponent("output.txt")
        // The entry limit is raised so that a slow (debug) build logs every line: this test is
        // about memory, and the whole run is still bounded by --timeout.
        let arguments = [RunnerProcess.executable.path, "run", file.path, "--timeout", "240", "--entry-time-limit", "200"]
        var actions = unsafe posix_spawn_file_actions_t()
        unsafe posix_spawn_file_actions_init(&actions)
        defer { unsafe posix_spawn_file_actions_destroy(&actions) }
        unsafe posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        unsafe posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        unsafe posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var argv: [UnsafeMutablePointer<CChar>?] = unsafe arguments.map { unsafe strdup($0) } + [nil]
        defer { unsafe argv.forEach { unsafe free($0) } }
        var pid: pid_t = 0
        let spawned = unsafe posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
        try #require(spawned == 0, "could not start bridge-runner: \(spawned)")
        // The child's own high-water mark (`VmHWM`), read every 20 ms until it ends, on a thread
        // of its own, not on one of the concurrency pool. Not `wait4`'s `ru_maxrss`: a child
        // spawned from this process carries this process's peak across its `exec`, so that in
        // a full run (this process at 500-900 MB) every page read the test process's size, and
        // the console page's read could be the larger only because this process had grown.
        let child = pid
        let (status, maxrss) = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                var peak = 0
                while true {
                    if let hwm = Self.highWaterMarkKB(of: child) { peak = max(peak, hwm) }
                    let ended = unsafe waitpid(child, &status, WNOHANG)
                    if ended == child || (ended == -1 && errno != EINTR) { break }
                    usleep(20_000)
                }
                continuation.resume(returning: (status, peak))
            }
        }
        // The end of the output, where the pages report; not the whole gigabyte.
        let text =
            (try? FileHandle(forReadingFrom: output)).map { handle in
                defer { try? handle.close() }
                let size = (try? handle.seekToEnd()) ?? 0
                try? handle.seek(toOffset: size > 1 << 20 ? size - (1 << 20) : 0)
                return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
            } ?? ""
        return (maxrss * 1024, (status >> 8) & 0xff, text)
    }

    /// A running process's peak resident set size in kilobytes (`VmHWM` in its
    /// `/proc/<pid>/status`); `nil` once it has ended.
    static func highWaterMarkKB(of pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.dropFirst("VmHWM:".count).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        return nil
    }
}
