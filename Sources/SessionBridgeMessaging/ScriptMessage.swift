public import SessionBridgeScriptEngine

/// A message a script posted with `window.webkit.messageHandlers.<name>.postMessage(body)`.
public struct ScriptMessage: Sendable {
    /// The handler's name.
    public var name: String { route.name }
    /// The structured body, already cloned out of JavaScript.
    public let body: ScriptValue
    /// The frame that sent it.
    public var frameInfo: FrameInfo { route.frameInfo }
    /// The content world of the script that sent it.
    public var world: ContentWorld { route.world }

    /// Where the message came from, shared by every message one document posts to one handler:
    /// a message is then its body and one reference.
    let route: Route

    public init(name: String, body: ScriptValue, frameInfo: FrameInfo, world: ContentWorld) {
        self.init(body: body, route: Route(name: name, frameInfo: frameInfo, world: world))
    }

    /// A message of the document and handler `route` stands for.
    package init(body: ScriptValue, route: Route) {
        self.body = body
        self.route = route
    }

    /// A handler's name, the frame and the content world of the messages a document posts to it;
    /// the message log records calls by it.
    package final class Route: Sendable {
        let name: String
        let frameInfo: FrameInfo
        let world: ContentWorld
        /// The frame's origin as the message log shows it, made once.
        let origin: String

        package init(name: String, frameInfo: FrameInfo, world: ContentWorld) {
            self.name = name
            self.frameInfo = frameInfo
            self.world = world
            self.origin = frameInfo.securityOrigin?.description ?? "null"
        }
    }
}
