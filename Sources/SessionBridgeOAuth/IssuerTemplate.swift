import Foundation

/// An issuer identifier that leaves its tenant open as `{tenantid}`, as a multi-tenant issuer's
/// discovery document names it (Entra ID's `common`, `organizations` and `consumers`
/// endpoints: `https://login.microsoftonline.com/{tenantid}/v2.0`). Each tenant's sign-ins and
/// tokens name the issuer with their tenant's id in its place, and an ID token carries that id
/// as its `tid` claim.
struct IssuerTemplate: Sendable {
    /// The placeholder, as Entra ID writes it.
    static let placeholder = "{tenantid}"

    private let prefix: String
    private let suffix: String

    /// The template `issuer` is, or `nil` when it names no tenant placeholder (or more than one).
    init?(_ issuer: String) {
        guard let range = issuer.range(of: Self.placeholder) else { return nil }
        let suffix = issuer[range.upperBound...]
        guard !suffix.contains(Self.placeholder) else { return nil }
        self.prefix = String(issuer[..<range.lowerBound])
        self.suffix = String(suffix)
    }

    /// The tenant `issuer` names in the placeholder's place (one path segment), or `nil` when
    /// it is not this template's.
    func tenant(in issuer: String) -> Substring? {
        guard issuer.count > prefix.count + suffix.count, issuer.hasPrefix(prefix), issuer.hasSuffix(suffix) else { return nil }
        let tenant = issuer.dropFirst(prefix.count).dropLast(suffix.count)
        return Self.isTenant(tenant) ? tenant : nil
    }

    /// The issuer of `tenant`'s sign-ins and tokens, or `nil` when `tenant` is no tenant id.
    func issuer(ofTenant tenant: String) -> String? {
        Self.isTenant(tenant[...]) ? prefix + tenant + suffix : nil
    }

    /// One path segment, no placeholder.
    private static func isTenant(_ text: Substring) -> Bool {
        !text.isEmpty && !text.contains { "/?#{}".contains($0) || $0.isWhitespace }
    }

    /// Whether `named`, the issuer a document, a sign-in answer or a token names, is `issuer`:
    /// the same string, or a template `issuer` fills with a tenant (a multi-tenant document met
    /// through its `common` endpoint).
    static func issuer(_ named: String?, names issuer: String) -> Bool {
        guard let named else { return false }
        return named == issuer || IssuerTemplate(named)?.tenant(in: issuer) != nil
    }
}
