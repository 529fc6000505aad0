import Logging
import Synchronization

/// Keeps every log message and its metadata, to search them for secrets.
final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    func logger() -> Logger {
        var logger = Logger(label: "test") { _ in Handler(recorder: self) }
        logger.logLevel = .trace
        return logger
    }

    func append(_ line: String) { self.lines.withLock { $0.append(line) } }
    func text() -> String { self.lines.withLock { $0.joined(separator: "\n") } }

    struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { self.metadata[key] }
            set { self.metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = self.metadata.merging(event.metadata ?? [:]) { $1 }
            self.recorder.append("\(event.level) \(event.message) \(merged)")
        }
    }
}
