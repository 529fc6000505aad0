import Glibc

/// The CPU time the process used so far, all threads (`clock()`), in nanoseconds: a cycle's
/// work, where its wall time is work and waits.
enum ProcessCPUTime {
    static func nanoseconds() -> Int {
        Int(clock()) * (1_000_000_000 / Int(CLOCKS_PER_SEC))
    }
}
