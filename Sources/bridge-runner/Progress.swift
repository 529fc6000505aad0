import Foundation

/// A spinner with counts on standard error while a run waits, only when standard error is a
/// terminal (and never in `--json` mode).
final class Progress: Sendable {
    private let task: Task<Void, Never>?

    init(enabled: Bool, transcript: Transcript) {
        guard enabled, isatty(STDERR_FILENO) == 1 else {
            task = nil
            return
        }
        task = Task.detached {
            let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
            var index = 0
            let clock = ContinuousClock()
            let start = clock.now
            while !Task.isCancelled {
                let counts = transcript.counts
                let seconds = Double((clock.now - start).components.seconds)
                let line =
                    "\r\(frames[index % frames.count]) running \(Int(seconds)) s · \(counts.bridgeCalls) bridge calls · \(counts.scriptErrors) errors "
                FileHandle.standardError.write(Data(line.utf8))
                index += 1
                try? await Task.sleep(for: .milliseconds(120))
            }
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        }
    }

    /// Stops and clears the spinner.
    func finish() async {
        task?.cancel()
        await task?.value
    }
}
