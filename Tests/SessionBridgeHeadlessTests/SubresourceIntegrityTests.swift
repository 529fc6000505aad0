import Crypto
import Foundation
import Testing

@testable import SessionBridgeHeadless

/// Subresource Integrity's matching, without a network. (Both engines: `CrossOriginRequestsOnBothEnginesTests`.)
@Suite(.timeLimit(.minutes(1))) struct SubresourceIntegrityTests {
    static let body = Array("console.log(1);".utf8)
    static let sha256 = Data(SHA256.hash(data: body)).base64EncodedString()
    static let sha512 = Data(SHA512.hash(data: body)).base64EncodedString()

    @Test func theStrongestAlgorithmNamedDecides() {
        func matches(_ metadata: String, opaque: Bool = false) -> Bool {
            SubresourceIntegrity.matches(metadata, body: Self.body, opaque: opaque)
        }
        #expect(matches("sha256-\(Self.sha256)"))
        #expect(matches("  SHA256-\(Self.sha256)?ct=application/javascript  "))
        #expect(matches("sha256-AAAA sha256-\(Self.sha256)"))
        #expect(!matches("sha256-AAAA"))
        #expect(!matches("sha512-AAAA sha256-\(Self.sha256)"))
        #expect(matches("sha256-AAAA\tsha512-\(Self.sha512)"))
        // base64url and no padding are the same digest.
        let url = Self.sha256.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
            of: "=", with: "")
        #expect(matches("sha256-\(url)"))
        // Nothing known checks nothing.
        #expect(matches(""))
        #expect(matches("md5-AAAA sha1-BBBB bogus"))
        #expect(!matches("sha256-\(Self.sha256)", opaque: true))
        #expect(matches("md5-AAAA", opaque: true))
    }
}

/// Character references in attribute values and titles, as HTML decodes them.
@Suite(.timeLimit(.minutes(1))) struct HTMLCharacterReferencesTests {
    @Test(arguments: [
        ("/api.js?key=1&amp;callback=init", "/api.js?key=1&callback=init"),
        ("a&#38;b&#x26;c&#X26;d&#x26d", "a&b&c&d\u{26D}"),
        ("&lt;&gt;&quot;&apos;&nbsp;", "<>\"'\u{A0}"),
        // In an attribute, a legacy name without `;` before `=`, a letter or a digit stays.
        ("?a=1&copy=2&amp=3&ampx", "?a=1&copy=2&amp=3&ampx"),
        ("&unknown; & &; &#; &#xZ", "&unknown; & &; &#; &#xZ"),
        ("&#0;&#xD800;&#x110000;&#128;", "\u{FFFD}\u{FFFD}\u{FFFD}\u{20AC}"),
    ])
    func attributeValuesAreDecoded(written: String, decoded: String) {
        #expect(HTMLCharacterReferences.decode(written, inAttribute: true) == decoded)
    }

    @Test func textDecodesLegacyNamesBeforeLetters() {
        #expect(HTMLCharacterReferences.decode("Tom &amp Jerry &ampx &copy2026", inAttribute: false) == "Tom & Jerry &x ©2026")
        let scripts = HTMLDocumentScripts(html: #"<title>A &amp; B</title><script src="/s.js?a=1&amp;b=2"></script>"#)
        #expect(scripts.title == "A & B")
        #expect(scripts.scripts == [.external(src: "/s.js?a=1&b=2")])
    }
}
