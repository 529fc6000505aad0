import Foundation
import HTTPTypes
import Hummingbird

extension TestSite {
    /// `/cors/classic.js`'s body.
    static let classicScript = "window.classicRuns = (window.classicRuns || 0) + 1;"
    /// `/cors/module.js`'s body.
    static let moduleScript = "export const cross = 1;"

    /// Routes that answer as another origin's API does under the CORS protocol, each answer's
    /// CORS fields named by its query, so that one page can try every case:
    /// - `/cors/api` (any method) answers `{"method": M}` with `X-Custom: c1` and a cookie
    ///   (`api=1`), and the fields `acao` (`Access-Control-Allow-Origin`), `acac`
    ///   (`-Allow-Credentials`), `aceh` (`-Expose-Headers`), `acam` (`-Allow-Methods`), `acah`
    ///   (`-Allow-Headers`) and `acma` (`-Max-Age`) give, with the status `status`; a preflight
    ///   (`OPTIONS`) reads the same names prefixed with `p_`. `acao=echo` answers the request's
    ///   own `Origin`, as many servers do.
    /// - `/cors/redirect?to=URL` (any method) redirects there with `code` (302 by default) and
    ///   the same fields.
    /// - `/cors/module.js` is a module, `/cors/classic.js` a classic script that counts its runs
    ///   (`classicRuns`), and `/cors/events` an event stream of one message, with the same
    ///   fields.
    static func addCrossOriginRoutes(to router: Router<BasicRequestContext>) {
        let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .delete, .patch, .options]
        for method in methods {
            router.on("/cors/api", method: method) { request, _ in
                let answer = CrossOriginAnswer(request)
                var headers = answer.fields
                headers[.contentType] = "application/json"
                headers[HTTPField.Name("X-Custom")!] = "c1"
                headers[.setCookie] = "api=1; Path=/"
                return Response(
                    status: answer.status, headers: headers,
                    body: .init(byteBuffer: ByteBuffer(string: #"{"method":"\#(request.method.rawValue)"}"#)))
            }
            router.on("/cors/redirect", method: method) { request, _ in
                let answer = CrossOriginAnswer(request)
                var headers = answer.fields
                headers[.location] = request.uri.queryParameters.get("to") ?? "/"
                let code = request.uri.queryParameters.get("code", as: Int.self) ?? 302
                return Response(status: HTTPResponse.Status(code: code), headers: headers)
            }
        }
        router.get("/cors/module.js") { request, _ in
            var headers = CrossOriginAnswer(request).fields
            headers[.contentType] = "text/javascript"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: TestSite.moduleScript)))
        }
        router.get("/cors/classic.js") { request, _ in
            var headers = CrossOriginAnswer(request).fields
            headers[.contentType] = "text/javascript"
            let body = TestSite.classicScript
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        router.get("/cors/events") { request, _ in
            var headers = CrossOriginAnswer(request).fields
            headers[.contentType] = "text/event-stream"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "retry: 60000\ndata: hi\n\n")))
        }
    }
}

/// The CORS fields and status a `/cors/` route's query asks for.
private struct CrossOriginAnswer {
    var fields = HTTPFields()
    var status = HTTPResponse.Status.ok

    init(_ request: Request) {
        let prefix = request.method == .options ? "p_" : ""
        let query = request.uri.queryParameters
        let names: [(String, String)] = [
            ("acao", "Access-Control-Allow-Origin"), ("acac", "Access-Control-Allow-Credentials"),
            ("aceh", "Access-Control-Expose-Headers"), ("acam", "Access-Control-Allow-Methods"),
            ("acah", "Access-Control-Allow-Headers"), ("acma", "Access-Control-Max-Age"),
        ]
        for (key, name) in names {
            guard var value = query.get(prefix + key) else { continue }
            if key == "acao", value == "echo" { value = request.headers[.origin] ?? "" }
            fields.append(HTTPField(name: HTTPField.Name(name)!, value: value))
        }
        if let code = query.get(prefix + "status", as: Int.self) { status = HTTPResponse.Status(code: code) }
    }
}
