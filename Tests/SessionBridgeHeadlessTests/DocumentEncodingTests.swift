import Foundation
import Testing

@testable import SessionBridgeHeadless

/// How a document's encoding is chosen and its bytes read. (Both engines:
/// `DocumentMarkupOnBothEnginesTests`.)
@Suite(.timeLimit(.minutes(1))) struct DocumentEncodingTests {
    @Test func theByteOrderMarkThenTheCharsetThenAMetaDecide() {
        let meta = Array(#"<head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">"#.utf8)
        #expect(DocumentEncoding.of(meta, contentType: "text/html") == .windows1252)
        #expect(DocumentEncoding.of(meta, contentType: #"text/html; Charset="utf-8""#) == .utf8)
        #expect(DocumentEncoding.of([0xEF, 0xBB, 0xBF] + meta, contentType: "text/html; charset=latin1") == .utf8)
        #expect(DocumentEncoding.of(Array(#"<meta charset="utf-16">"#.utf8), contentType: nil) == .utf8)
        #expect(DocumentEncoding.of(Array(#"<meta charset="shift_jis">"#.utf8), contentType: nil) == .utf8)
        // A meta past the first 1,024 bytes is read while the head goes on, as WebKit reads it,
        // and not after the body began; nothing declared is WebKit's default.
        let late = Array("<head><!--\(String(repeating: "a", count: 1100))-->".utf8) + Array(#"<meta charset="utf-8">"#.utf8)
        #expect(DocumentEncoding.of(late, contentType: nil) == .utf8)
        let afterBody = Array("<p>\(String(repeating: "a", count: 1100))</p>".utf8) + Array(#"<meta charset="utf-8">"#.utf8)
        #expect(DocumentEncoding.of(afterBody, contentType: nil) == .windows1252)
        #expect(DocumentEncoding.of(Array("<title>café</title>".utf8), contentType: "text/html") == .windows1252)
        #expect(DocumentEncoding.ofScript(Array("x".utf8), contentType: "text/javascript", document: .windows1252) == .windows1252)
        #expect(DocumentEncoding.ofScript(Array("x".utf8), contentType: "text/javascript; charset=utf-8", document: .windows1252) == .utf8)
    }

    @Test func bytesAreReadInTheirEncoding() {
        #expect(DocumentEncoding.windows1252.decode([0x63, 0xE9, 0x80, 0x81, 0x9F]) == "cé€\u{81}Ÿ")
        #expect(DocumentEncoding.utf16LE.decode([0xFF, 0xFE, 0x61, 0x00, 0xAC, 0x20]) == "a€")
        #expect(DocumentEncoding.utf16BE.decode([0x00, 0x61, 0x20]) == "a\u{FFFD}")
        #expect(DocumentEncoding.utf8.decode([0xEF, 0xBB, 0xBF, 0x61, 0xFF]) == "a\u{FFFD}")
        #expect(DocumentEncoding(label: " Latin1 ") == .windows1252)
        #expect(DocumentEncoding(label: "koi8-r") == nil)
    }
}
