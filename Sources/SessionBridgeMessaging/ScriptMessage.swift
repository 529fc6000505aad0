public import SessionBridgeScriptEngine

/// A message a script posted with `window.webkit.messageHandlers.<name>.postMessage(body)`.
public struct ScriptMessage: Sendable {
    /// The handler's name.
    public let name: String
    /// The structured body, already cloned out of JavaScript.
    public let body: ScriptValue
    /// The frame that sent it.
    public let frameInfo: FrameInfo
    /// The content world of the script that sent it.
    public let world: ContentWorld

    public init(name: String, body: ScriptValue, frameInfo: FrameInfo, world: ContentWorld) {
        self.name = name
        self.body = body
        self.frameInfo = frameInfo
        self.world = world
    }
}
