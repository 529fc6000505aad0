import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension ServerCore {
    /// `/events`: a server-sent event stream for tests of a page's `EventSource`, written a few
    /// bytes at a time: a comment, `retry` when the query has one, an event telling the
    /// `Last-Event-ID` the request carried (`last none` without one), one telling the names of the
    /// cookies it carried, `count` (default 3) events with ids 1… and two data lines each, an
    /// event of type `named`, and a last one never ended by a blank line (so never dispatched).
    /// The stream then ends, and a client reconnects. `/events/none` answers 204, which tells a
    /// client to stop.
    func addEventStreamRoutes(to router: Router<ReferenceRequestContext>) {
        router.get("/events") { request, _ in
            let count = request.uri.queryParameters["count"].flatMap { Int(String($0)) } ?? 3
            let last = request.headers[HTTPField.Name("Last-Event-ID")!] ?? ""
            let cookies = request.headers[values: .cookie].flatMap { $0.split(separator: ";") }
                .compactMap { $0.split(separator: "=", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces) }.sorted()
            var text = ": a comment\r\n"
            if let retry = request.uri.queryParameters["retry"].flatMap({ Int(String($0)) }) { text += "retry: \(retry)\n" }
            text += "data: last \(last.isEmpty ? "none" : last)\n\n"
            text += "data: cookies \(cookies.joined(separator: ","))\r\n\r\n"
            for index in 0..<count { text += "id: \(index + 1)\ndata: event \(index + 1)\ndata: second line, caf\u{E9}\n\n" }
            text += "event: named\ndata:a named one\r\r"
            text += "data: never dispatched"
            let bytes = Array(text.utf8)
            return Response(
                status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                body: ResponseBody { writer in
                    for start in stride(from: 0, to: bytes.count, by: 7) {
                        try await writer.write(ByteBuffer(bytes: bytes[start..<min(start + 7, bytes.count)]))
                    }
                    try await writer.finish(nil)
                })
        }
        router.get("/events/none") { _, _ in Response(status: .noContent) }
    }
}
