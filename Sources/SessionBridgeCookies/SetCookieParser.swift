public import Foundation

/// One recognised attribute of a `Set-Cookie` value, in the order it appeared.
public enum CookieAttribute: Sendable, Hashable {
    /// `Expires`, already parsed as a cookie-date.
    case expires(Date)
    /// `Max-Age` in seconds (zero or negative means "expire now").
    case maxAge(Int64)
    /// `Domain`, without a leading dot, ASCII-lower-cased.
    case domain(String)
    /// `Path`; the empty string means the value was empty or did not start with `/`, so the
    /// request URL's default path applies.
    case path(String)
    /// `Secure`.
    case secure
    /// `HttpOnly`.
    case httpOnly
    /// `SameSite`; an unknown value is ``SameSite/unspecified`` (the draft's `"Default"`).
    case sameSite(SameSite)
    /// `Partitioned`.
    case partitioned
}

/// The result of parsing one `Set-Cookie` value: the name-value pair, the attributes that
/// count, and those that were ignored with the reason.
public struct ParsedSetCookie: Sendable, Hashable {
    /// The cookie name (whitespace-trimmed; may be empty).
    public var name: String
    /// The cookie value (whitespace-trimmed).
    public var value: String
    /// Recognised attributes in order of appearance.
    public var attributes: [CookieAttribute]
    /// Attributes that were ignored, with reasons.
    public var ignored: [IgnoredAttribute]
    /// Whether the last `Domain` attribute began with a dot (which ``domain`` drops). It
    /// matters only for an IP address: `Domain=127.0.0.1` from that host sets a host-only
    /// cookie in WebKit (libsoup), `Domain=.127.0.0.1` a domain cookie.
    public var domainHasLeadingDot = false

    /// Creates a parsed value.
    public init(name: String, value: String, attributes: [CookieAttribute] = [], ignored: [IgnoredAttribute] = []) {
        self.name = name
        self.value = value
        self.attributes = attributes
        self.ignored = ignored
    }

    /// The last `Expires` attribute.
    public var expires: Date? {
        for case .expires(let d) in attributes.reversed() { return d }
        return nil
    }
    /// The last `Max-Age` attribute.
    public var maxAge: Int64? {
        for case .maxAge(let s) in attributes.reversed() { return s }
        return nil
    }
    /// The last `Domain` attribute.
    public var domain: String? {
        for case .domain(let d) in attributes.reversed() { return d }
        return nil
    }
    /// The last `Path` attribute (empty string: use the default path).
    public var path: String? {
        for case .path(let p) in attributes.reversed() { return p }
        return nil
    }
    /// The last `SameSite` attribute.
    public var sameSite: SameSite? {
        for case .sameSite(let s) in attributes.reversed() { return s }
        return nil
    }
    /// Whether `Secure` is present.
    public var isSecure: Bool { attributes.contains(.secure) }
    /// Whether `HttpOnly` is present.
    public var isHttpOnly: Bool { attributes.contains(.httpOnly) }
    /// Whether `Partitioned` is present.
    public var isPartitioned: Bool { attributes.contains(.partitioned) }
}

/// The `Set-Cookie` parsing algorithm of RFC 6265bis ("Parsing the Set-Cookie header field").
///
/// Parses one header value at a time, over its UTF-8 bytes, without regular expressions or
/// date formatters. Header values are never split on commas: pass each `Set-Cookie` field
/// separately (see ``parse(fields:)``).
public struct SetCookieParser: Sendable {
    /// The largest name plus value length, in octets.
    public static let maximumNameValueLength = 4096
    /// The largest attribute value length, in octets.
    public static let maximumAttributeValueLength = 1024

    /// Parses one `Set-Cookie` header value.
    ///
    /// - Returns: the parsed cookie, or why the whole value is ignored.
    public static func parse(_ header: String) -> Result<ParsedSetCookie, SetCookieError> {
        if let result = unsafe header.utf8.withContiguousStorageIfAvailable({ unsafe parse(bytes: $0) }) {
            return result
        }
        var copy = header
        return copy.withUTF8 { unsafe parse(bytes: $0) }
    }

