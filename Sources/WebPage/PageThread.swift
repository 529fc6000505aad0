import ScriptEngine

/// Where a page's scripts run.
///
/// `alert`, `confirm` and `prompt` are synchronous in JavaScript: the script that calls one
/// waits on the engine thread until the person answers, and JavaScriptCore cannot suspend a
/// native call and return to the run loop. Nor can another page on that thread run meanwhile:
/// every context of an ``EngineThread`` shares one VM, whose lock the waiting call holds, and
/// the VM runs a page's promise reactions only when its outermost call returns. So a page that
/// can show panels — one with a ``UIDelegate`` — gets an engine thread (and VM) of its own
/// unless the app chose a thread: its panel then suspends that page only, and the pages of
/// the shared pool keep getting their bridge replies, timers and navigations.
enum PageThread {
    /// The thread for a page configured as `configuration`, and the owner that stops it
    /// when the page goes away (`nil` for a thread the page shares).
    static func choose(for configuration: WebPageConfiguration) -> (EngineThread, OwnedEngineThread?) {
        if let thread = configuration.thread { return (thread, nil) }
        guard configuration.uiDelegate != nil else { return (EnginePool.shared.nextThread(), nil) }
        let owned = OwnedEngineThread(EngineThread(name: "WebPage panels"))
        return (owned.thread, owned)
    }
}

/// An engine thread one page made for itself; it stops once the page is released (after the
/// jobs already queued ran), never earlier, so a closed page still answers its callers.
final class OwnedEngineThread: Sendable {
    let thread: EngineThread

    init(_ thread: EngineThread) { self.thread = thread }

    deinit { thread.shutdown() }
}
