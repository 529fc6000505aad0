import Dispatch
import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import Synchronization

/// `window.open` and the window proxies it returns.
extension DocumentEnvironment {
    /// Opens `target` for `window.open(url, name)` with a name other than `_self`, `_top` or
    /// `_parent` (those navigate this document): a named window this page opened and that is
    /// still open is reused (loaded with `target` when one is given); otherwise the navigation
    /// delegate and then the UI delegate are asked for a new view, as WebKit's
    /// `createWebViewWith`, and the request is loaded there.
    ///
    /// - Returns: the id of the window's proxy, or `nil` (the script gets `null`) when there is
    ///   no UI delegate, either delegate refused, or they did not answer within the panel timeout.
    func openWindow(_ target: URL?, name: String, on thread: EngineThread) -> Int? {
        guard let page = page.page else { return nil }
        let windows = page.openedWindows
        let named = name == "_blank" ? nil : name
        if let named, let existing = windows.window(named: named) {
            if let target { navigateWindow(existing.id, to: target) }
            return existing.id
        }
        guard configuration.uiDelegate != nil else { return nil }
        let request = PageRequest(url: target ?? URL(string: "about:blank")!)
        let action = NavigationAction(
            request: request, navigationType: .newWindow, isUserInitiated: false, isMainFrame: false, sourceURL: url)
        guard let view = waitForDelegate(nil, on: thread, { await page.createWindow(for: action) }) else { return nil }
        if let opened = view as? WebPage, let origin = WebStorage.origin(of: url) {
            page.sessionStorage.copyItems(forOrigin: origin, to: opened.sessionStorage)
        }
        let id = windows.add(view, name: named, href: request.url.absoluteString)
        if let opened = view as? WebPage { opened.opener.withLock { $0 = OpenerLink(page: page, window: id) } }
        if let target { load(PageRequest(url: target), into: view, window: id, of: windows) }
        return id
    }

    /// `proxy.location.href = url`: loads `target` into the window.
    func navigateWindow(_ id: Int, to target: URL) {
        guard let windows = page.page?.openedWindows, !windows.isClosed(id), let view = windows.view(id) else { return }
        windows.setHref(target.absoluteString, of: id)
        load(PageRequest(url: target), into: view, window: id, of: windows)
    }

    /// `proxy.close()`.
    func closeWindow(_ id: Int) {
        guard let view = page.page?.openedWindows.close(id) else { return }
        tracker.begin()
        Task {
            defer { tracker.end() }
            await view.close()
        }
    }

    /// `proxy.postMessage(data, targetOrigin, transfer)`: a `message` event on the window's
    /// global, with this document's origin, unless `targetOrigin` names another origin than the
    /// window's document has (then it is dropped, as browsers do). `wire` is the data's
    /// structured clone in its wire form (``WebPlatformPrelude/wireFormSource``), `json` the
    /// data as JSON for a window of another engine, `ports` the ends of the ports it transfers
    /// (closed when the message is dropped, or the window has another data store or engine).
    func postMessage(to id: Int, wire: String, json: String, ports: [MessagePortPipes.End], targetOrigin: String) {
        let pipes = configuration.websiteDataStore.messagePorts
        guard let windows = page.page?.openedWindows, !windows.isClosed(id), let view = windows.view(id),
            let literal = Self.stringLiteral(json), let origin = Self.stringLiteral(SecurityOrigin(url: url)?.description ?? "null")
        else { return ports.forEach(pipes.close) }
        let tracker = self.tracker, url = self.url, store = configuration.websiteDataStore
        tracker.begin()
        postedMessages.post {
            defer { tracker.end() }
            if targetOrigin != "*" {
                guard let current = await view.url, SecurityOrigin(url: current)?.description == targetOrigin else {
                    return ports.forEach(pipes.close)
                }
            }
            if let opened = view as? WebPage {
                // A port crosses only within one data store (its pipes are the store's).
                let carried = opened.configuration.websiteDataStore === store ? ports : []
                if carried.isEmpty { ports.forEach(pipes.close) }
                await opened.deliverMessage(
                    wire: wire, ports: carried, origin: SecurityOrigin(url: url)?.description ?? "null", fromWindow: nil)
            } else {
                ports.forEach(pipes.close)
                // Another engine's window (WebKit's `dispatchEvent` takes only an `Event`).
                _ = try? await view.evaluateJavaScript(
                    "dispatchEvent(new MessageEvent('message', {data: JSON.parse(\(literal)), origin: \(origin)})); undefined", in: .page)
            }
        }
    }

