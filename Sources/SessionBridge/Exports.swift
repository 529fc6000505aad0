// `import SessionBridge` is all an app needs: the session controller, the headless engine, the
// bridge, the script values its handlers receive, cookies and the OAuth client come with it.
// The WebKitGTK engine is its own product (`SessionBridgeWebKit`), so an app that does not use it
// does not link WebKitGTK.
@_exported public import SessionBridgeCookies
@_exported public import SessionBridgeHeadless
@_exported public import SessionBridgeMessaging
@_exported public import SessionBridgeOAuth
@_exported public import SessionBridgeScriptEngine
