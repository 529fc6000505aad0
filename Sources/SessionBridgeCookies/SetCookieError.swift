/// Why a `Set-Cookie` value (or a `document.cookie` assignment) was ignored in its entirety.
///
/// Each case maps to an "abort these steps and ignore the cookie entirely" step of
/// RFC 6265bis; ``description`` is a human-readable sentence for logs and the CLI.
public enum SetCookieError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The string holds a control character other than HTAB (at this UTF-8 offset).
    case controlCharacter(offset: Int)
    /// Both the name and the value are empty.
    case emptyNameAndValue
    /// Name and value together are longer than 4096 octets.
    case nameAndValueTooLong(length: Int)
    /// The request URL has no host, so there is nowhere to store the cookie.
    case missingHost
    /// The `Domain` attribute holds a non-ASCII character.
    case nonASCIIDomain(String)
    /// The `Domain` attribute is a public suffix (and not the request host itself).
    case publicSuffixDomain(String)
    /// The request host does not domain-match the `Domain` attribute.
    case domainMismatch(domain: String, host: String)
    /// A `Secure` cookie from an insecure origin.
    case secureFromInsecureOrigin
    /// An `HttpOnly` cookie set through a non-HTTP API (`document.cookie`).
    case httpOnlyFromScript
    /// A non-secure cookie from an insecure origin would shadow an existing `Secure` cookie.
    case wouldOverwriteSecureCookie
    /// A non-HTTP API tried to overwrite an `HttpOnly` cookie.
    case wouldOverwriteHttpOnlyCookie
    /// A cookie whose `SameSite` is not `None` arrived on a cross-site, non-navigation request.
    case sameSiteFromCrossSiteRequest
    /// `SameSite=None` without `Secure`.
    case sameSiteNoneRequiresSecure
    /// A nameless cookie whose value starts with `__Secure-` or `__Host-`.
    case namelessWithPrefix
    /// A `__Secure-` cookie without `Secure`.
    case securePrefixRequirements
    /// A `__Host-` cookie without `Secure`, with a `Domain` attribute, or without `Path=/`.
    case hostPrefixRequirements

    public var description: String {
        switch self {
        case .controlCharacter(let offset):
            return "contains a control character at byte \(offset); the whole line is ignored"
        case .emptyNameAndValue:
            return "both the cookie name and value are empty"
        case .nameAndValueTooLong(let length):
            return "name and value are \(length) bytes together, more than the 4096 allowed"
        case .missingHost:
            return "the request URL has no host"
        case .nonASCIIDomain(let domain):
            return "the Domain attribute \"\(domain)\" contains non-ASCII characters"
        case .publicSuffixDomain(let domain):
            return "the Domain attribute \"\(domain)\" is a public suffix"
        case .domainMismatch(let domain, let host):
            return "the host \"\(host)\" does not domain-match the Domain attribute \"\(domain)\""
        case .secureFromInsecureOrigin:
            return "a Secure cookie cannot be set from an insecure origin"
        case .httpOnlyFromScript:
            return "an HttpOnly cookie cannot be set from script"
        case .wouldOverwriteSecureCookie:
            return "an insecure origin cannot overwrite or shadow a Secure cookie of the same name"
        case .wouldOverwriteHttpOnlyCookie:
            return "script cannot overwrite an HttpOnly cookie"
        case .sameSiteFromCrossSiteRequest:
            return "a cookie whose SameSite is not None cannot be set by a cross-site subresource request"
        case .sameSiteNoneRequiresSecure:
            return "SameSite=None requires the Secure attribute"
        case .namelessWithPrefix:
            return "a nameless cookie's value cannot start with __Secure- or __Host-"
        case .securePrefixRequirements:
            return "a __Secure- cookie must have the Secure attribute"
        case .hostPrefixRequirements:
            return "a __Host- cookie must be Secure, host-only (no Domain) and have Path=/"
        }
    }
}

/// Why one `cookie-av` of a `Set-Cookie` value was ignored (the cookie itself may still be stored).
public enum AttributeIssue: Sendable, Hashable, CustomStringConvertible {
    /// The attribute value is longer than 1024 octets.
    case valueTooLong(length: Int)
    /// `Expires` did not parse as a cookie-date.
    case invalidDate
    /// `Max-Age` is not an optionally negative run of digits.
    case invalidMaxAge
    /// `Domain` with an empty value.
    case emptyDomain
    /// The attribute name is not one the algorithm knows.
    case unknownAttribute

    public var description: String {
        switch self {
        case .valueTooLong(let length): return "attribute value is \(length) bytes, more than the 1024 allowed"
        case .invalidDate: return "Expires is not a valid cookie date"
        case .invalidMaxAge: return "Max-Age is not an integer"
        case .emptyDomain: return "Domain is empty"
        case .unknownAttribute: return "unknown attribute"
        }
    }
}

/// A `cookie-av` that the parser ignored, with the reason.
public struct IgnoredAttribute: Sendable, Hashable, CustomStringConvertible {
    /// The attribute name as written (whitespace-trimmed).
    public var name: String
    /// The attribute value as written (whitespace-trimmed).
    public var value: String
    /// Why it was ignored.
    public var reason: AttributeIssue

    /// Creates a record of an ignored attribute.
    public init(name: String, value: String, reason: AttributeIssue) {
        self.name = name
        self.value = value
        self.reason = reason
    }

    public var description: String { "\"\(name)\": \(reason)" }
}
