import SessionBridgeScriptEngine

/// Where a page's scripts run.
///
/// `alert`, `confirm` and `prompt` are synchronous in JavaScript: the script that calls one
/// waits until the person answers, and JavaScriptCore cannot suspend a native call and return
/// to the run loop. The waiting call holds its VM's lock, and a VM runs its promise reactions
/// only when its outermost call returns, so no other context of that VM could go on meanwhile.
///
/// So a page that can show panels — one with a ``UIDelegate`` — runs on a lane of its engine
/// thread (``EngineThread/makeLane(name:)``): a VM of its own, whose work runs on the shared
/// thread. While its panel is open, the thread runs every other page's bridge replies, timers,
/// fetch completions and navigations, and keeps this page's own work for after the panel, as a
/// browser pauses the page that shows a modal panel. Pages without a UI delegate share their
/// thread's VM, which keeps them cheap.
enum PageThread {
    /// The executor for a page configured as `configuration`: on the configured thread, or the
    /// next thread of the shared pool; a lane of it when the page has a UI delegate.
    static func choose(for configuration: WebPageConfiguration) -> EngineThread {
        let thread = configuration.thread ?? EnginePool.shared.nextThread()
        guard configuration.uiDelegate != nil else { return thread }
        return thread.makeLane(name: "WebPage panels")
    }
}
