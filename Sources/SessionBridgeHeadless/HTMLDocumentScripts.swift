import Foundation

/// The parts of an HTML document a headless page needs: its scripts in document order and its
/// title, found by ``HTMLTokenizer``.
struct HTMLDocumentScripts {
    /// A `<script>` element.
    enum Script: Equatable {
        case inline(source: String, line: Int)
        case external(src: String)
        /// A module script, inline (`src` is `nil`) or external.
        case module(src: String?, source: String, line: Int)
        /// An import map's JSON text.
        case importMap(source: String)
        /// A classic script marked `nomodule`: a browser that runs modules skips it.
        case noModule
        /// A script type the page does not run (JSON, templates).
        case skipped(type: String)
    }

    var scripts: [Script] = []
    /// Each script's attributes (names lower-cased), by the index of ``scripts``: what
    /// `document.currentScript` shows while it runs.
    var attributes: [[String: String]] = []
    /// Each script's line in the document (where its content starts), by the index of ``scripts``.
    var lines: [Int] = []
    var title: String?
    /// The policy of the document's last `<meta name="referrer">` that names one.
    var referrerPolicy: Referrer.Policy?
    /// The `href` of the document's first `<base>` that has one: what its relative URLs
    /// resolve against.
    var baseHref: String?
    /// The document's first `<meta http-equiv="refresh">` that parses.
    var refresh: DeclarativeRefresh?
    /// Its `<meta http-equiv="Content-Security-Policy">` policies, each with the number of
    /// scripts before it: a policy applies from where it stands.
    var contentSecurityPolicies: [(policy: String, scriptsBefore: Int)] = []
    /// How many of those stand before its `<base href>`: theirs apply to it (`base-uri`).
    var policiesBeforeBase = 0

    init(html: String) {
        let utf8 = Array(html.utf8)
        var line = 1
        var lineAt = 0
        func lineNumber(at position: Int) -> Int {
            while lineAt < position {
                if utf8[lineAt] == UInt8(ascii: "\n") { line += 1 }
                lineAt += 1
            }
            return line
        }
        // Only real `<script>` elements run: not text that looks like one inside a comment, an
        // attribute value (an `iframe`'s `srcdoc` included: its document is not loaded), RCDATA,
        // RAWTEXT or a template's inert contents.
        for element in HTMLTokenizer.elements(in: utf8) where !element.isInTemplate {
            if element.name == "title", title == nil, let content = element.content {
                title = HTMLCharacterReferences.decode(String(decoding: utf8[content], as: UTF8.self), inAttribute: false)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            if element.name == "meta", refresh == nil, element.attributes["http-equiv"]?.lowercased() == "refresh",
                let content = element.attributes["content"]
            {
                refresh = DeclarativeRefresh(content)
            }
            if element.name == "meta", element.attributes["http-equiv"]?.lowercased() == "content-security-policy",
                let content = element.attributes["content"]
            {
                contentSecurityPolicies.append((content, scripts.count))
            }
            if element.name == "base", baseHref == nil, let href = element.attributes["href"] {
                baseHref = href.trimmingCharacters(in: .whitespacesAndNewlines)
                policiesBeforeBase = contentSecurityPolicies.count
            }
            if element.name == "meta", element.attributes["name"]?.lowercased() == "referrer",
                let policy = element.attributes["content"].flatMap(Referrer.Policy.init(meta:))
            {
                referrerPolicy = policy
            }
            guard element.name == "script", let content = element.content else { continue }
            let attributes = element.attributes
            self.attributes.append(attributes)
            lines.append(lineNumber(at: content.lowerBound))
            let type = (attributes["type"] ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            let runnable = ["", "text/javascript", "application/javascript"].contains(type)
            let text = String(decoding: utf8[content], as: UTF8.self)
            if type == "module" {
                scripts.append(.module(src: attributes["src"], source: text, line: lines[lines.count - 1]))
            } else if type == "importmap" {
                scripts.append(.importMap(source: text))
            } else if !runnable {
                scripts.append(.skipped(type: type))
            } else if attributes["nomodule"] != nil {
                scripts.append(.noModule)
            } else if let src = attributes["src"] {
                scripts.append(.external(src: src))
            } else {
                scripts.append(.inline(source: text, line: lines[lines.count - 1]))
            }
        }
    }
}