    /// The name a `Set-Cookie` header value sets, read without parsing the rest, for reports:
    /// the text before `=` in its name-value pair, spaces and tabs trimmed; empty for a
    /// nameless cookie (a pair without `=`, RFC 6265bis), whose pair is its value, never shown.
    public static func cookieName(of header: String) -> String {
        let pair = header.utf8.prefix { $0 != UInt8(ascii: ";") }
        guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return "" }
        let name = pair[..<equals].drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        let end = name.lastIndex { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
        return end.map { String(decoding: name[...$0], as: UTF8.self) } ?? ""
    }

    /// Parses each of several `Set-Cookie` field values separately, in order.
    public static func parse(fields: [String]) -> [Result<ParsedSetCookie, SetCookieError>] {
        fields.map { parse($0) }
    }

    /// Parses one `Set-Cookie` header value given as UTF-8 bytes.
    package static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Result<ParsedSetCookie, SetCookieError> {
        let count = bytes.count
        // Step 1: any CTL other than HTAB ignores the whole string. Also find the first ';'
        // and count them all (the attributes' storage is allocated once).
        guard let (semicolon, semicolons) = unsafe scanControlsAndSemicolons(bytes) else {
            let offset = unsafe bytes.firstIndex { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F } ?? 0
            return .failure(.controlCharacter(offset: offset))
        }
        // Step 2: the name-value-pair runs to the first ';'.
        let pairEnd = semicolon < 0 ? count : semicolon
        var equals = -1
        for i in 0..<pairEnd where unsafe bytes[i] == 0x3D {
            equals = i
            break
        }
        // Steps 3-4.
        var nameRange = (0, 0)
        var valueRange: (Int, Int)
        if equals < 0 {
            valueRange = unsafe trim(bytes, 0, pairEnd)
        } else {
            nameRange = unsafe trim(bytes, 0, equals)
            valueRange = unsafe trim(bytes, equals + 1, pairEnd)
        }
        let nameLength = nameRange.1 - nameRange.0
        let valueLength = valueRange.1 - valueRange.0
        // Step 5.
        if nameLength + valueLength > maximumNameValueLength {
            return .failure(.nameAndValueTooLong(length: nameLength + valueLength))
        }
        // Storage model: both empty ignores the cookie.
        if nameLength == 0 && valueLength == 0 { return .failure(.emptyNameAndValue) }

        var parsed = unsafe ParsedSetCookie(
            name: string(bytes, nameRange.0, nameRange.1),
            value: string(bytes, valueRange.0, valueRange.1)
        )
        guard semicolon >= 0 else { return .success(parsed) }
        parsed.attributes.reserveCapacity(semicolons)

        // Attributes.
        var i = semicolon
        while i < count {
            i += 1  // discard the ';'
            let avStart = i
            var avEnd = count
            var avEquals = -1
            while i < count {
                let c = unsafe bytes[i]
                if c == 0x3B { avEnd = i; break }
                if c == 0x3D, avEquals < 0 { avEquals = i }
                i += 1
            }
            if i >= count { avEnd = count }
            let attrName: (Int, Int)
            let attrValue: (Int, Int)
            if avEquals < 0 {
                attrName = unsafe trim(bytes, avStart, avEnd)
                attrValue = (avEnd, avEnd)
            } else {
                attrName = unsafe trim(bytes, avStart, avEquals)
                attrValue = unsafe trim(bytes, avEquals + 1, avEnd)
            }
            let attrValueLength = attrValue.1 - attrValue.0
            if attrValueLength > maximumAttributeValueLength {
                unsafe parsed.ignored.append(
                    IgnoredAttribute(
                        name: string(bytes, attrName.0, attrName.1), value: "",
                        reason: .valueTooLong(length: attrValueLength)))
                continue
            }
            unsafe processAttribute(bytes, name: attrName, value: attrValue, into: &parsed)
        }
        return .success(parsed)
    }