    /// `window.opener.postMessage(data, targetOrigin)`: a `message` event at the opener's
    /// document, from this document's origin, its `source` the opener's proxy of this window;
    /// dropped when `targetOrigin` names another origin than the opener's document has.
    func postMessageToOpener(wire: String, ports: [MessagePortPipes.End], targetOrigin: String) {
        let pipes = configuration.websiteDataStore.messagePorts
        guard let link = page.page?.opener.withLock({ $0 }), let opener = link.page else { return ports.forEach(pipes.close) }
        let origin = SecurityOrigin(url: url)?.description ?? "null"
        let tracker = self.tracker
        // A port crosses only within one data store (its pipes are the store's).
        let (carried, dropped) = opener.configuration.websiteDataStore === configuration.websiteDataStore ? (ports, []) : ([], ports)
        dropped.forEach(pipes.close)
        tracker.begin()
        postedMessages.post {
            defer { tracker.end() }
            if targetOrigin != "*" {
                guard let current = await opener.url, SecurityOrigin(url: current)?.description == targetOrigin else {
                    return carried.forEach(pipes.close)
                }
            }
            await opener.deliverMessage(wire: wire, ports: carried, origin: origin, fromWindow: link.window)
        }
    }

    /// `window.close()` in a window another page opened: it closes (its opener's proxy then
    /// reads `closed`), as a script may close a window a script opened.
    func closeOpenedSelf() {
        guard let link = page.page?.opener.withLock({ $0 }), let opener = link.page else { return }
        guard let view = opener.openedWindows.close(link.window) else { return }
        tracker.begin()
        Task {
            defer { tracker.end() }
            await view.close()
        }
    }

    /// Whether this page has an opener that is still open (`window.opener.closed` is the opposite).
    var openerIsOpen: Bool {
        guard let opener = page.page?.opener.withLock({ $0 })?.page else { return false }
        return !opener.isClosedFlag.load(ordering: .acquiring)
    }

    /// Loads `request` into the window `id`, unless a later load of it was asked by the time
    /// this one starts.
    private func load(_ request: PageRequest, into view: any WebView, window id: Int, of windows: OpenedWindows) {
        let number = windows.nextLoad(of: id)
        tracker.begin()
        Task {
            defer { tracker.end() }
            guard windows.isLatestLoad(number, of: id) else { return }
            await WebPage.load(request, into: view, referredBy: clientReferrer)
        }
    }

    /// `text` as a JavaScript string literal.
    static func stringLiteral(_ text: String) -> String? {
        guard let data = try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Runs `work` (a delegate call) while the calling script waits, for at most the panel
    /// timeout; `fallback` when it does not answer in time.
    ///
    /// The wait keeps the page's executor `thread` (a lane, for a page with a UI delegate)
    /// paused and runs the rest of its engine thread meanwhile, so the delegate may use other
    /// pages on that thread; see ``EngineThread/runOthers(until:timeout:)``.
    func waitForDelegate<Value: Sendable>(
        _ fallback: Value, on thread: EngineThread, _ work: @escaping @Sendable () async -> Value
    ) -> Value {
        let answer = Mutex<Value?>(nil)
        let host = thread.hostThread
        Task.detached {
            let value = await work()
            answer.withLock { $0 = value }
            host.wake()
        }
        _ = thread.runOthers(until: { answer.withLock { $0 != nil } }, timeout: configuration.panelTimeout)
        return answer.withLock { $0 } ?? fallback
    }
}
