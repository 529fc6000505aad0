import ArgumentParser

extension ExitCode {
    /// A page script threw an exception nobody caught.
    static let scriptError = ExitCode(1)
    /// A promise rejected without a handler.
    static let unhandledRejection = ExitCode(2)
    /// The page was still busy when `--timeout` passed.
    static let timedOut = ExitCode(3)
    /// The server could not be reached (or failed the load).
    static let serverUnreachable = ExitCode(4)
    /// The sign-in was refused: wrong credentials (`invalid_grant`), a refused or misconfigured
    /// client (`invalid_client`, `unauthorized_client`, `invalid_scope`, …), an answer that failed
    /// a check (issuer, state, `iss`, ID token), or a `--refresh-token-file` token the server
    /// refused during the run. Not "unreachable": the server answered.
    static let signInRefused = ExitCode(5)
    /// The arguments or settings are unusable.
    static let badArguments = ExitCode(64)
    /// A file named on the command line is missing or unreadable.
    static let missingInput = ExitCode(66)
}

/// An error that ends the command with a message and a specific exit code.
struct RunnerFailure: Error, CustomStringConvertible {
    var description: String
    var exitCode: ExitCode
}
