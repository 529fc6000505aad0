/// Why a page's web content process ended (WebKit's `WebKitWebProcessTerminationReason`).
///
/// Only the WebKit engine has a web content process; a headless ``WebPage`` runs its scripts in
/// the app's process. It reports ``exceededMemoryLimit`` when it ended its document for
/// ``WebPageConfiguration/memoryLimitMB``, and no other reason.
public enum WebContentProcessTerminationReason: String, Sendable, Hashable {
    /// The process crashed, or something outside WebKit killed it.
    case crashed
    /// WebKit ended it for using more memory than its memory pressure settings allow.
    case exceededMemoryLimit
    /// The view ended it because a script ran past its time limit (it stopped answering).
    case exceededTimeLimit
    /// The app ended it.
    case terminatedByApp

    /// The reason in a sentence, for logs and transcripts.
    public var description: String {
        switch self {
        case .crashed: "the web process crashed"
        case .exceededMemoryLimit: "the web process exceeded its memory limit and was ended"
        case .exceededTimeLimit: "the web process was ended: a script ran past the time limit"
        case .terminatedByApp: "the web process was ended by the app"
        }
    }
}
