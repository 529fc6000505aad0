import Foundation
import Hummingbird

extension TestSite {
    /// Pages in windows-1252, to read as the engine decides their encoding: `/latin/header`
    /// names it in its `Content-Type`, `/latin/meta` in a `<meta charset>`, and each runs
    /// `/latin/script.js` (windows-1252 too, naming nothing), whose text reaches `latin`.
    static func addEncodingRoutes(to router: Router<BasicRequestContext>) {
        // "café €" in windows-1252: é is 0xE9, € is 0x80.
        let word: [UInt8] = [0x63, 0x61, 0x66, 0xE9, 0x20, 0x80]
        let script = Array(#"var latin = [""#.utf8) + word + Array(#"", document.title, document.characterSet];"#.utf8)
        let tail = Array(#"</title><script src="/latin/script.js"></script>"#.utf8)
        let header = Array("<title>".utf8) + word + tail
        let meta = Array(#"<meta charset="iso-8859-1"><title>"#.utf8) + word + tail
        router.get("/latin/header") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/html; charset=windows-1252"],
                body: .init(byteBuffer: ByteBuffer(bytes: header)))
        }
        router.get("/latin/meta") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(bytes: meta)))
        }
        router.get("/latin/script.js") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/javascript"], body: .init(byteBuffer: ByteBuffer(bytes: script)))
        }
    }
}
