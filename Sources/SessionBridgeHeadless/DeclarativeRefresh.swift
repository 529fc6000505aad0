/// HTML's declarative refresh: a `<meta http-equiv="refresh">` or a `Refresh` field, which
/// navigates the document once it has loaded, after its seconds, to its URL (the document's own
/// when it names none), as WebKit does.
struct DeclarativeRefresh: Sendable, Equatable {
    /// Whole seconds to wait.
    var seconds: Int
    /// The URL as written (not resolved); `nil` for the document's own.
    var url: String?

    init(seconds: Int, url: String?) {
        self.seconds = seconds
        self.url = url
    }

    /// Parses `content` as HTML's shared declarative refresh steps do: `5`, `0; url=/next`,
    /// `3, 'https://…'`; `nil` when it is none.
    init?(_ content: String) {
        let scalars = Array(content.unicodeScalars)
        var index = 0
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { " \t\n\r\u{0C}".unicodeScalars.contains(scalar) }
        func skipSpaces() { while index < scalars.count, isSpace(scalars[index]) { index += 1 } }
        skipSpaces()
        var digits = ""
        while index < scalars.count, ("0"..."9").contains(scalars[index]) {
            digits.unicodeScalars.append(scalars[index])
            index += 1
        }
        if digits.isEmpty, index >= scalars.count || scalars[index] != "." { return nil }
        // A fraction is read and ignored.
        while index < scalars.count, ("0"..."9").contains(scalars[index]) || scalars[index] == "." { index += 1 }
        seconds = Int(digits.prefix(9)) ?? 0
        url = nil
        guard index < scalars.count else { return }
        guard scalars[index] == ";" || scalars[index] == "," || isSpace(scalars[index]) else { return nil }
        skipSpaces()
        if index < scalars.count, scalars[index] == ";" || scalars[index] == "," { index += 1 }
        skipSpaces()
        guard index < scalars.count else { return }
        // `url=`, in any case, may come before the URL.
        if index + 2 < scalars.count, String(String.UnicodeScalarView(scalars[index...index + 2])).lowercased() == "url" {
            var after = index + 3
            while after < scalars.count, isSpace(scalars[after]) { after += 1 }
            if after < scalars.count, scalars[after] == "=" {
                index = after + 1
                skipSpaces()
            }
        }
        var quote: Unicode.Scalar?
        if index < scalars.count, scalars[index] == "'" || scalars[index] == "\"" {
            quote = scalars[index]
            index += 1
        }
        var rest = Array(scalars[index...])
        if let quote, let end = rest.firstIndex(of: quote) { rest = Array(rest[..<end]) }
        url = String(String.UnicodeScalarView(rest))
    }
}
