import SessionBridgeScriptEngine

/// The JavaScript panels a page shows through its ``UIDelegate``. (WebKit's script dialog types.)
enum PanelKind: String, Sendable {
    /// `alert(message)`: answered once dismissed.
    case alert
    /// `confirm(message)`: answered `true` or `false`.
    case confirm
    /// `prompt(message, defaultText)`: answered with text or `null`.
    case prompt

    /// What the script gets when nobody answers: no delegate, or the panel timeout passed.
    var dismissedValue: ScriptValue {
        switch self {
        case .alert: .undefined
        case .confirm: false
        case .prompt: .null
        }
    }
}
