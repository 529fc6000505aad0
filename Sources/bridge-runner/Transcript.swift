import Foundation
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import Synchronization

/// Prints what happened, in order: console lines, bridge calls, navigations, HTTP exchanges,
/// and at the end the page store and the native store side by side. Colour on a terminal,
/// plain otherwise, or one JSON object per event.
final class Transcript: Sendable {
    enum Style: Sendable { case plain, color, json }

    let style: Style
    private let lock = Mutex<Counts>(Counts())
    /// WebKit's console lines for errors, and the reporter's errors, matched up.
    let awaitedWebKitLines = Mutex(AwaitedWebKitLines())

    /// What the run saw, for the exit code.
    struct Counts: Sendable {
        /// Whether the page's part is over, its verdict given or the run's report (the stores)
        /// printed: what the page does after it (a refresh it left answering late, or failing
        /// as the server stops, its process ending as the view closes) is no longer shown.
        var reported = false
        var scriptErrors = 0
        var unhandledRejections = 0
        var bridgeCalls = 0
        var navigationFailures: [PageError] = []
        /// Web processes that ended under the page (its memory limit, a crash), not for the
        /// time limit (whose script's error is counted).
        var processesEnded = 0
        /// Lines printed so far.
        var lines = 0
        /// The last ``tailLength`` lines printed, at most ``tailMaxBytes`` in all (what a
        /// summary or a secrecy check reads; the rest is streamed, not kept).
        var tail: [String] = []
        var tailBytes = 0
        /// Console text printed so far, and how many lines were shortened past the limit.
        var consoleBytes = 0
        var consoleLinesShortened = 0
    }

    /// How much console text a run prints in full (a page that floods its console printed
    /// hundreds of megabytes in a few seconds): past it, each line is printed shortened to
    /// ``consoleShortLineBytes``, so that none is lost and a flood of long lines stays small.
    static let consoleMaxBytes = 16 << 20
    /// A longer console line is printed as its first and last halves of this many bytes.
    static let consoleMaxLineBytes = 64 << 10
    /// The length of a console line past ``consoleMaxBytes``.
    static let consoleShortLineBytes = 256

    static let tailLength = 500
    /// The most text the tail keeps, so that a page logging long lines does not keep them.
    static let tailMaxBytes = 1 << 20
    /// A longer line is kept as its first and last halves of this many bytes.
    static let tailMaxLineBytes = 64 << 10

    /// `line` as the tail keeps it: whole, or its beginning and end around an ellipsis.
    static func tailEntry(_ line: String) -> String {
        shortened(line, to: tailMaxLineBytes, sayingLength: false)
    }

    /// `text` whole, or its first and last halves of `limit` bytes around an ellipsis (with a
    /// mark that says how long it was, when `sayingLength`).
    static func shortened(_ text: String, to limit: Int, sayingLength: Bool = true) -> String {
        let utf8 = text.utf8
        guard utf8.count > limit else { return text }
        let half = limit / 2
        let mark = sayingLength ? " … (\(utf8.count) bytes) … " : " … "
        return String(decoding: utf8.prefix(half), as: UTF8.self) + mark + String(decoding: utf8.suffix(half), as: UTF8.self)
    }

    init(json: Bool) {
        if json { style = .json } else { style = isatty(STDOUT_FILENO) == 1 ? .color : .plain }
    }

    var counts: Counts { lock.withLock { $0 } }

    // MARK: Lines

    func section(_ title: String) {
        emit(["type": "section", "title": title], text: "\n" + paint("== \(title) ==", .bold))
    }

    func note(_ text: String) {
        emit(["type": "note", "text": text], text: paint("•", .cyan) + " " + text)
    }

    func failure(_ text: String) {
        emit(["type": "error", "text": text], text: paint("✗ \(text)", .red))
    }

    /// The run's verdict on the page (`text`, a failure), after which the page's own events
    /// are no longer shown: a WebKit view goes on until the process ends, and its late lines
    /// had followed the verdict.
    func verdict(_ text: String) {
        lock.withLock { $0.reported = true }
        failure(text)
    }

