import Foundation
import Synchronization

/// The display GTK needs. WebKitGTK 2.50 has no display-less mode: `gtk_init` fails with
/// "Cannot open display" when there is none.
///
/// When `DISPLAY` (or `WAYLAND_DISPLAY`, or a Broadway backend) is set, that display is used.
/// Otherwise the engine starts its own Xvfb (`Xvfb -displayfd 1 -nolisten tcp -terminate`, which
/// picks a free display number and exits when its last client, this process, goes away) and
/// stops it when the process exits. A user never has to start one.
///
/// The engine also sets `WEBKIT_DISABLE_COMPOSITING_MODE=1` unless the environment says
/// otherwise: GL compositing on a virtual display costs about 50 MB per page for nothing.
public enum DisplayServer {
    /// How long Xvfb may take to announce its display.
    public static let startTimeout: Duration = .seconds(10)

    /// The display in use, once the engine started.
    public static var currentDisplay: String? {
        ProcessInfo.processInfo.environment["DISPLAY"] ?? ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"]
            ?? ProcessInfo.processInfo.environment["BROADWAY_DISPLAY"]
    }

    /// Whether the engine started an Xvfb of its own.
    public static var startedOwnServer: Bool { xvfbProcessID.load(ordering: .relaxed) > 0 }

    /// Makes sure GTK has a display, starting an Xvfb when none is set.
    static func ensureDisplay() throws(WebKitError) {
        let environment = ProcessInfo.processInfo.environment
        if let display = environment["DISPLAY"], !display.isEmpty { return }
        if let display = environment["WAYLAND_DISPLAY"], !display.isEmpty { return }
        if environment["GDK_BACKEND"] == "broadway" { return }
        let display = try startXvfb()
        unsafe setenv("DISPLAY", display, 1)
        unsafe setenv("GDK_BACKEND", "x11", 1)
    }

    private static func startXvfb() throws(WebKitError) -> String {
        let searchPath = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard
            let executable = (searchPath.map { "\($0)/Xvfb" } + ["/usr/bin/Xvfb"]).first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            throw WebKitError(.displayUnavailable, "no DISPLAY is set and Xvfb is not installed (Scripts/setup installs it)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-displayfd", "1", "-nolisten", "tcp", "-terminate", "-screen", "0", "1280x1024x24"]
        let announcement = Pipe()
        process.standardOutput = announcement
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw WebKitError(.displayUnavailable, "Xvfb could not be started: \(error.localizedDescription)")
        }
        xvfbProcessID.store(process.processIdentifier, ordering: .relaxed)
        atexit { stopXvfbAtExit() }

        // Xvfb writes the display number and a newline to fd 1 once it accepts clients.
        let fd = announcement.fileHandleForReading.fileDescriptor
        let deadline = ContinuousClock.now + startTimeout
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 64)
        while !text.contains("\n") {
            let remaining = deadline - .now
            guard remaining > .zero else { break }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
            guard unsafe poll(&poller, 1, max(1, milliseconds)) > 0 else { continue }
            let count = unsafe read(fd, &buffer, buffer.count)
            guard count > 0 else { break }
            text += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        guard let number = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            stopOwnServer()
            throw WebKitError(.displayUnavailable, "Xvfb did not announce a display within \(startTimeout)")
        }
        return ":\(number)"
    }

    /// Stops the Xvfb the engine started, if any (also done at exit).
    static func stopOwnServer() {
        let pid = xvfbProcessID.exchange(0, ordering: .relaxed)
        if pid > 0 { kill(pid, SIGTERM) }
    }
}

private func stopXvfbAtExit() {
    DisplayServer.stopOwnServer()
}

/// The Xvfb this process started, 0 when none.
private let xvfbProcessID = Atomic<Int32>(0)
