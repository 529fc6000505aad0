import Foundation
import Synchronization

/// The web process extension that reports WebKit's own console lines
/// (`libSessionBridgeWebProcessExtension.so`, this package's `SessionBridgeWebProcessExtension`
/// product).
///
/// WebKitGTK tells the embedder nothing of a page's console. What WebKit itself writes there (a
/// Content Security Policy's refusal, a blocked port, a failed CORS check, an uncaught exception,
/// an unhandled rejection) is known only in the web process; the extension, loaded there, sends
/// each line to its view, which reports it as a ``PageEvent``. Lines of the console API
/// (`console.log`) are not among them: WebKit keeps only their first argument. Nor are the lines
/// of a view whose store is non-persistent: WebKit keeps a private session's console to itself.
///
/// The library is looked for at `SESSIONBRIDGE_WEB_PROCESS_EXTENSION` (a path to the file),
/// then beside the running executable, where `swift build` puts it: ship it beside your app's
/// executable. WebKit loads every library of the directory it is given, so the views' contexts
/// are given a private directory (made with `mkdtemp`, mode 0700, removed at exit) holding a link
/// to this one library only.
public enum WebProcessExtension {
    /// The library's file name.
    public static let fileName = "libSessionBridgeWebProcessExtension.so"

    /// Where the library was found, or `nil` when it was not (views then report no WebKit
    /// console lines: ``WebKitWebView`` still works).
    public static var libraryPath: String? { located?.library }

    /// The directory the views' web contexts load extensions from.
    static var directory: String? { located?.directory }

    private static let located: (library: String, directory: String)? = {
        guard let library = findLibrary(), let directory = privateDirectory(prefix: "sessionbridge-web-process-extension") else {
            return nil
        }
        guard unsafe symlink(library, directory + "/" + fileName) == 0 else {
            unsafe rmdir(directory)
            return nil
        }
        madeDirectory.withLock { $0 = directory }
        atexit {
            guard let directory = madeDirectory.withLock({ $0 }) else { return }
            unsafe unlink(directory + "/" + WebProcessExtension.fileName)
            unsafe rmdir(directory)
        }
        return (library, directory)
    }()

    /// A new directory in the temporary directory, its name starting with `prefix`, made with
    /// `mkdtemp` (mode 0700, a name no other process has); `nil` when it cannot be made.
    package static func privateDirectory(prefix: String) -> String? {
        var template = Array((NSTemporaryDirectory() + "/\(prefix)-XXXXXX").utf8CString)
        guard let made = unsafe mkdtemp(&template) else { return nil }
        return unsafe String(cString: made)
    }

    /// The private directory, for its removal at exit.
    private static let madeDirectory = Mutex<String?>(nil)

    private static func findLibrary() -> String? {
        if let path = ProcessInfo.processInfo.environment["SESSIONBRIDGE_WEB_PROCESS_EXTENSION"], !path.isEmpty {
            return FileManager.default.isReadableFile(atPath: path) ? URL(fileURLWithPath: path).standardizedFileURL.path : nil
        }
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let path = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent(fileName).path
        return FileManager.default.isReadableFile(atPath: path) ? path : nil
    }
}
