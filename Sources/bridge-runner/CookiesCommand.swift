import ArgumentParser
import Foundation
import SessionBridgeCookies

struct CookiesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cookies",
        abstract: "Parse Set-Cookie lines, show a profile's cookies, run conformance cases.",
        subcommands: [Parse.self, Show.self, Check.self]
    )

    struct Parse: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show how one Set-Cookie value parses and what a jar would do with it.")

        @Argument(help: "The Set-Cookie header value (without 'Set-Cookie:').")
        var header: String

        @Option(help: "The URL of the response that carried it.")
        var url: String = "https://example.com/"

        func run() throws {
            guard let url = URL(string: url), url.host != nil else {
                throw ValidationError("--url must be an absolute URL such as https://example.com/")
            }
            switch SetCookieParser.parse(header) {
            case .failure(let error):
                print("ignored: \(error)")
                throw ExitCode.failure
            case .success(let parsed):
                print("name      \(parsed.name.isEmpty ? "(empty)" : parsed.name)")
                print("value     \(parsed.value.isEmpty ? "(empty)" : parsed.value)")
                for attribute in parsed.attributes { print(Self.describe(attribute)) }
                for ignored in parsed.ignored { print("ignored   \(ignored)") }
                let jar = CookieJar()
                let outcome = jar.setCookie(header, from: url)
                print("jar       \(outcome)")
                if case .rejected = outcome { throw ExitCode.failure }
            }
        }

        static func describe(_ attribute: CookieAttribute) -> String {
            switch attribute {
            case .expires(let date): return "expires   \(date.formatted(.iso8601))"
            case .maxAge(let seconds): return "max-age   \(seconds)" + (seconds <= 0 ? " (deletes the cookie)" : "")
            case .domain(let domain): return "domain    \(domain)"
            case .path(let path): return "path      \(path.isEmpty ? "(default path of the URL)" : path)"
            case .secure: return "secure"
            case .httpOnly: return "httponly"
            case .sameSite(let sameSite): return "samesite  \(sameSite.rawValue)"
            case .partitioned: return "partitioned"
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the cookies stored in a profile.")

        @Option(help: "The profile directory.")
        var profile: String

        @Option(
            help:
                "One profile name inside the directory (default: every profile in it, e.g. the 'native' and 'page' stores 'run --profile' writes)."
        )
        var name: String?

        @Flag(help: "Print the values too (they are hidden by default).")
        var showValues = false

        func run() throws {
            let directory = URL(fileURLWithPath: profile)
            var isDirectory: ObjCBool = false
            guard unsafe FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
                throw RunnerFailure(description: "no profile directory at \(profile)", exitCode: .missingInput)
            }
            guard isDirectory.boolValue else {
                throw RunnerFailure(description: "\(profile) is a file; --profile takes the profile directory", exitCode: .missingInput)
            }
            let names = name.map { [$0] } ?? PersistentCookieStore.profiles(in: directory)
            guard !names.isEmpty else {
                throw RunnerFailure(description: "no cookie profile in \(profile)", exitCode: .missingInput)
            }
            for name in names { try show(PersistentCookieStore(directory: directory, profile: name), name: name) }
        }

        private func show(_ store: PersistentCookieStore, name: String) throws {
            let result: PersistentCookieStore.LoadResult
            do { result = try store.load() } catch { throw RunnerFailure(description: "\(error)", exitCode: .failure) }
            if let warning = result.warning { print("warning: \(warning)") }
            print("\(name): \(result.cookies.count) cookies (generation \(result.generation)) in \(store.fileURL?.path ?? profile)")
            for cookie in result.cookies.sorted(by: { ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name) }) {
                let value = showValues ? cookie.value : "<\(cookie.value.utf8.count) bytes>"
                var flags: [String] = []
                if cookie.isSecure { flags.append("Secure") }
                if cookie.isHttpOnly { flags.append("HttpOnly") }
                if cookie.sameSite != .unspecified { flags.append("SameSite=\(cookie.sameSite.rawValue)") }
                if cookie.isHostOnly { flags.append("host-only") }
                let expiry = cookie.expiresAt.map { $0.formatted(.iso8601) } ?? "session"
                print("  \(cookie.domain)\(cookie.path)  \(cookie.name)=\(value)  expires \(expiry)  \(flags.joined(separator: " "))")
            }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run cookie conformance cases (http-state form or the extended form).")

        @Argument(help: "A JSON file of cases.")
        var cases: String

        @Option(help: "An adjusted-expectations file whose rfc6265bis expectations replace the cases' own.")
        var adjustments: String?

        @Flag(help: "One JSON object per failing case, then a summary object.")
        var json = false

        func run() throws {
            let url = URL(fileURLWithPath: cases)
            var isDirectory: ObjCBool = false
            guard FileManager.default.isReadableFile(atPath: url.path),
                unsafe FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue
            else {
                throw RunnerFailure(description: "cannot read \(cases) (a readable file of cases)", exitCode: .missingInput)
            }
            let loaded: [CookieConformance.Case]
            do {
                loaded = try CookieConformance.load(contentsOf: url, adjustments: adjustments.map { URL(fileURLWithPath: $0) })
            } catch {
                throw RunnerFailure(description: error.description, exitCode: .missingInput)
            }
            let results = CookieConformance.run(loaded)
            let failed = results.filter { !$0.passed }
            for failure in failed {
                if json {
                    print(JSONLine.encode(["case": failure.name, "expected": failure.expected, "actual": failure.actual]))
                } else {
                    print("FAIL \(failure)")
                }
            }
            if json { print(JSONLine.encode(["passed": "\(results.count - failed.count)", "failed": "\(failed.count)"])) }
            print("\(results.count - failed.count) passed, \(failed.count) failed")
            if !failed.isEmpty { throw ExitCode.failure }
        }
    }
}

/// One JSON object per line.
enum JSONLine {
    static func encode(_ object: [String: String]) -> String {
        encode(object as [String: Any])
    }

    static func encode(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
