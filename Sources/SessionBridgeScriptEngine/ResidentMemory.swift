import Glibc

/// The process's resident memory, as the kernel counts it (`/proc/self/statm`).
///
/// This is what a memory limit of the headless engine compares with: its pages run in the
/// app's own process, so the figure is the process's, not one page's (WebKit's memory pressure
/// settings measure a web process the same way). Reading it costs a few microseconds.
package enum ResidentMemory {
    /// WebKit's `WTF::releaseFastMallocFreeMemory()`, which its memory pressure handler calls
    /// to hand the allocator's free memory back to the system at once; JavaScriptCore exports
    /// it, but in no header, so it is looked up by its symbol (nothing happens without it: the
    /// allocator's scavenger then hands the memory back within about half a second).
    private static let releaseFastMallocFreeMemory: (@convention(c) () -> Void)? = unsafe dlsym(
        UnsafeMutableRawPointer(bitPattern: 0), "_ZN3WTF27releaseFastMallocFreeMemoryEv"
    ).map { unsafe unsafeBitCast($0, to: (@convention(c) () -> Void).self) }

    /// Hands the allocator's free memory back to the system now, after a collection.
    static func releaseFreeMemory() {
        releaseFastMallocFreeMemory?()
    }

    private static let pageSize = UInt64(max(1, sysconf(Int32(_SC_PAGESIZE))))

    /// Resident bytes now, or `nil` when the figure cannot be read.
    package static func bytes() -> UInt64? {
        let descriptor = unsafe open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var text = [UInt8](repeating: 0, count: 128)
        let count = unsafe text.withUnsafeMutableBytes { unsafe read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        // "size resident shared text lib data dt", in pages: the second field.
        let fields = text.prefix(count).split(separator: UInt8(ascii: " "))
        guard fields.count > 1, fields[1].count < 19, fields[1].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        let pages = fields[1].reduce(UInt64(0)) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) }
        return pages * pageSize
    }
}