    func page(_ event: PageEvent) {
        guard !lock.withLock({ $0.reported }) else { return }
        switch event {
        case .console(let message, _):
            let length = message.text.utf8.count
            let (limit, first) = lock.withLock { counts -> (Int, Bool) in
                guard counts.consoleBytes < Self.consoleMaxBytes else {
                    guard length > Self.consoleShortLineBytes else { return (length, false) }
                    counts.consoleLinesShortened += 1
                    return (Self.consoleShortLineBytes, counts.consoleLinesShortened == 1)
                }
                counts.consoleBytes += min(length, Self.consoleMaxLineBytes)
                return (Self.consoleMaxLineBytes, false)
            }
            if first {
                let limits = "\(Self.consoleMaxBytes >> 20) MB: longer lines are printed shortened to \(Self.consoleShortLineBytes) bytes"
                note("console output past \(limits)")
            }
            let text = Self.shortened(message.text, to: limit)
            let color: Color = message.level == .error ? .red : (message.level == .warn ? .yellow : .plain)
            emit(
                ["type": "console", "level": message.level.rawValue, "text": text],
                text: paint("console.\(message.level.rawValue)", .dim) + " " + paint(text, color))
        case .scriptError(let error, let unhandled, _):
            lock.withLock {
                if unhandled { $0.unhandledRejections += 1 } else { $0.scriptErrors += 1 }
            }
            let location = error.sourceURL.map { " at \($0)" + (error.line.map { ":\($0)" } ?? "") } ?? ""
            emit(
                [
                    "type": unhandled ? "unhandled-rejection" : "script-error", "name": error.name, "message": error.message,
                    "source": error.sourceURL ?? "", "line": error.line ?? 0,
                ],
                text: paint("\(unhandled ? "unhandled rejection" : "uncaught") \(error.name): \(error.message)\(location)", .red))
        case .navigationPolicy(let action, let policy, let waited):
            let held = waited >= .milliseconds(1)
            let verdict = policy == .allow ? (held ? "held \(Self.milliseconds(waited)) then allowed" : "allowed") : "cancelled"
            emit(
                [
                    "type": "navigation", "url": Self.shown(action.request.url), "decision": policy == .allow ? "allow" : "cancel",
                    "heldMs": Self.millisecondsValue(waited), "initiator": action.navigationType.rawValue,
                ],
                text: paint("navigate", .magenta)
                    + " \(action.request.method) \(Self.shown(action.request.url)) (\(action.navigationType.rawValue)): \(verdict)")
        case .http(let exchange):
            var parts: [String] = []
            if !exchange.cookiesSent.isEmpty { parts.append("sent " + exchange.cookiesSent.joined(separator: ",")) }
            if !exchange.cookiesSet.isEmpty { parts.append("set " + exchange.cookiesSet.joined(separator: ",")) }
            if !exchange.cookiesDeleted.isEmpty { parts.append("deleted " + exchange.cookiesDeleted.joined(separator: ",")) }
            if !exchange.cookiesRejected.isEmpty { parts.append("rejected " + exchange.cookiesRejected.joined(separator: "; ")) }
            let status = exchange.statusCode.map(String.init) ?? "no response"
            emit(
                [
                    "type": "http", "initiator": exchange.initiator.rawValue, "method": exchange.method, "url": Self.shown(exchange.url),
                    "status": exchange.statusCode ?? 0, "cookiesSent": exchange.cookiesSent, "cookiesSet": exchange.cookiesSet,
                    "cookiesDeleted": exchange.cookiesDeleted, "ms": Self.millisecondsValue(exchange.duration),
                ],
                text: paint("http", .blue) + " \(exchange.method) \(Self.shown(exchange.url)) → \(status) [\(exchange.initiator.rawValue)]"
                    + (parts.isEmpty ? "" : "  " + paint(parts.joined(separator: "  "), .dim)))
        case .documentCommitted(let navigation):
            emit(
                ["type": "document", "url": Self.shown(navigation.url), "status": navigation.statusCode],
                text: paint("document", .magenta) + " \(Self.shown(navigation.url)) (\(navigation.statusCode))"
                    + (navigation.title.map { " “\($0)”" } ?? ""))
        case .navigationFinished:
            break
        case .navigationFailed(let error):
            lock.withLock { $0.navigationFailures.append(error) }
            emit(
                ["type": "navigation-failed", "code": error.code.rawValue, "message": error.message],
                text: paint("navigation failed: \(error)", .red))
        case .webContentProcessTerminated(let reason, let url):
            if reason != .exceededTimeLimit { lock.withLock { $0.processesEnded += 1 } }
            // An end for the time limit was shown as the script's error just before: the text
            // says it once (the JSON line keeps the event).
            emit(
                ["type": "web-process-terminated", "reason": reason.rawValue, "url": url.map(Self.shown) ?? ""],
                text: reason == .exceededTimeLimit ? "" : paint(reason.description, .red) + (url.map { " (\(Self.shown($0)))" } ?? ""))
        }
    }