    /// Step 1 eight bytes at a time: `nil` if a CTL other than HTAB is present, else the offset
    /// of the first `;` (-1 when there is none) and the number of `;`.
    @inline(__always)
    static func scanControlsAndSemicolons(_ bytes: UnsafeBufferPointer<UInt8>) -> (first: Int, count: Int)? {
        guard let base = bytes.baseAddress else { return (-1, 0) }
        let count = bytes.count
        var first = -1, semicolons = 0
        var i = 0
        while i + 8 <= count {
            let word = unsafe UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
            if SWAR.bytesBelow0x20(word) | SWAR.bytesEqual(word, 0x7F) != 0 {
                // Rare (a tab, or a header to refuse): decide byte by byte.
                for k in i..<(i + 8) where unsafe isRefusedControl(base[k]) { return nil }
            }
            let found = SWAR.bytesEqual(word, 0x3B)
            if found != 0 {
                if first < 0 { first = i + found.trailingZeroBitCount / 8 }
                semicolons += found.nonzeroBitCount
            }
            i += 8
        }
        while i < count {
            let c = unsafe base[i]
            if isRefusedControl(c) { return nil }
            if c == 0x3B {
                if first < 0 { first = i }
                semicolons += 1
            }
            i += 1
        }
        return (first, semicolons)
    }

    @inline(__always)
    static func isRefusedControl(_ c: UInt8) -> Bool { (c < 0x20 && c != 0x09) || c == 0x7F }

    enum Known { case expires, maxAge, domain, path, secure, httpOnly, sameSite, partitioned }

    static func processAttribute(
        _ b: UnsafeBufferPointer<UInt8>, name: (Int, Int), value: (Int, Int), into parsed: inout ParsedSetCookie
    ) {
        guard let kind = unsafe intern(b, name.0, name.1) else {
            if name.1 > name.0 || value.1 > value.0 {
                unsafe parsed.ignored.append(
                    IgnoredAttribute(
                        name: string(b, name.0, name.1), value: string(b, value.0, value.1),
                        reason: .unknownAttribute))
            }
            return
        }
        switch kind {
        case .expires:
            if let seconds = unsafe CookieDate.parseSeconds(bytes: b, from: value.0, to: value.1) {
                parsed.attributes.append(.expires(Date(timeIntervalSince1970: TimeInterval(seconds))))
            } else {
                unsafe parsed.ignored.append(ignored(b, name, value, .invalidDate))
            }
        case .maxAge:
            if let seconds = unsafe parseMaxAge(b, value.0, value.1) {
                parsed.attributes.append(.maxAge(seconds))
            } else {
                unsafe parsed.ignored.append(ignored(b, name, value, .invalidMaxAge))
            }
        case .domain:
            if value.0 == value.1 {
                unsafe parsed.ignored.append(ignored(b, name, value, .emptyDomain))
                return
            }
            var start = value.0
            parsed.domainHasLeadingDot = unsafe b[start] == UInt8(ascii: ".")
            if parsed.domainHasLeadingDot { start += 1 }
            unsafe parsed.attributes.append(.domain(asciiLowercased(b, start, value.1)))
        case .path:
            if unsafe value.0 == value.1 || b[value.0] != UInt8(ascii: "/") {
                parsed.attributes.append(.path(""))
            } else {
                unsafe parsed.attributes.append(.path(string(b, value.0, value.1)))
            }
        case .secure:
            parsed.attributes.append(.secure)
        case .httpOnly:
            parsed.attributes.append(.httpOnly)
        case .sameSite:
            let v: SameSite
            if unsafe equalsIgnoringCase(b, value.0, value.1, "none") {
                v = .none
            } else if unsafe equalsIgnoringCase(b, value.0, value.1, "strict") {
                v = .strict
            } else if unsafe equalsIgnoringCase(b, value.0, value.1, "lax") {
                v = .lax
            } else {
                v = .unspecified
            }
            parsed.attributes.append(.sameSite(v))
        case .partitioned:
            parsed.attributes.append(.partitioned)
        }
    }

