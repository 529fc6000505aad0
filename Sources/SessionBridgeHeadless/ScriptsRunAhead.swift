import SessionBridgeMessaging
import SessionBridgeScriptEngine
import Synchronization

/// The user scripts at document start that a document ran before its navigation's response,
/// while it was prepared (``UserScript/isDocumentIndependent``), and what they reported then.
///
/// Only the scripts that open a world's list at document start run ahead, so the order of a
/// world's scripts is kept. At commit the document is used only if those scripts still open
/// the world's list (the app may have changed its scripts meanwhile); their events are then
/// reported as the document's, with its URL, where the scripts would have run.
final class ScriptsRunAhead: Sendable {
    /// What a script run ahead reported: a console message or uncaught error of its context,
    /// or the exception that ended it.
    enum Report: Sendable {
        case event(ScriptEvent)
        case thrown(ScriptError)
    }

    /// The scripts run, in order.
    let scripts: [UserScript]
    private let reports: Mutex<[Report]>

    private init(scripts: [UserScript], reports: [Report]) {
        self.scripts = scripts
        self.reports = Mutex(reports)
    }

    /// Runs the scripts of `world` that open its list at document start and read nothing of
    /// the document, in a prepared document no page script has touched, and records them.
    static func run(_ userScripts: [UserScript], world: ContentWorld, in context: isolated ScriptContext) {
        let ahead = Array(atDocumentStart(userScripts, in: world).prefix { $0.isDocumentIndependent })
        guard !ahead.isEmpty else { return }
        let record = ScriptsRunAhead(scripts: ahead, reports: [])
        // The context reports nothing else until the document is committed, when its event
        // handler is replaced by the page's.
        context.setEventHandler { event in record.reports.withLock { $0.append(.event(event)) } }
        for script in ahead {
            do {
                try context.run(script.source, sourceURL: script.sourceURL)
            } catch {
                record.reports.withLock { $0.append(.thrown(error)) }
            }
        }
        context.setEventHandler(nil)
        context.attach(record)
    }

    /// How many of `world`'s scripts at document start the context ran ahead, detaching the
    /// record; `nil` when they no longer open the world's list (the context must not be used).
    static func take(
        from context: isolated ScriptContext, scripts userScripts: [UserScript], world: ContentWorld
    ) -> (count: Int, reports: [Report])? {
        guard let record = context.attachment(ScriptsRunAhead.self) else { return (0, []) }
        context.detach(ScriptsRunAhead.self)
        guard atDocumentStart(userScripts, in: world).starts(with: record.scripts) else { return nil }
        return (record.scripts.count, record.reports.withLock { $0 })
    }

    /// `world`'s scripts at document start, in the order they run.
    private static func atDocumentStart(_ userScripts: [UserScript], in world: ContentWorld) -> some Sequence<UserScript> {
        userScripts.lazy.filter { $0.injectionTime == .atDocumentStart && $0.contentWorld == world }
    }
}
