import Foundation
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// The language a page reads (`navigator.language`, `navigator.languages`, and what `Intl` makes
/// of it) comes from the process's locale, the same on both engines: a German locale gives
/// `de-DE`; Debian's default `C.UTF-8`, and a locale the system does not have, give `en-US`
/// (WebKitGTK by itself gives `C` for `C.UTF-8`, a tag `Intl` refuses with a `RangeError`).
@Suite(.timeLimit(.minutes(3)), .hangWatchdog) struct LanguageTests {
    @Test(arguments: ["headless", "webkit"])
    func aPageReadsTheLanguageOfTheProcesssLocale(engine: String) async throws {
        let page = try RunnerProcess.temporaryFile(
            "language.html",
            """
            <!doctype html><title>language</title>
            <script>
            let formatted;
            try { formatted = new Intl.NumberFormat(navigator.language).format(1234.5); } catch (error) { formatted = String(error); }
            console.log("language", navigator.language, JSON.stringify(navigator.languages), formatted);
            </script>
            """)
        defer { RunnerProcess.removeTemporaryFile(page) }
        // A German locale of this test's own, made from the system's locale sources.
        let locales = try TestDirectory.make(prefix: "bridge-runner-locales-")
        defer { try? FileManager.default.removeItem(at: locales) }
        let made = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/localedef"), ["-i", "de_DE", "-f", "UTF-8", locales.appendingPathComponent("de_DE.UTF-8").path],
            timeout: .seconds(60))
        #expect(made.status == 0, "localedef: \(made.stderr)")
        let cases: [(locale: String, line: String)] = [
            ("C.UTF-8", #"console.log language en-US ["en-US"] 1,234.5"#),
            ("de_DE.UTF-8", #"console.log language de-DE ["de-DE"] 1.234,5"#),
            ("xx_YY.UTF-8", #"console.log language en-US ["en-US"] 1,234.5"#),
        ]
        for (locale, line) in cases {
            let result = try await RunnerProcess.run(
                ["run", "--engine", engine, page.path], environment: ["LANG": locale, "LOCPATH": locales.path],
                removing: ["LC_ALL", "LC_CTYPE", "LANGUAGE", "DISPLAY", "WAYLAND_DISPLAY"])
            #expect(result.exitCode == 0, "\(engine) \(locale): \(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains(line), "\(engine) \(locale): \(result.stdout)")
        }
    }
}
