import CJavaScriptCore
import Foundation

/// The process-wide JavaScriptCore options SessionBridge chooses, set before the process's
/// first JavaScriptCore VM.
///
/// JavaScriptCore reads its options once, from `JSC_`-prefixed environment variables, when it
/// initializes; afterwards they cannot change (`jsc_options_set_*` then writes to a frozen page
/// and crashes the process). So each is set in the environment, before the first engine thread
/// or WebKit view: a value the user set is kept, and if something else in the process started
/// JavaScriptCore first, JavaScriptCore keeps its own defaults and nothing breaks. Child
/// processes (WebKit's web processes) inherit them.
package enum JavaScriptCoreSettings {
    /// The options and their values, as JavaScriptCore names them.
    ///
    /// - `usePollingTraps`: by default JavaScriptCore stops a script that runs in optimized
    ///   machine code by suspending its thread with a signal and patching the code it is in. For
    ///   a loop in optimized code entered through the C API (a getter that a native conversion
    ///   reads) that patching can fail again and again: the watchdog's stop then never arrives
    ///   and the thread runs forever (seen about once in eight stops of such a loop under load).
    ///   With polling traps every loop and call checks for a stop itself.
    /// - `thresholdForOptimizeAfterWarmUp`, `thresholdForOptimizeAfterLongWarmUp`,
    ///   `thresholdForOptimizeSoon` (JavaScriptCore: 1,000 each): how much a function must run,
    ///   in JavaScriptCore's execution counts, before its optimizing compiler (DFG) compiles it.
    ///   Each document is a new global object, whose functions, the built-in ones included, are
    ///   compiled anew. At 1,000, a function called about 70 times is compiled, at 0.2-0.5 ms of
    ///   CPU each: a page that awaits 100 promises at once (`Promise.all`) had eleven of the
    ///   promise built-ins compiled, 4.5 ms of compilation per document, and its whole refresh
    ///   cycle took 7.4-9.0 ms where it takes 5.3-5.8 ms without it (figure 6, two cores). At
    ///   20,000 a function must be called about 1,300 times in one document; a long-running page
    ///   reaches the optimizing compiler all the same, a fraction of a millisecond later.
    package static let options: KeyValuePairs<String, String> = [
        "usePollingTraps": "true",
        "thresholdForOptimizeAfterWarmUp": "20000",
        "thresholdForOptimizeAfterLongWarmUp": "20000",
        "thresholdForOptimizeSoon": "20000",
    ]

    /// Sets ``options`` in the environment, once, before JavaScriptCore starts, and makes the
    /// VMs made from then on without JavaScriptCore's collection timers.
    ///
    /// Engine threads run JavaScriptCore's run-loop work (``EngineThread``), and its timers for
    /// full and eden collections must not run there: the full collection's reaches WebKit's
    /// memory-pressure handler, which only a process's main thread can make, and stopped the
    /// process when a probe let it run on an engine thread. Without them JavaScriptCore collects
    /// as it allocates, as it did here before; its incremental sweeper and deferred work still run.
    package static let applied: Void = {
        for (name, value) in options {
            unsafe setenv("JSC_" + name, value, 0)
        }
        JSDisableGCTimer()
    }()

    /// The value JavaScriptCore uses for the integer option `name`, or `nil` if it has none.
    /// Starts JavaScriptCore's options (reading the environment) if nothing has yet.
    package static func integerValue(of name: String) -> Int32? {
        var value: Int32 = 0
        return unsafe jsc_options_get_int(name, &value) != 0 ? value : nil
    }

    /// The value JavaScriptCore uses for the Boolean option `name`, or `nil` if it has none.
    package static func booleanValue(of name: String) -> Bool? {
        var value: Int32 = 0
        return unsafe jsc_options_get_boolean(name, &value) != 0 ? value != 0 : nil
    }
}
