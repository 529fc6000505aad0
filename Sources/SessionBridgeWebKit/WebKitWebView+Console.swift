import CWebKitGTK
import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import WebKitGTKShim

extension WebKitWebView {
    /// Hears the console lines ``WebProcessExtension`` sends from the web process.
    func connectConsole() {
        unsafe sb_connect_user_message_received(
            webView,
            { _, message, data in
                guard let data = unsafe data, let message = unsafe message else { return 0 }
                var source: UInt32 = 0, level: UInt32 = 0, line: UInt32 = 0
                var text: UnsafePointer<CChar>? = nil, sourceURL: UnsafePointer<CChar>? = nil
                guard unsafe sb_console_message_read(message, &source, &level, &text, &sourceURL, &line) != 0 else { return 0 }
                // The message's source, URL and line are read and not reported: `ConsoleMessage` has
                // no field for them.
                let received = WebKitConsoleLine(level: level, text: unsafe text.map { unsafe String(cString: $0) } ?? "")
                let target = unsafe Unmanaged<SignalTarget>.fromOpaque(data).takeUnretainedValue()
                WebKitActor.assumeIsolated { target.view?.consoleLine(received) }
                return 1
            }, unsafe Unmanaged.passRetained(signals).toOpaque(),
            { data, _ in
                if let data = unsafe data { unsafe Unmanaged<SignalTarget>.fromOpaque(data).release() }
            })
    }

    /// Reports a line of WebKit's console as ``PageEvent/console(_:url:)``, its text as WebKit
    /// wrote it. An uncaught exception's line is among them (`TypeError: boom`), and an
    /// unhandled rejection's (`Unhandled Promise Rejection: RangeError: nope`): WebKit's line
    /// does not say which it is (`throw "text"` writes `text`, as a failed `fetch` writes its
    /// own words), so neither is reported as ``PageEvent/scriptError(_:unhandledRejection:url:)``.
    private func consoleLine(_ line: WebKitConsoleLine) {
        configuration.eventHandler?(
            .console(ConsoleMessage(level: line.consoleLevel, text: line.text), url: url ?? URL(string: "about:blank")!))
    }
}

/// A line of WebKit's console, as the web process extension sends it.
struct WebKitConsoleLine: Sendable {
    /// A `WebKitConsoleMessageLevel` (declared only in the web process extension API; the
    /// values below are its).
    var level: UInt32
    var text: String

    static let infoLevel: UInt32 = 0, warningLevel: UInt32 = 2, errorLevel: UInt32 = 3, debugLevel: UInt32 = 4

    /// The console level the headless page would give the line.
    var consoleLevel: ConsoleMessage.Level {
        switch level {
        case Self.infoLevel: .info
        case Self.warningLevel: .warn
        case Self.errorLevel: .error
        case Self.debugLevel: .debug
        default: .log
        }
    }
}
