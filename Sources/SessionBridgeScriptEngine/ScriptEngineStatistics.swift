package import CJavaScriptCore
import Foundation
import Synchronization

/// Process-wide counters that tests and benchmarks read to prove the engine balances its
/// resources.
package enum ScriptEngineStatistics {
    static let protectedValues = Atomic<Int>(0)
    static let liveContexts = Atomic<Int>(0)

    /// JavaScript values currently protected from garbage collection by SessionBridge
    /// (every `JSValueProtect` not yet balanced by a `JSValueUnprotect`).
    public static var protectedValueCount: Int { protectedValues.load(ordering: .relaxed) }

    /// ``ScriptContext``s created and not yet closed or deinitialised.
    public static var liveContextCount: Int { liveContexts.load(ordering: .relaxed) }

    /// The process's resident memory in bytes (`/proc/self/statm`), or 0 where unavailable.
    public static func residentMemoryBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

extension ScriptContext {
    /// Protects a value from garbage collection until ``unprotect(_:)``; counted per context and
    /// process-wide so tests can prove the two balance.
    @inline(__always)
    package func protect(_ value: JSValueRef) {
        unsafe globalContext.protect(value)
        protectedCount += 1
        ScriptEngineStatistics.protectedValues.add(1, ordering: .relaxed)
    }

    /// Balances one ``protect(_:)``.
    @inline(__always)
    package func unprotect(_ value: JSValueRef) {
        unsafe globalContext.unprotect(value)
        protectedCount -= 1
        ScriptEngineStatistics.protectedValues.subtract(1, ordering: .relaxed)
    }
}
