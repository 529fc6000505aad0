public import Foundation

/// The Public Suffix List (<https://publicsuffix.org>), used to refuse `Domain` attributes such as
/// `com` or `co.uk` and to index a jar by registrable domain.
///
/// Load it once and share it: ``system`` reads Debian's `publicsuffix` package lazily on first
/// use. Lookups take ASCII lower-case host names.
public struct PublicSuffixList: Sendable {
    /// Why the list could not be loaded.
    public enum LoadError: Error, Sendable, Hashable, CustomStringConvertible {
        /// No file at the path.
        case missing(path: String)
        /// The file exists but could not be read.
        case unreadable(path: String, reason: String)
        /// The file holds no rules.
        case empty(path: String)

        public var description: String {
            switch self {
            case .missing(let path):
                return "Public Suffix List not found at \(path): install Debian's publicsuffix package "
                    + "(Scripts/setup does) or pass another path (environment SESSIONBRIDGE_PUBLIC_SUFFIX_LIST)"
            case .unreadable(let path, let reason):
                return "Public Suffix List at \(path) could not be read: \(reason)"
            case .empty(let path):
                return "Public Suffix List at \(path) holds no rules"
            }
        }
    }

    /// Where Debian's `publicsuffix` package installs the list.
    public static let defaultPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    /// The path ``system`` loads: `SESSIONBRIDGE_PUBLIC_SUFFIX_LIST` if set, else ``defaultPath``.
    public static var systemPath: String {
        ProcessInfo.processInfo.environment["SESSIONBRIDGE_PUBLIC_SUFFIX_LIST"] ?? defaultPath
    }

    /// The system list, parsed once on first use and shared; the error if it could not be loaded.
    public static let systemResult: Result<PublicSuffixList, LoadError> = Result {
        try PublicSuffixList(contentsOfFile: systemPath)
    }.mapError { $0 as? LoadError ?? .unreadable(path: systemPath, reason: "\($0)") }

    /// The list the jar uses by default: the system list, or when that is missing the
    /// ``bundled`` snapshot, so `Domain=` attributes on public suffixes are refused either way.
    /// `nil` only when neither can be read.
    public static var system: PublicSuffixList? { (try? systemResult.get()) ?? bundled }

    /// The date of the ``bundled`` snapshot (Debian's `publicsuffix` 20230209.2326). Point
    /// `SESSIONBRIDGE_PUBLIC_SUFFIX_LIST` at a newer file, or install the package, to replace it.
    public static let bundledSnapshotDate = "2023-02-09"

    /// The snapshot shipped with the package, used when the system list is missing.
    public static let bundled: PublicSuffixList? = {
        guard let url = Bundle.module.url(forResource: "public_suffix_list", withExtension: "dat"),
            let list = try? PublicSuffixList(contentsOfFile: url.path)
        else { return nil }
        return list
    }()

    /// The system list, or the load error.
    public static func requireSystem() throws(LoadError) -> PublicSuffixList {
        try systemResult.get()
    }

    /// What the list says of one name: a rule, the parent of a wildcard rule, an exception.
    struct Kinds: OptionSet, Sendable {
        let rawValue: UInt8
        static let rule = Kinds(rawValue: 1)
        static let wildcardParent = Kinds(rawValue: 2)
        static let exception = Kinds(rawValue: 4)
    }

    /// Every name the list mentions, with what it says of it: one hash lookup answers all three
    /// questions a candidate asks.
    private let names: [String: Kinds]

    /// The number of rules.
    public let ruleCount: Int

    /// Loads the list from a file in the publicsuffix.org format.
    public init(contentsOfFile path: String) throws(LoadError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .missing(path: path) }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
        self.init(data: data)
        if ruleCount == 0 { throw .empty(path: path) }
    }

    /// Parses the list from its text (UTF-8, one rule a line, `//` comments).
    public init(data: Data) {
        var names: [String: Kinds] = [:]
        var count = 0
        let text = String(decoding: data, as: UTF8.self)
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            // A rule ends at the first whitespace.
            let rule = line.prefix { $0 != " " && $0 != "\t" }
            if rule.isEmpty || rule.hasPrefix("//") { continue }
            let lower = rule.lowercased()
            let (name, kind): (String, Kinds) =
                if lower.hasPrefix("!") { (String(lower.dropFirst()), .exception) } else if lower.hasPrefix("*.") {
                    (String(lower.dropFirst(2)), .wildcardParent)
                } else { (lower, .rule) }
            if names[name, default: []].insert(kind).inserted { count += 1 }
        }
        self.names = names
        self.ruleCount = count
    }

    /// Creates a list from rules written as in the file (`com`, `*.ck`, `!www.ck`).
    public init(rules: [String]) {
        self.init(data: Data(rules.joined(separator: "\n").utf8))
    }

    /// Whether `domain` (lower-case, no leading or trailing dot) is a public suffix.
    ///
    /// Follows the list's algorithm, including the implicit `*` rule: an unlisted single label
    /// is a public suffix.
    public func isPublicSuffix(_ domain: String) -> Bool {
        isPublicSuffix(Substring(domain))
    }

    func isPublicSuffix(_ domain: Substring) -> Bool {
        if domain.isEmpty { return true }
        let kinds = names[String(domain)] ?? []
        if kinds.contains(.exception) { return false }
        if kinds.contains(.rule) { return true }
        if let dot = domain.utf8.firstIndex(of: UInt8(ascii: ".")) {
            return names[String(domain[domain.index(after: dot)...])]?.contains(.wildcardParent) ?? false
        }
        return true  // implicit "*" rule
    }

    /// The registrable domain (public suffix plus one label) of `host`, or `nil` when `host` is
    /// itself a public suffix.
    public func registrableDomain(of host: String) -> String? {
        var candidate = Substring(host)
        var previous: Substring? = nil
        // Walk from the full host towards the top-level label; the first public suffix found
        // makes the label before it registrable.
        while true {
            if isPublicSuffix(candidate) {
                return previous.map(String.init)
            }
            guard let dot = candidate.utf8.firstIndex(of: UInt8(ascii: ".")) else { return previous.map(String.init) }
            previous = candidate
            candidate = candidate[candidate.index(after: dot)...]
        }
    }
}
