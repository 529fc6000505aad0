import Foundation

/// Why the interop authorization server could not be started.
enum InteropServerError: Error, CustomStringConvertible {
    case notInstalled(python: String)
    case exitedBeforeReady(status: Int32, log: String)
    case notReady(seconds: Int, log: String)

    var description: String {
        switch self {
        case .notInstalled(let python):
            "The interop authorization server (django-oauth-toolkit) is not installed: \(python) is missing. Run Scripts/setup (it runs Scripts/setup-interop) and try again."
        case .exitedBeforeReady(let status, let log):
            "The interop authorization server exited with status \(status) before it was ready. Its log:\n\(log)"
        case .notReady(let seconds, let log):
            "The interop authorization server did not print READY within \(seconds) s. Its log:\n\(log)"
        }
    }
}