    func bridge(_ entry: MessageLog.Entry) {
        guard
            lock.withLock({ counts in
                if !counts.reported { counts.bridgeCalls += 1 }
                return !counts.reported
            })
        else { return }
        let outcome: String
        // A body or reply is shown as a console line is: past 64 KB, its first and last halves.
        let body = Self.shortened(entry.body.description, to: Self.consoleMaxLineBytes)
        var fields: [String: Any] = [
            "type": "bridge", "name": entry.name, "origin": entry.origin, "world": entry.world.name,
            "body": body, "ms": Self.millisecondsValue(entry.duration),
        ]
        switch entry.outcome {
        case .delivered: outcome = "delivered"
        case .replied(let value):
            let reply = Self.shortened(value.description, to: Self.consoleMaxLineBytes)
            outcome = "→ " + reply
            fields["reply"] = reply
        case .rejected(let code, let message):
            outcome = "✗ \(code): \(message)"
            fields["error"] = code
        case .refused(let code, let message):
            outcome = "refused \(code): \(message)"
            fields["error"] = code
        }
        emit(
            fields,
            text: paint("bridge", .green) + " \(entry.name).postMessage(\(body)) from \(entry.origin) \(outcome) "
                + paint("(\(Self.milliseconds(entry.duration)))", .dim))
    }

    /// The page store and the native store side by side: sizes and attributes, never values;
    /// whether the two stores hold the same value is said.
    func stores(page: [Cookie], native: [Cookie]) {
        // The run's end: how much of the console was printed shortened is said first.
        noteConsoleNotPrinted()
        lock.withLock { $0.reported = true }
        struct Key: Hashable, Comparable {
            let domain: String, path: String, name: String
            static func < (a: Key, b: Key) -> Bool { (a.domain, a.path, a.name) < (b.domain, b.path, b.name) }
        }
        let pageByKey = Dictionary(page.map { (Key(domain: $0.domain, path: $0.path, name: $0.name), $0) }, uniquingKeysWith: { a, _ in a })
        let nativeByKey = Dictionary(
            native.map { (Key(domain: $0.domain, path: $0.path, name: $0.name), $0) }, uniquingKeysWith: { a, _ in a })
        let keys = Set(pageByKey.keys).union(nativeByKey.keys).sorted()
        if style == .json {
            for key in keys {
                var fields: [String: Any] = [
                    "type": "cookie", "domain": key.domain, "path": key.path, "name": key.name,
                    "page": pageByKey[key].map(Self.shown) ?? NSNull(), "native": nativeByKey[key].map(Self.shown) ?? NSNull(),
                ]
                if let page = pageByKey[key], let native = nativeByKey[key] { fields["sameValue"] = page.value == native.value }
                emit(fields, text: "")
            }
            return
        }
        section("cookie stores (page | native)")
        guard !keys.isEmpty else { return note("both stores are empty") }
        let nameWidth = min(28, keys.map { $0.name.count }.max() ?? 4)
        for key in keys {
            let pageText = pageByKey[key].map(Self.shown) ?? "—"
            var nativeText = nativeByKey[key].map(Self.shown) ?? "—"
            let sameValue = pageByKey[key]?.value == nativeByKey[key]?.value
            // Said whatever else differs (WebKit's store lags a second behind in time left).
            if !sameValue, pageByKey[key] != nil, nativeByKey[key] != nil { nativeText += " (another value)" }
            let same = pageText == nativeText
            print(
                "  \(key.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0))  \(pageText.padding(toLength: 34, withPad: " ", startingAt: 0)) | \(paint(nativeText, same ? .plain : .yellow))  \(paint(key.domain + key.path, .dim))"
            )
        }
    }

