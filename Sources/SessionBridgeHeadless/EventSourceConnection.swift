import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SessionBridgeCookies
import SessionBridgeScriptEngine
import Synchronization

/// A page's `EventSource` request (HTML's server-sent events): a `GET` that asks for
/// `text/event-stream`, whose answer's bytes reach the page as they come. It follows the CORS
/// protocol (``CrossOriginFetch``): another origin's answer must allow the document's, and
/// cookies go out and come in by the jar's rules at every hop that has credentials; redirects
/// are followed.
///
/// What happens is told through `deliver`, in order: `open`, the bytes, and one end.
final class EventSourceConnection: Sendable {
    enum Event: Sendable {
        case open
        case bytes([UInt8])
        /// The stream ended, or the connection broke: the page reconnects.
        case ended
        /// The answer was not a stream (a status other than 200, another type): the page stops.
        case failed
        /// A reconnection's new request, started after its delay (for the page's record of them).
        case reconnecting(EventSourceConnection)
    }

    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    /// Starts the request; `cookies` gives a hop's cookie context when `cors` lets it have
    /// credentials. An answer the protocol refuses fails the source, its reason reported to the
    /// console of `documentURL`'s page, as WebKit reports it.
    init(
        url: URL, lastEventID: String, loader: HTTPLoader, cors: CrossOriginFetch, referrer: Referrer, documentURL: URL,
        cookies: @escaping @Sendable (URL) -> HTTPLoader.CookieMode, deliver: @escaping @Sendable (Event) -> Void
    ) {
        let started = Task {
            await Self.run(
                url: url, lastEventID: lastEventID, loader: loader, cors: cors, referrer: referrer, documentURL: documentURL,
                cookies: cookies, deliver: deliver)
        }
        task.withLock { $0 = started }
    }

    /// Ends the request (the page closed its `EventSource`, or its document went away).
    func cancel() {
        task.withLock { $0 }?.cancel()
    }

    private static func run(
        url: URL, lastEventID: String, loader: HTTPLoader, cors: CrossOriginFetch, referrer: Referrer, documentURL: URL,
        cookies: @escaping @Sendable (URL) -> HTTPLoader.CookieMode, deliver: @escaping @Sendable (Event) -> Void
    ) async {
        var target = url
        var cors = cors
        func blocked(_ reason: CrossOriginFetch.Blocked) {
            for text in BlockedLoad.accessControlLines(reason.message, loading: url, by: "EventSource") {
                loader.events?(.console(ConsoleMessage(level: .error, text: text), url: documentURL))
            }
            deliver(.failed)
        }
        let own = UserAgentFields(destination: "empty", mode: "cors", initiator: documentURL, accept: "text/event-stream")
        var hops: [URL] = []
        do {
            for _ in 0...loader.maxRedirects {
                hops.append(target)
                // A port no TCP connection can have is refused here: the HTTP client stops the process on one.
                if let port = target.port, !(0...65_535).contains(port) {
                    deliver(.failed)
                    return
                }
                var request = HTTPClientRequest(url: target.absoluteString)
                for field in own.fields(for: hops, pageHeaders: [], publicSuffixes: loader.jar.publicSuffixList) {
                    request.headers.add(name: field.name, value: field.value)
                }
                request.headers.add(name: "Cache-Control", value: "no-cache")
                request.headers.add(name: "User-Agent", value: loader.userAgent)
                // What the page's earlier stream last said, for a server that resumes from it.
                if !lastEventID.isEmpty, !lastEventID.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                    request.headers.add(name: "Last-Event-ID", value: lastEventID)
                }
                // The user agent's own fields (`Accept`, `Cache-Control`, `Last-Event-ID`) ask for no preflight.
                var hopRequest = PageRequest(url: target)
                let hop: CrossOriginFetch.Hop
                do throws(CrossOriginFetch.Blocked) { hop = try cors.begin(&hopRequest) } catch { return blocked(error) }
                if let origin = hop.origin { request.headers.add(name: "Origin", value: origin) }
                // A secure document's source of an `http:` URL is mixed content, blocked as WebKit blocks it.
                if BlockedLoad.isMixedContent(from: documentURL, to: target) {
                    let text = BlockedLoad.mixedContentLine(from: documentURL, to: target)
                    loader.events?(.console(ConsoleMessage(level: .error, text: text), url: documentURL))
                    return deliver(.failed)
                }
                if let referer = referrer.value(for: target) { request.headers.add(name: "Referer", value: referer) }
                let mode = hop.includesCredentials ? cookies(target) : .omit
                var sent: [String] = []
                if case .include(let context) = mode {
                    let sending = loader.jar.cookiesToSend(to: target, context: context)
                    if !sending.isEmpty { request.headers.add(name: "Cookie", value: CookieJar.cookieHeader(sending)) }
                    sent = sending.map(\.name)
                }
                let started = ContinuousClock.now
                let response = try await loader.client.execute(request, deadline: .distantFuture)
                var set: [String] = []
                if case .include(let context) = mode {
                    for line in response.headers["Set-Cookie"] {
                        if let cookie = loader.jar.setCookie(line, from: target, context: context).cookie { set.append(cookie.name) }
                    }
                }
                loader.events?(
                    .http(
                        HTTPExchange(
                            initiator: .fetch, method: "GET", url: target, statusCode: Int(response.status.code), cookiesSent: sent,
                            cookiesSet: set, cookiesDeleted: [], cookiesRejected: [], duration: ContinuousClock.now - started)))
                do throws(CrossOriginFetch.Blocked) {
                    try cors.check(response.headers.map { HTTPHeader($0.name, $0.value) }, status: Int(response.status.code))
                } catch {
                    return blocked(error)
                }
                if [301, 302, 303, 307, 308].contains(response.status.code), let location = response.headers.first(name: "Location"),
                    let next = URLResolution.resolve(location, against: target), ["http", "https"].contains(next.scheme ?? "")
                {
                    var redirected = PageRequest(url: next)
                    do throws(CrossOriginFetch.Blocked) { try cors.redirect(from: target, to: &redirected) } catch { return blocked(error) }
                    target = next
                    continue
                }
                let type = response.headers.first(name: "Content-Type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
                guard response.status.code == 200, type?.lowercased() == "text/event-stream" else {
                    deliver(.failed)
                    return
                }
                deliver(.open)
                for try await chunk in response.body { deliver(.bytes(Array(buffer: chunk))) }
                deliver(.ended)
                return
            }
            deliver(.failed)
        } catch {
            deliver(Task.isCancelled ? .failed : .ended)
        }
    }
}
