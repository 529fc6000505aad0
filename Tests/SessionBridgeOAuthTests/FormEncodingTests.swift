import Foundation
import SessionBridgeOAuth
import SessionBridgeTestSupport
import Testing

/// `application/x-www-form-urlencoded` as token requests send it (RFC 6749 §2.3.1, Appendix B).
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct FormEncodingTests {
    @Test func lettersAndDigitsStaySpacesArePlusesEveryOtherByteIsEscaped() {
        #expect(FormEncoding.encode("aZ09") == "aZ09")
        #expect(FormEncoding.encode("a b+c/d=e&f") == "a+b%2Bc%2Fd%3De%26f")
        #expect(FormEncoding.encode("-._~*%") == "%2D%2E%5F%7E%2A%25")
        #expect(FormEncoding.encode("é\u{0}\u{7F}") == "%C3%A9%00%7F")
        #expect(FormEncoding.encode("") == "")
        #expect(
            FormEncoding.encode([("grant_type", "refresh_token"), ("refresh_token", "r.t-1_~"), ("empty", "")])
                == "grant%5Ftype=refresh%5Ftoken&refresh%5Ftoken=r%2Et%2D1%5F%7E&empty=")
        #expect(FormEncoding.encode([]) == "")
    }

    /// Every byte value, in names and values, comes back as it went.
    @Test func everyByteGoesThereAndBack() {
        let text = String(decoding: (1...0x7F).map { UInt8($0) }, as: UTF8.self) + "é€😀"
        let fields = [("n " + text, text), ("second", "x")]
        let decoded = FormEncoding.decode(FormEncoding.encode(fields))
        #expect(decoded == ["n " + text: text, "second": "x"])
        #expect(FormEncoding.encode(fields).utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: " ") })
    }
}
