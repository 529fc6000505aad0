import ArgumentParser
import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeOAuth
import SessionBridgeTesting

/// How `run` and `login` sign in: the authorization code flow with PKCE when a redirect URI is
/// configured (the sign-in form filled with --user and the password), else the password grant.
enum SignIn {
    /// The password for `user`: --password, --password-file, SESSIONBRIDGE_PASSWORD or a prompt.
    static func password(flag: String?, file: String?, user: String) throws -> String {
        guard
            let password = try SecretSource.read(
                value: flag, file: file, environment: "SESSIONBRIDGE_PASSWORD", prompt: "password for \(user)")
        else {
            throw RunnerFailure(
                description: "no password for \(user): use --password-file, SESSIONBRIDGE_PASSWORD or a terminal", exitCode: .badArguments)
        }
        return password
    }

    /// Signs `session` in as `user`; the returned line says how.
    static func signIn(_ session: SessionController, user: String, password: String, codeFlow: Bool) async throws(SessionError) -> String {
        if codeFlow {
            try await session.signIn(with: FormFillingUserAgent(username: user, password: Secret(password)))
            let subject = await session.idToken.map { " (ID token subject \($0.subject))" } ?? ""
            return "signed in as \(user) with the authorization code flow and PKCE\(subject)"
        }
        let status = try await session.login(username: user, password: password)
        return "signed in natively as \(user); access token expires \(status.accessTokenExpiresAt.map { "\($0)" } ?? "unknown")"
    }

    /// The exit code and message for a failed sign-in: refused (5) when the server answered,
    /// unreachable (4) when it did not.
    static func failure(_ error: SessionError, codeFlow: Bool = false) -> RunnerFailure {
        switch error.code {
        case .network:
            return RunnerFailure(description: "sign-in failed, the server is unreachable: \(error.message)", exitCode: .serverUnreachable)
        case .storage:
            // A store of the run's own files (a profile's, a vault): the file is unusable, not the sign-in.
            return RunnerFailure(description: "a stored file cannot be used: \(error.message)", exitCode: .missingInput)
        case .invalidGrant where codeFlow:
            return RunnerFailure(
                description:
                    "sign-in refused (invalid_grant): the token endpoint refused the authorization code (a redirect URI or a PKCE verifier it does not match, or a code expired or used)",
                exitCode: .signInRefused)
        case .invalidGrant:
            return RunnerFailure(
                description: "sign-in refused (invalid_grant): wrong username or password, or an expired grant", exitCode: .signInRefused)
        default:
            return RunnerFailure(description: "sign-in refused (\(error.code.rawValue)): \(error.message)", exitCode: .signInRefused)
        }
    }

    /// Prints why a sign-in failed and gives the exit code: ``failure(_:)`` for the session's
    /// errors, the runner's own failures as they are, unreachable (4) or failure (1) otherwise.
    static func report(_ error: any Error, to transcript: Transcript, codeFlow: Bool = false) -> ExitCode {
        let failure: RunnerFailure
        switch error {
        case let error as SessionError: failure = Self.failure(error, codeFlow: codeFlow)
        case let error as RunnerFailure: failure = error
        default:
            failure = RunnerFailure(
                description: "sign-in failed: \(error)",
                exitCode: RunCommand.isUnreachable(error) ? .serverUnreachable : .failure)
        }
        transcript.failure(failure.description)
        return failure.exitCode
    }

    /// Adopts the refresh token in `path`: a vault file `login` wrote (the session's vault
    /// then, see ``vault(at:)``), or the plain token. Anything else is refused before a
    /// request is made: a file that is neither (a vault cut short, another file named by
    /// mistake) must not reach the token endpoint as a token.
    static func adopt(_ session: SessionController, from path: String) async throws {
        if let record = try? FileTokenVault(url: URL(fileURLWithPath: path)).load() {
            _ = try await session.adopt(refreshToken: record.refreshToken, accessTokenExpiresAt: record.accessTokenExpiresAt)
            return
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RunnerFailure(description: "cannot read \(path)", exitCode: .missingInput)
        }
        guard let token = plainRefreshToken(data) else {
            throw RunnerFailure(
                description:
                    "\(path) is neither a vault `login` wrote nor a plain refresh token (one line of visible ASCII characters): nothing was sent",
                exitCode: .missingInput)
        }
        _ = try await session.adopt(refreshToken: RefreshToken(token))
    }

