import Foundation
import PropertyBased
import SessionBridgeCookies
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeHeadless

/// What servers and pages write into the rules of a page's requests is theirs to choose: CORS
/// fields, referrer policies, integrity metadata, refresh content, charsets, character
/// references. Whatever they hold, reading them ends with an answer, never stops the process,
/// and the answers keep their rules: a `Referer` has no fragment, a credentialed request is never
/// allowed by a wildcard, text without `&` decodes to itself, windows-1252 gives a character a byte.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct RequestRulesPropertyTests {
    /// Pieces that move the readers between their cases, to be strung together.
    static let pieces = [
        "*", ",", ";", " ", "\t", "=", "'", "\"", "?", "-", "#", "&", "&#", "&#x", "amp", "url", "0", "9", ".", "sha256",
        "sha512-", "AAAA", "==", "_", "+", "/", "charset", "utf-8", "latin1", "utf-16", "no-referrer", "origin", "unsafe-url",
        "http://", "https://a.test", "127.0.0.1", ":8080", "\u{0}", "\u{80}", "é", "\u{FFFD}", "bytes=", "true", "null",
        "<meta charset=", "<", ">", "\r\n",
    ]

    @Test func anyTextIsRead() async {
        await propertyCheck(count: 3000, input: Gen.int(in: 0...(Self.pieces.count - 1)).array(of: 0...30)) { indices in
            let text = indices.map { Self.pieces[$0] }.joined()
            _ = DeclarativeRefresh(text)
            _ = Referrer.Policy(field: [text, text])
            _ = Referrer.Policy(meta: text)
            let decoded = HTMLCharacterReferences.decode(text, inAttribute: true)
            if !text.contains("&") { #expect(decoded == text) }
            _ = HTMLCharacterReferences.decode(text, inAttribute: false)
            _ = SubresourceIntegrity.matches(text, body: Array(text.utf8), opaque: false)
            _ = CORSSafelist.isSafelistedRequestHeader(name: "content-type", value: text)
            _ = CORSSafelist.isSafelistedRequestHeader(name: "range", value: text)
            _ = CORSSafelist.unsafeRequestHeaderNames([HTTPHeader("x-\(indices.count)", text), HTTPHeader("accept", text)])
            _ = DocumentEncoding.of(Array(text.utf8), contentType: "text/html; charset=\(text)")
            _ = DocumentEncoding(label: text)
            if let url = URL(string: "https://a.test/" + text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!) {
                let referer = Referrer(source: url, policy: .unsafeURL).value(for: URL(string: "http://b.test/")!)
                #expect(referer?.contains("#") != true)
            }
            var fetch = CrossOriginFetch(origin: nil, mode: .cors, credentials: .include)
            var request = PageRequest(url: URL(string: "https://a.test/x")!, method: "PUT", headers: [HTTPHeader("x-t", text)])
            if let hop = try? fetch.begin(&request), let preflight = hop.preflight {
                let answer = [
                    HTTPHeader("Access-Control-Allow-Origin", text), HTTPHeader("Access-Control-Allow-Methods", text),
                    HTTPHeader("Access-Control-Allow-Headers", text), HTTPHeader("Access-Control-Max-Age", text),
                ]
                _ = try? fetch.checkPreflight(preflight, headers: answer, status: 200)
                let wildcard = [HTTPHeader("Access-Control-Allow-Origin", "*"), HTTPHeader("Access-Control-Allow-Credentials", "true")]
                #expect(throws: CrossOriginFetch.Blocked.self) { try fetch.check(wildcard + answer.dropFirst(), status: 200) }
                _ = fetch.exposedHeaders(answer + [HTTPHeader("Access-Control-Expose-Headers", text)])
            }
        }
    }

    @Test func anyBytesAreDecoded() async {
        await propertyCheck(count: 2000, input: Gen.uint8().array(of: 0...300)) { bytes in
            for encoding in [DocumentEncoding.utf8, .utf16LE, .utf16BE] { _ = encoding.decode(bytes) }
            #expect(DocumentEncoding.windows1252.decode(bytes).unicodeScalars.count == bytes.count)
            _ = DocumentEncoding.of(bytes, contentType: nil)
        }
    }
}
