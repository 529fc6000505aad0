import Foundation
import SessionBridgeOAuth
import SessionBridgeTestSupport
import Testing

/// base64url without padding (RFC 4648 §5), as JWS (RFC 7515 §2) and PKCE (RFC 7636) use it.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct Base64URLTests {
    @Test func theExampleOfRFC7515() {
        // RFC 7515, Appendix C.
        #expect(Base64URL.encode([3, 236, 255, 224, 193]) == "A-z_4ME")
        #expect(Base64URL.decode("A-z_4ME") == Data([3, 236, 255, 224, 193]))
        #expect(Base64URL.encode([]) == "")
        #expect(Base64URL.decode("") == Data())
    }

    @Test func everyLengthAndEveryByteGoesThereAndBack() throws {
        let everyByte = (0...255).map { UInt8($0) }
        for length in 0...80 {
            // Each length sees every byte value at some offset.
            for offset in stride(from: 0, to: 256, by: 37) {
                let bytes = (0..<length).map { everyByte[($0 * 7 + offset) % 256] }
                let encoded = Base64URL.encode(bytes)
                let standard = Data(bytes).base64EncodedString()
                #expect(
                    encoded
                        == String(standard.replacing("=", with: "").map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 }))
                #expect(!encoded.contains { $0 == "+" || $0 == "/" || $0 == "=" })
                #expect(try #require(Base64URL.decode(encoded)) == Data(bytes))
                #expect(Base64URL.decode(encoded[...]) == Data(bytes))
            }
        }
    }

    @Test func anythingElseIsRefused() {
        #expect(Base64URL.decode("A-z_4ME=") == nil)  // padding
        #expect(Base64URL.decode("A+z/4ME") == nil)  // the standard alphabet
        #expect(Base64URL.decode("A-z_ 4ME") == nil)
        #expect(Base64URL.decode("A-z_4M\u{0}E") == nil)
        #expect(Base64URL.decode("Ä-z_4ME") == nil)
        #expect(Base64URL.decode("A") == nil)  // a length no encoding has
        #expect(Base64URL.decode("AAAAA") == nil)
    }
}