    private func noteConsoleNotPrinted() {
        let lines = lock.withLock { $0.consoleLinesShortened }
        guard lines > 0 else { return }
        note("console: \(lines) lines past the first \(Self.consoleMaxBytes >> 20) MB were printed shortened")
    }

    /// What the page left in `localStorage`, `sessionStorage` and IndexedDB: each key with its
    /// value's size and each database with its own, never a value (pages keep tokens there).
    func webStorage(local: WebStorage, session: WebStorage, databases: IndexedDatabases) {
        var areas = [("localStorage", local), ("sessionStorage", session)].flatMap { name, storage in
            storage.origins.flatMap { origin in storage.items(forOrigin: origin).map { (name, origin, $0.key, $0.value.utf8.count) } }
        }
        // IndexedDB: each database with its version and size, none of its records.
        areas += databases.databaseOrigins.flatMap { origin in
            databases.databases(forOrigin: origin).map { ("indexedDB", origin, "\($0.name) (version \($0.version))", $0.bytes) }
        }
        if style == .json {
            for (name, origin, key, bytes) in areas {
                emit(["type": "storage", "area": name, "origin": origin.description, "key": key, "bytes": bytes], text: "")
            }
            return
        }
        guard !areas.isEmpty else { return }
        section("web storage (page)")
        for (name, origin, key, bytes) in areas {
            print(
                "  \(name.padding(toLength: 15, withPad: " ", startingAt: 0))  \(key)  <\(bytes) bytes>  \(paint(origin.description, .dim))"
            )
        }
    }

