import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Synchronization

extension TestSite {
    /// A page's Content Security Policy fields, named by its query: `csp` gives
    /// `Content-Security-Policy`, `cspro` `Content-Security-Policy-Report-Only`, `endpoints`
    /// `Reporting-Endpoints`.
    static func addContentSecurityFields(from request: HummingbirdCore.Request, to headers: inout HTTPFields) {
        if let policy = request.uri.queryParameters.get("csp") {
            headers[HTTPField.Name("Content-Security-Policy")!] = policy
        }
        if let policy = request.uri.queryParameters.get("cspro") {
            headers[HTTPField.Name("Content-Security-Policy-Report-Only")!] = policy
        }
        if let endpoints = request.uri.queryParameters.get("endpoints") {
            headers[HTTPField.Name("Reporting-Endpoints")!] = endpoints
        }
    }

    /// `/csp/run.js?n=NAME` is a script that adds `NAME` to the page's `ran` list; `/csp/report`
    /// takes a policy's reports (their bodies in ``reports``).
    static func addContentSecurityRoutes(to router: Router<BasicRequestContext>, reports: RequestLog) {
        router.get("/csp/run.js") { request, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/javascript"
            headers[HTTPField.Name("Access-Control-Allow-Origin")!] = "*"
            let name = (request.uri.queryParameters.get("n") ?? "").filter { $0.isLetter || $0.isNumber }
            return Response(
                status: .ok, headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: "(window.ran = window.ran || []).push(\"\(name)\");")))
        }
        router.post("/csp/report") { request, _ in
            let body = try await request.body.collect(upTo: 65_536)
            reports.reports.withLock { $0.append(String(buffer: body)) }
            return Response(status: .noContent)
        }
    }
}