    /// A run's exit once it ended: a run given `--refresh-token-file` whose session the server
    /// ended as `invalid_grant` (a spent, revoked or foreign token) fails with exit 5, as a
    /// refused password does, whatever the page then did signed out (an error it did not
    /// catch, a wait past the timeout): the token is what to mend. The run had passed, or
    /// failed on the page's error without naming the token.
    static func exit(
        _ exit: ExitCode, of session: SessionController, adoptedFrom path: String?, transcript: Transcript
    ) async -> ExitCode {
        guard let path, await session.lastSignOutReason == "invalid_grant" else { return exit }
        transcript.failure(
            "the server refused the refresh token from \(path) (invalid_grant): the page ran signed out. Sign in again (bridge-runner login) for a new one"
        )
        return .signInRefused
    }

    /// The session's vault for `--refresh-token-file path`: the file itself when it is a vault
    /// `login` wrote, so that a rotated token is saved where the next run finds it; `nil` for a
    /// plain token (which stays as it is).
    static func vault(at path: String) -> FileTokenVault? {
        let vault = FileTokenVault(url: URL(fileURLWithPath: path))
        return (try? vault.load()) != nil ? vault : nil
    }

    /// Saves to a plain refresh-token file the token the session holds at the end of the run,
    /// when the server rotated the one adopted from it: that one is spent, and the next run
    /// would send it and have the session ended as reuse. The file is replaced crash-safely,
    /// readable by its owner only; a session that ended leaves it as it was. Returns what to
    /// tell the user, or `nil` when nothing changed.
    static func keepRotated(from vault: any TokenVault, inPlainFile path: String) -> String? {
        guard let record = try? vault.load(), let data = FileManager.default.contents(atPath: path),
            let adopted = plainRefreshToken(data), record.refreshToken != RefreshToken(adopted)
        else { return nil }
        let text = record.refreshToken.withRevealedValue { $0 + "\n" }
        do throws(CrashSafeFile.Failure) {
            try CrashSafeFile.write(Array(text.utf8), to: path, order: .durableBeforeVisible)
            return "saved the rotated refresh token to \(path)"
        } catch {
            return
                "warning: the rotated refresh token could not be saved to \(path) (\(error.operation) failed): the next run needs a new one"
        }
    }

    /// ``keepRotated(from:inPlainFile:)`` as the hard deadline ends the run: a page that kept
    /// the run past it must not leave the file with a spent token, which the next run would
    /// send and have the session ended as reuse.
    static func keepRotatedAtTheDeadline(from vault: any TokenVault, inPlainFile path: String?, transcript: Transcript) {
        guard let path, vault is InMemoryTokenVault, let note = keepRotated(from: vault, inPlainFile: path) else { return }
        transcript.note(note)
    }

    /// A plain refresh token file's token: one line of RFC 6749's visible characters without
    /// spaces (a final line break allowed), at most 16 KB, and no JSON (a vault cut short).
    static func plainRefreshToken(_ data: Data) -> String? {
        guard data.count <= 16_384, var text = String(data: data, encoding: .utf8) else { return nil }
        // One final line break, LF or CRLF (one Character in Swift: its scalars are compared).
        if text.unicodeScalars.last == "\n" { text.unicodeScalars.removeLast() }
        if text.unicodeScalars.last == "\r" { text.unicodeScalars.removeLast() }
        guard let first = text.unicodeScalars.first, first != "{", first != "[",
            text.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) })
        else { return nil }
        return text
    }
}