    static func ignored(
        _ b: UnsafeBufferPointer<UInt8>, _ name: (Int, Int), _ value: (Int, Int), _ reason: AttributeIssue
    ) -> IgnoredAttribute {
        unsafe IgnoredAttribute(name: string(b, name.0, name.1), value: string(b, value.0, value.1), reason: reason)
    }

    /// Recognises an attribute name by length and case-insensitive byte comparison.
    @inline(__always)
    static func intern(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Known? {
        switch e - s {
        case 4: return unsafe equalsIgnoringCase(b, s, e, "path") ? .path : nil
        case 6:
            if unsafe equalsIgnoringCase(b, s, e, "domain") { return .domain }
            return unsafe equalsIgnoringCase(b, s, e, "secure") ? .secure : nil
        case 7:
            if unsafe equalsIgnoringCase(b, s, e, "expires") { return .expires }
            return unsafe equalsIgnoringCase(b, s, e, "max-age") ? .maxAge : nil
        case 8:
            if unsafe equalsIgnoringCase(b, s, e, "httponly") { return .httpOnly }
            return unsafe equalsIgnoringCase(b, s, e, "samesite") ? .sameSite : nil
        case 11: return unsafe equalsIgnoringCase(b, s, e, "partitioned") ? .partitioned : nil
        default: return nil
        }
    }

    /// Compares `b[s..<e]` with a lower-case ASCII literal, ignoring ASCII case.
    @inline(__always)
    static func equalsIgnoringCase(
        _ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, _ literal: StaticString
    )
        -> Bool
    {
        guard e - s == literal.utf8CodeUnitCount else { return false }
        let p = unsafe literal.utf8Start
        for k in 0..<(e - s) {
            var c = unsafe b[s + k]
            if c >= 0x41 && c <= 0x5A { c |= 0x20 }
            if unsafe c != p[k] { return false }
        }
        return true
    }

    /// `Max-Age`: an optional `-` then digits only; saturates instead of overflowing.
    static func parseMaxAge(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Int64? {
        var i = s
        var negative = false
        if i < e, unsafe b[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        guard i < e else { return nil }
        var value: Int64 = 0
        while i < e {
            let c = unsafe b[i]
            guard CookieDate.isDigit(c) else { return nil }
            if value < Int64.max / 10 {
                value = value * 10 + Int64(c - 0x30)
            } else {
                value = Int64.max
            }
            i += 1
        }
        return negative ? -value : value
    }

    @inline(__always)
    static func isWSP(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }

    @inline(__always)
    static func trim(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> (Int, Int) {
        var s = s, e = e
        while s < e, unsafe isWSP(b[s]) { s += 1 }
        while e > s, unsafe isWSP(b[e - 1]) { e -= 1 }
        return (s, e)
    }

    @inline(__always)
    static func string(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> String {
        if s >= e { return "" }
        return unsafe String(decoding: UnsafeBufferPointer(rebasing: b[s..<e]), as: UTF8.self)
    }

    /// Lower-cases ASCII letters only, leaving every other byte (IDNA-safe).
    static func asciiLowercased(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> String {
        if s >= e { return "" }
        return unsafe String(unsafeUninitializedCapacity: e - s) { out in
            for k in 0..<(e - s) {
                var c = unsafe b[s + k]
                if c >= 0x41 && c <= 0x5A { c |= 0x20 }
                unsafe out[k] = c
            }
            return e - s
        }
    }
}

/// Byte tests on eight bytes at once; each returns a word whose high bit is set in exactly the
/// bytes that pass.
enum SWAR {
    static let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
    static let high: UInt64 = 0x8080_8080_8080_8080
    static let ones: UInt64 = 0x0101_0101_0101_0101

    /// Bytes below 0x20 (no carry crosses a byte: the low seven bits plus 0x60 stay below 0x100).
    @inline(__always)
    static func bytesBelow0x20(_ word: UInt64) -> UInt64 {
        ~(((word & low7) &+ 0x6060_6060_6060_6060) | word) & high
    }

    /// Bytes equal to `byte`.
    @inline(__always)
    static func bytesEqual(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let y = word ^ (ones &* UInt64(byte))
        return ~(((y & low7) &+ low7) | y | low7)
    }
}