    /// `text` with the user name and password of every URL in it replaced:
    /// `https://user:secret@host/` → `https://<redacted>@host/`.
    /// The values of a URL's parameters that carry a credential (an authorization code on its
    /// way to the app's redirect URI, an implicit flow's `#access_token=`) are replaced too, and
    /// so are, wherever they stand, such a `name=value` pair, a JSON member of such a name (a
    /// token endpoint's answer a page printed), the same pair percent-encoded in another URL's
    /// parameter, an `Authorization` header's credentials and a JSON Web Token (an access or ID
    /// token).
    static func withoutCredentials(_ text: String) -> String {
        var text = text
        // The regexes are made here: such lines are rare, and a regex is no `Sendable` value to keep.
        if text.contains("@"), text.contains("://") {
            // A URL's scheme, then what stands before an `@` in its authority.
            let userInfo = /([A-Za-z][A-Za-z0-9+.\-]*:\/\/)[^\/?#@\s]+@/
            text = text.replacing(userInfo) { match in match.output.1 + "<redacted>@" }
        }
        if text.contains("code=") || text.contains("token=") || text.contains("secret=") || text.contains("password=") {
            let parameter = /(\b(?:code|access_token|id_token|refresh_token|token|client_secret|password)=)[^&#\s"',;]+/
            text = text.replacing(parameter) { match in match.output.1 + "<redacted>" }
        }
        // The same pair percent-encoded inside another URL's parameter (a `redirect_uri` or
        // `next` that carries the code on): `to=%2Fapp%3Fcode%3D…%26state%3D…`.
        if text.contains("%3D") || text.contains("%3d") {
            let encoded =
                /((?:%3[Ff]|%26|\b)(?:code|access_token|id_token|refresh_token|token|client_secret|password)%3[Dd])(?:[^%&#\s"',;]|%(?!26|23)[0-9A-Fa-f]{2})+/
            text = text.replacing(encoded) { match in match.output.1 + "<redacted>" }
        }
        // An `Authorization` value a page printed: `Bearer …`, `DPoP …`, `Basic …`.
        if text.contains("Bearer ") || text.contains("DPoP ") || text.contains("Basic ") {
            // A credential has a digit or is long; a word of prose after "Bearer" stays.
            let scheme = /(\b(?:Bearer|DPoP|Basic) +)(?:(?=[A-Za-z._~+\/\-]*[0-9])[A-Za-z0-9._~+\/\-]{6,}|[A-Za-z0-9._~+\/\-]{16,})=*/
            text = text.replacing(scheme) { match in match.output.1 + "<redacted>" }
        }
        if text.contains("\""), text.contains("token\"") || text.contains("secret\"") || text.contains("password\"") {
            let member = /("(?:access_token|id_token|refresh_token|token|client_secret|password)"\s*:\s*")(?:[^"\\]|\\.)*"/
            text = text.replacing(member) { match in match.output.1 + "<redacted>\"" }
        }
        if text.contains("eyJ") {
            let jwt = /eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*/
            text = text.replacing(jwt) { _ in "<redacted JWT>" }
        }
        return text
    }

    /// A URL as the transcript shows it: a user name and password in it are replaced.
    static func shown(_ url: URL) -> String {
        guard url.user != nil || url.password != nil,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return url.absoluteString }
        components.user = nil
        components.password = nil
        let text = components.string ?? ""
        guard let schemeEnd = text.range(of: "://") else { return text }
        return text.replacingCharacters(in: schemeEnd, with: "://<redacted>@")
    }

    /// A cookie as the transcript shows it: its size, never its value (which cookie carries a
    /// session is the server's choice: `PHPSESSID`, `connect.sid`, `sid`, a `jwt`), its
    /// `HttpOnly` flag and the seconds it has left. `cookies show --show-values` prints values.
    static func shown(_ cookie: Cookie) -> String {
        var text = "<\(cookie.value.utf8.count) bytes>"
        if cookie.isHttpOnly { text += " HttpOnly" }
        if let expiresAt = cookie.expiresAt {
            // A profile's cookie may claim any date; `Int(_:)` would stop the run beyond Int's range.
            let seconds = expiresAt.timeIntervalSinceNow.rounded(.towardZero)
            text += abs(seconds) < 1e15 ? " \(Int(seconds))s" : seconds > 0 ? " (far future)" : " (far past)"
        }
        return text
    }

    // MARK: Output

    private enum Color: String {
        case plain = "", bold = "1", dim = "2", red = "31", green = "32", yellow = "33", blue = "34", magenta = "35", cyan = "36"
    }

    private func paint(_ text: String, _ color: Color) -> String {
        guard style == .color, color != .plain else { return text }
        return "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m"
    }

    func emit(_ fields: [String: Any], text: String) {
        // No line shows a URL's user name and password, whoever wrote it (the engine's console
        // messages and errors name the URLs they refused as given).
        let line =
            style == .json
            ? JSONLine.encode(fields.mapValues { ($0 as? String).map(Self.withoutCredentials) ?? $0 }) : Self.withoutCredentials(text)
        guard !line.isEmpty else { return }
        lock.withLock { counts in
            print(line)
            fflush(nil)
            counts.lines += 1
            let entry = Self.tailEntry(text)
            counts.tail.append(entry)
            counts.tailBytes += entry.utf8.count
            while counts.tail.count > Self.tailLength || (counts.tailBytes > Self.tailMaxBytes && counts.tail.count > 1) {
                counts.tailBytes -= counts.tail.removeFirst().utf8.count
            }
        }
    }

    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.1f ms", millisecondsValue(duration))
    }

    static func millisecondsValue(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
