import Foundation

/// How many times the process's threads went to sleep, summed over all of them: every
/// hand-off of work to a thread that had nothing to do (an actor's turn on a pool thread, an
/// HTTP exchange given to an event loop, a reply to a page's thread) wakes a thread that slept
/// once. Counted by the kernel (`voluntary_ctxt_switches` in `/proc/self/task/*/status`), the
/// figure does not move with the machine's speed the way times do, and on a virtual machine
/// each wake-up is dear: the waking thread pays 25-100 µs in the kernel, the longer the other
/// CPU was idle (a temporary probe of figure 6).
enum ThreadHandOffs {
    /// The voluntary context switches of every thread of the process so far.
    static func count() -> Int {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return 0 }
        var total = 0
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8) else { continue }
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                total += Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        return total
    }
}
