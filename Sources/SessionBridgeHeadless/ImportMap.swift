import Foundation

/// A document's import map (`<script type="importmap">`): how module specifiers resolve to URLs,
/// as HTML resolves them, with its `imports` and `scopes`, exact and prefix (`/`-ended)
/// entries, the most specific first.
struct ImportMap: Sendable {
    /// Specifier (bare, or a URL made absolute) to URL.
    private(set) var imports: [String: URL] = [:]
    /// Scope prefix (an absolute URL) to its own specifier map.
    private(set) var scopes: [String: [String: URL]] = [:]
    /// A module's URL to the Subresource Integrity metadata it must match (the map's
    /// `integrity`), for a module whose element gives none.
    private(set) var integrity: [String: String] = [:]

    init() {}

    /// Reads an import map's JSON text, its URLs resolved against `base`. Entries that are no
    /// URL are left out, as HTML leaves them out (with a warning there).
    /// - Throws: ``InvalidImportMap`` when the text is no JSON object.
    init(json: String, base: URL) throws(InvalidImportMap) {
        guard let data = json.data(using: .utf8),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { throw InvalidImportMap(message: "the import map is not a JSON object") }
        imports = Self.specifierMap(object["imports"], base: base)
        if let entries = object["integrity"] as? [String: Any] {
            for (address, metadata) in entries {
                guard let metadata = metadata as? String, let url = Self.urlLike(address, base: base) else { continue }
                integrity[url.absoluteString] = metadata
            }
        }
        if let scopes = object["scopes"] as? [String: Any] {
            for (prefix, map) in scopes {
                guard let scope = URLResolution.resolve(prefix, against: base) else { continue }
                self.scopes[scope.absoluteString] = Self.specifierMap(map, base: base)
            }
        }
    }

    /// What an import map that could not be read is refused for.
    struct InvalidImportMap: Error {
        var message: String
    }

    /// Adds the entries of `other` that this map does not have (a document's later maps do not
    /// override its earlier ones).
    mutating func merge(_ other: ImportMap) {
        imports.merge(other.imports) { current, _ in current }
        integrity.merge(other.integrity) { current, _ in current }
        for (scope, map) in other.scopes { scopes[scope, default: [:]].merge(map) { current, _ in current } }
    }

    /// The URL `specifier` resolves to in a module at `base`, or `nil` for a bare specifier the
    /// map does not have (`Module name, '…' does not resolve to a valid URL.`).
    func resolve(_ specifier: String, base: URL) -> URL? {
        let asURL = Self.urlLike(specifier, base: base)
        let key = asURL?.absoluteString ?? specifier
        let referrer = base.absoluteString
        for (scope, map) in scopes.sorted(by: { $0.key.count > $1.key.count })
        where referrer == scope || scope.hasSuffix("/") && referrer.hasPrefix(scope) {
            if let url = Self.match(key, in: map) { return url }
        }
        return Self.match(key, in: imports) ?? asURL
    }

    /// A specifier that is a URL already, or a path (`/`, `./`, `../`), resolved; `nil` for a
    /// bare one.
    private static func urlLike(_ specifier: String, base: URL) -> URL? {
        if specifier.hasPrefix("/") || specifier.hasPrefix("./") || specifier.hasPrefix("../") {
            return URLResolution.resolve(specifier, against: base)
        }
        guard let url = URL(string: Self.dataURLEncoded(specifier)), let scheme = url.scheme, !scheme.isEmpty else { return nil }
        return url
    }

    /// A `data:` URL's characters that Foundation's URL refuses (a space, a quote) escaped, and
    /// only those: Foundation would escape its `%`s too when it escapes the others, and the
    /// URL's percent-encoded bytes would then read as text.
    private static func dataURLEncoded(_ specifier: String) -> String {
        guard specifier.prefix(5).lowercased() == "data:" else { return specifier }
        return specifier.addingPercentEncoding(withAllowedCharacters: urlCharacters) ?? specifier
    }

    private static let urlCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%")

    private static func match(_ key: String, in map: [String: URL]) -> URL? {
        if let exact = map[key] { return exact }
        var best: (prefix: String, url: URL)?
        for (prefix, url) in map where prefix.hasSuffix("/") && key.hasPrefix(prefix) && prefix.count > (best?.prefix.count ?? -1) {
            best = (prefix, url)
        }
        guard let best, best.url.absoluteString.hasSuffix("/") else { return nil }
        return URL(string: best.url.absoluteString + key.dropFirst(best.prefix.count))
    }

    private static func specifierMap(_ value: Any?, base: URL) -> [String: URL] {
        guard let entries = value as? [String: Any] else { return [:] }
        var map: [String: URL] = [:]
        for (specifier, address) in entries {
            guard !specifier.isEmpty, let address = address as? String, let url = URLResolution.resolve(address, against: base) else {
                continue
            }
            map[urlLike(specifier, base: base)?.absoluteString ?? specifier] = url
        }
        return map
    }
}
