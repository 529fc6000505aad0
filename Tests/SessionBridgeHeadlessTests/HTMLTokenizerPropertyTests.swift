import Foundation
import PropertyBased
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeHeadless

/// A page's HTML is the server's to choose: whatever it holds, finding its scripts ends, never
/// stops the process, and reports only text the document holds.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct HTMLTokenizerPropertyTests {
    /// Pieces of markup that move the tokenizer between its states, to be strung together.
    static let pieces = [
        "<script>", "</script>", "<script type=module>", "<script src=a.js>", "<SCRIPT>", "</SCRIPT ", "<!--", "-->", "<!", "<!-",
        "<?x", "</", "<", ">", "/>", "=", "\"", "'", " ", "\n", "<title>", "</title>", "<template>", "</template>",
        "<textarea>", "<style>", "</style>", "<plaintext>", "<iframe srcdoc=\"<script>x</script>\">", "<a href=x",
        "<!DOCTYPE html>", "<![CDATA[", "]]>", "x", "é", "\u{0}", "<script><!--", "<script", "--!>", "&lt;",
        "&amp", "&#x", "&#", "&#1114112;", "9", ";", "<meta http-equiv=refresh content=", "<base href=", "url=",
        "<meta name=referrer content=",
    ]

    @Test func anyStringOfMarkupPiecesIsRead() async {
        await propertyCheck(count: 3000, input: Gen.int(in: 0...(Self.pieces.count - 1)).array(of: 0...40)) { indices in
            Self.check(indices.map { Self.pieces[$0] }.joined())
        }
    }

    @Test func anyBytesAreRead() async {
        await propertyCheck(count: 2000, input: Gen.uint8().array(of: 0...200)) { bytes in
            Self.check(String(decoding: bytes, as: UTF8.self))
            for element in HTMLTokenizer.elements(in: bytes) {
                if let content = element.content { #expect(content.lowerBound >= 0 && content.upperBound <= bytes.count) }
            }
        }
    }

    static func check(_ html: String) {
        let document = HTMLDocumentScripts(html: html)
        let lines = html.utf8.count { $0 == UInt8(ascii: "\n") } + 1
        for script in document.scripts {
            if case .inline(let source, let line) = script {
                #expect(source.isEmpty || html.contains(source), "\(html.debugDescription)")
                #expect(line >= 1 && line <= lines, "\(html.debugDescription)")
            }
        }
        // The title is the document's text, its character references decoded.
        if let title = document.title, !title.isEmpty {
            #expect(HTMLCharacterReferences.decode(html, inAttribute: false).contains(title), "\(html.debugDescription)")
        }
    }
}
