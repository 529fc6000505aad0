import Dispatch
import Foundation
import SessionBridge

/// What a run does when it is told to stop (`SIGINT`, `SIGTERM`): says so, does `finish` (a
/// plain token file gets the rotated token, which the next run needs), and ends with the
/// shell's code for the signal (130, 143). The default action had ended the process at once,
/// leaving the file with a token the server had already rotated, so that the next run's
/// refresh had the session ended as reuse.
enum RunInterruption {
    /// Armed while the returned value lives.
    final class Armed {
        fileprivate let sources: [any DispatchSourceSignal]

        fileprivate init(sources: [any DispatchSourceSignal]) { self.sources = sources }

        deinit {
            for source in sources { source.cancel() }
        }
    }

    /// Arms the run's end on a signal: it says so and saves the rotated token to the plain
    /// token file, if the run has one (``SignIn/keepRotatedAtTheDeadline(from:inPlainFile:transcript:)``).
    static func arm(saving vault: any TokenVault, toPlainFile path: String?, transcript: Transcript) -> Armed {
        arm { signal in
            transcript.failure("the run was interrupted (signal \(signal))")
            SignIn.keepRotatedAtTheDeadline(from: vault, inPlainFile: path, transcript: transcript)
        }
    }

    static func arm(finish: @escaping @Sendable (Int32) -> Void) -> Armed {
        let queue = DispatchQueue(label: "run-interruption")
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                finish(number)
                fflush(nil)
                // `_exit`: an engine thread may be inside JavaScriptCore (see ``RunDeadline``).
                _exit(128 + number)
            }
            source.resume()
            return source
        }
        return Armed(sources: sources)
    }
}
