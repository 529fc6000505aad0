import Foundation
import Testing

@testable import SessionBridgeHeadless

/// `data:` URLs as the Fetch Standard's data: URL processor reads them (what module imports read).
@Suite(.timeLimit(.minutes(1))) struct DataURLTests {
    @Test(arguments: [
        ("data:,hello", "text/plain;charset=US-ASCII", "hello"),
        ("data:text/javascript,a%20b%22c", "text/javascript", "a b\"c"),
        ("data:;charset=utf-8,x", "text/plain;charset=utf-8", "x"),
        ("data:text/plain;base64,aGk=", "text/plain", "hi"),
        ("data:text/plain ; BASE64,aG k", "text/plain", "hi"),
        ("data:text/plain;base64,aGk#fragment", "text/plain", "hi"),
        ("DATA:text/css,a", "text/css", "a"),
    ])
    func readsTheTypeAndTheBytes(url: String, type: String, body: String) throws {
        let given = try #require(URL(string: url))
        let data = try #require(DataURL(given))
        #expect(data.mimeType == type)
        #expect(data.body == Array(body.utf8))
    }

    @Test(arguments: ["data:text/plain", "data:;base64,a", "data:;base64,a=b", "https://app.example/,x"])
    func refusesWhatIsNoDataURLOrMalformedBase64(url: String) throws {
        let given = try #require(URL(string: url))
        #expect(DataURL(given) == nil)
    }
}
