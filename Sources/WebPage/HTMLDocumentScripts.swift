/// The parts of an HTML document a headless page needs: its scripts in document order and its
/// title. Nothing else of HTML is parsed.
struct HTMLDocumentScripts {
    /// A `<script>` element.
    enum Script: Equatable {
        case inline(source: String, line: Int)
        case external(src: String)
        /// A script type the page does not run (modules, JSON, templates).
        case skipped(type: String)
    }

    var scripts: [Script] = []
    var title: String?

    init(html: String) {
        let utf8 = Array(html.utf8)
        var index = 0
        var line = 1
        var lineAt = 0
        func lineNumber(at position: Int) -> Int {
            while lineAt < position {
                if utf8[lineAt] == UInt8(ascii: "\n") { line += 1 }
                lineAt += 1
            }
            return line
        }
        while let open = Self.find("<script", in: utf8, from: index) {
            guard let tagEnd = Self.find(">", in: utf8, from: open) else { break }
            let attributes = Self.attributes(String(decoding: utf8[(open + 7)..<tagEnd], as: UTF8.self))
            let contentStart = tagEnd + 1
            let close = Self.find("</script", in: utf8, from: contentStart) ?? utf8.count
            let type = attributes["type"]?.lowercased() ?? ""
            let runnable = ["", "text/javascript", "application/javascript", "module"].contains(type) && type != "module"
            if !runnable {
                scripts.append(.skipped(type: type))
            } else if let src = attributes["src"] {
                scripts.append(.external(src: src))
            } else {
                scripts.append(.inline(source: String(decoding: utf8[contentStart..<close], as: UTF8.self), line: lineNumber(at: contentStart)))
            }
            index = min(utf8.count, close + 1)
        }
        if let open = Self.find("<title", in: utf8, from: 0), let start = Self.find(">", in: utf8, from: open),
           let end = Self.find("</title", in: utf8, from: start) {
            title = String(decoding: utf8[(start + 1)..<end], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// The first case-insensitive occurrence of an ASCII `needle`.
    private static func find(_ needle: String, in haystack: [UInt8], from start: Int) -> Int? {
        let pattern = Array(needle.utf8)
        guard !pattern.isEmpty, haystack.count >= pattern.count, start <= haystack.count - pattern.count else { return nil }
        var position = start
        while position <= haystack.count - pattern.count {
            var matched = true
            for offset in 0..<pattern.count where lower(haystack[position + offset]) != pattern[offset] {
                matched = false
                break
            }
            if matched { return position }
            position += 1
        }
        return nil
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte + 32 : byte
    }

    /// `name="value"`, `name='value'`, `name=value` and bare `name` attributes.
    static func attributes(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var scanner = Substring(text)
        while true {
            scanner = scanner.drop(while: { $0.isWhitespace || $0 == "/" })
            guard !scanner.isEmpty else { break }
            let name = scanner.prefix(while: { !$0.isWhitespace && $0 != "=" && $0 != ">" })
            scanner = scanner.dropFirst(name.count).drop(while: \.isWhitespace)
            var value = ""
            if scanner.first == "=" {
                scanner = scanner.dropFirst().drop(while: \.isWhitespace)
                if let quote = scanner.first, quote == "\"" || quote == "'" {
                    let body = scanner.dropFirst().prefix(while: { $0 != quote })
                    value = String(body)
                    scanner = scanner.dropFirst(body.count + 2)
                } else {
                    let body = scanner.prefix(while: { !$0.isWhitespace })
                    value = String(body)
                    scanner = scanner.dropFirst(body.count)
                }
            }
            if name.isEmpty { scanner = scanner.dropFirst() } else { result[name.lowercased()] = value }
        }
        return result
    }
}

import Foundation
