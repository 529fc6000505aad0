/// A namespace for scripts, as in WebKit: each world has its own global object, and a handler
/// registered in one world is invisible in every other.
///
/// Page scripts run in ``page``; the app's own scripts can run in ``defaultClient`` or a named
/// world, where they can call handlers that page scripts cannot even see.
public struct ContentWorld: Sendable, Hashable, CustomStringConvertible {
    /// The world's name; `"page"` for the page world.
    public let name: String

    private init(name: String) { self.name = name }

    /// The world of the page's own scripts.
    public static let page = ContentWorld(name: "page")
    /// The app's default isolated world.
    public static let defaultClient = ContentWorld(name: "defaultClient")

    /// A named isolated world; the same name gives the same world.
    public static func world(name: String) -> ContentWorld {
        ContentWorld(name: "world:" + name)
    }

    public var description: String { name }
}
