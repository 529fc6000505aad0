import ArgumentParser
import Foundation
import Logging

/// `bridge-runner`: runs page scripts against a real server and shows what crossed the bridge,
/// what navigated and what the cookie stores hold.
@main
struct BridgeRunner: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bridge-runner",
        abstract: "Run page scripts in JavaScriptCore against a real server, with native code owning the session.",
        discussion: """
            Without --server, 'run' and 'demo' start the embedded reference server on 127.0.0.1 (random port) \
            and sign in natively as the demo user first.
            """,
        version: "1.0.0",
        subcommands: [RunCommand.self, LoginCommand.self, FetchCommand.self, DemoCommand.self, ServeCommand.self, CookiesCommand.self]
    )

    /// Library logs go to standard error, warnings and worse unless `SESSIONBRIDGE_LOG_LEVEL` says otherwise.
    static func main() async {
        let level = ProcessInfo.processInfo.environment["SESSIONBRIDGE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        do {
            var command = try parseAsRoot()
            if var command = command as? (any AsyncParsableCommand) {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let failure as RunnerFailure {
            FileHandle.standardError.write(Data("bridge-runner: \(failure.description)\n".utf8))
            Foundation.exit(failure.exitCode.rawValue)
        } catch {
            exit(withError: error)
        }
    }
}
