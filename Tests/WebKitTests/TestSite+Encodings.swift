import Foundation
import Hummingbird

extension TestSite {
    /// Pages in windows-1252, to read as the engine decides their encoding: `/latin/header`
    /// names it in its `Content-Type`, `/latin/meta` in a `<meta charset>`, and each runs
    /// `/latin/script.js` (windows-1252 too, naming nothing), whose text reaches `latin`;
    /// `/latin/undeclared` is UTF-8 and names no encoding, `/latin/late-meta` names it late.
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
        // UTF-8 bytes that name no encoding: read in WebKit's default, windows-1252.
        let undeclared = Array("<title>café</title><script>var latin = [document.title, document.characterSet];</script>".utf8)
        router.get("/latin/undeclared") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(bytes: undeclared)))
        }
        // A `<meta charset>` after a head comment longer than 1,024 bytes: still read.
        let lateMeta = Array("<head><!--\(String(repeating: "a", count: 1100))--><meta charset=\"utf-8\">".utf8) + undeclared
        router.get("/latin/late-meta") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(bytes: lateMeta)))
        }
        router.get("/latin/script.js") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/javascript"], body: .init(byteBuffer: ByteBuffer(bytes: script)))
        }
        addCompressedRoutes(to: router)
    }

    /// A page and a JSON body sent gzip-compressed, to a client that asks for gzip only:
    /// `/gzip/page` fetches `/gzip/data.json` and keeps its `Content-Encoding` and its text
    /// (`"déjà vu, déjà vu, déjà vu"`) in `fetched`. A client that does not ask gets 406.
    static func addCompressedRoutes(to router: Router<BasicRequestContext>) {
        // gzip (mtime 0) of `<title>compressed</title><script>window.fetched = fetch("/gzip/data.json")
        // .then(r => r.json().then(j => [r.headers.get("content-encoding"), j.word]));</script>`.
        let page = Data(
            base64Encoded: "H4sIAAAAAAAC/y3NTQoDIQxA4auIK4VWD1DHi5QuBpP6QxslBoSevnQ6u8e3eUGqvDCm/h6McyIE/5cwE9chcVWCvtwTJRUEtamjjPb5"
                + "U4eHXXbXZidtnRQkw2qLig8yJ7Uf3dkV3AF5uoxidOokSHJFSh0qZW0vqrnVGR7W3oI/719/xlR0nwAAAA==")!
        // gzip (mtime 0) of `{"word": "déjà vu, déjà vu, déjà vu"}`.
        let data = Data(base64Encoded: "H4sIAAAAAAAC/6tWKs8vSlGyUlBKObwy6/AChbJSHQVsTKVaADsC1wwrAAAA")!
        for (path, body, type) in [("/gzip/page", page, "text/html; charset=utf-8"), ("/gzip/data.json", data, "application/json")] {
            router.get(RouterPath(path)) { request, _ in
                guard request.headers[.acceptEncoding]?.contains("gzip") == true else {
                    return Response(status: .notAcceptable, body: .init(byteBuffer: ByteBuffer(string: "gzip only")))
                }
                return Response(
                    status: .ok, headers: [.contentType: type, .contentEncoding: "gzip"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
            }
        }
    }
}
