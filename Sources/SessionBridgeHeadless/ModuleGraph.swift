import Foundation
import SessionBridgeScriptEngine
import Synchronization

/// A document's modules, native side: its import map, and the modules its page world's linker
/// has been given (each is fetched once per document, as HTML's module map has it).
final class DocumentModules: Sendable {
    private let state = Mutex<(importMap: ImportMap, given: Set<String>, inline: Int, scoped: [String: ScopedBody])>(
        (ImportMap(), [], 0, [:]))

    /// A module's body that reads its imports through a `with` scope, kept natively until the
    /// module is compiled, for the linker to fall back on.
    struct ScopedBody: Sendable {
        var body: String
        var awaitProbe: String?
    }

    func keepScopedBody(_ body: ScopedBody, for key: String) {
        state.withLock { $0.scoped[key] = body }
    }

    /// The scoped body of the module `key`, once (the module is compiled then).
    func takeScopedBody(for key: String) -> ScopedBody? {
        state.withLock { $0.scoped.removeValue(forKey: key) }
    }

    var importMap: ImportMap { state.withLock { $0.importMap } }

    /// Adds a `<script type="importmap">`'s entries.
    func addImportMap(_ map: ImportMap) {
        state.withLock { $0.importMap.merge(map) }
    }

    func isGiven(_ key: String) -> Bool {
        state.withLock { $0.given.contains(key) }
    }

    func markGiven(_ keys: some Sequence<String>) {
        state.withLock { $0.given.formUnion(keys) }
    }

    /// A key for the document's next inline module script (it is in no module map).
    func nextInlineKey() -> String {
        state.withLock { state in
            state.inline += 1
            return "inline-module:\(state.inline)"
        }
    }
}

/// Module graphs, fetched for the page world's linker (``ModuleLinkerPrelude``): a module and
/// the modules it imports, transitively, that the world has not been given, each fetched,
/// checked and lexed (``ModuleSource``).
enum ModuleGraph {
    /// Where a graph starts.
    enum Root: Sendable {
        /// A module script's `src`, or a dynamic import's resolved URL, with its import
        /// attributes' type (`json`).
        case url(URL, type: String?)
        /// An inline module script: its source, the document's URL (where errors point), its base
        /// URL (what its imports and `import.meta.url` resolve against: the document's
        /// `<base href>`, or its URL) and the line its text starts on.
        case inline(source: String, documentURL: URL, base: URL, line: Int)
    }

    /// Why a graph could not be fetched: a dynamic import rejects with a `TypeError` of this
    /// message, a module script's element gets `error`.
    struct LoadFailure: Error {
        var message: String
    }

    /// The JavaScript MIME types (MIME Sniffing, "JavaScript MIME type essence match").
    static let javaScriptTypes: Set<String> = [
        "application/ecmascript", "application/javascript", "application/x-ecmascript", "application/x-javascript",
        "text/ecmascript", "text/javascript", "text/javascript1.0", "text/javascript1.1", "text/javascript1.2",
        "text/javascript1.3", "text/javascript1.4", "text/javascript1.5", "text/jscript", "text/livescript",
        "text/x-ecmascript", "text/x-javascript",
    ]

    /// Fetches the graph from `root`. Returns the root's key in the module map and the records
    /// of the modules the world had not been given (``record``), which it has been given then.
    ///
    /// A module script's element sets the graph's `credentials` (`crossorigin="use-credentials"`:
    /// cookies to another origin's modules too), its root's `integrity` (Subresource Integrity)
    /// and its `nonce`, which the document's Content Security Policy reads for each module the
    /// graph imports (an element's own source is checked before).
    static func load(
        _ root: Root, environment: DocumentEnvironment, credentials: CrossOriginFetch.Credentials = .sameOrigin, integrity: String = "",
        nonce: String = ""
    ) async throws(LoadFailure) -> (key: String, records: [ScriptValue]) {
        let modules = environment.modules
        let importMap = modules.importMap
        var records: [ScriptValue] = []
        var keys: [String] = []
        var seen: Set<String> = []
        var frontier: [(url: URL, type: String?)] = []

        /// The record of one module, and its requests not seen yet queued.
        func add(key: String, source: String, url: URL, sourceURL: URL? = nil, line: Int, type: String?) {
            let record = Self.record(
                key: key, source: source, url: url, sourceURL: sourceURL, line: line, type: type, importMap: importMap, modules: modules)
            records.append(record.value)
            keys.append(key)
            for request in record.requests where !seen.contains(request.url.absoluteString) && !modules.isGiven(request.url.absoluteString)
            {
                seen.insert(request.url.absoluteString)
                frontier.append(request)
            }
        }

        let rootKey: String
        switch root {
        case .inline(let source, let documentURL, let base, let line):
            rootKey = modules.nextInlineKey()
            add(key: rootKey, source: source, url: base, sourceURL: documentURL, line: line, type: nil)
        case .url(let url, let type):
            rootKey = url.absoluteString
            guard !modules.isGiven(rootKey) else { return (rootKey, []) }
            seen.insert(rootKey)
            frontier.append((url, type))
        }
        // A level of the graph at a time, its modules fetched together.
        while !frontier.isEmpty {
            let level = frontier
            frontier = []
            let fetched = await withTaskGroup(of: (Int, Result<(URL, String), LoadFailure>).self) { group in
                for (index, request) in level.enumerated() {
                    // The element's `integrity` for its own module, else the import map's for the module's URL.
                    let own = request.url.absoluteString == rootKey ? integrity : ""
                    let checked = own.isEmpty ? importMap.integrity[request.url.absoluteString] ?? "" : own
                    group.addTask {
                        (
                            index,
                            await fetch(
                                request.url, type: request.type, environment: environment, credentials: credentials, integrity: checked,
                                nonce: nonce)
                        )
                    }
                }
                var results = [Result<(URL, String), LoadFailure>?](repeating: nil, count: level.count)
                for await (index, result) in group { results[index] = result }
                return results
            }
            for (request, result) in zip(level, fetched) {
                guard let result else { continue }
                let (responseURL, source) = try result.get()
                add(key: request.url.absoluteString, source: source, url: responseURL, line: 1, type: request.type)
            }
        }
        modules.markGiven(keys)
        return (rootKey, records)
    }

    /// Fetches a module: the answer's URL (after redirects) and its text.
    private static func fetch(
        _ url: URL, type: String?, environment: DocumentEnvironment, credentials: CrossOriginFetch.Credentials, integrity: String,
        nonce: String
    ) async -> Result<(URL, String), LoadFailure> {
        let url = environment.contentSecurity.upgraded(url)
        if let policy = environment.contentSecurity.policy {
            let verdict = policy.script(url, nonce: nonce, imported: true)
            environment.report(verdict)
            guard verdict.allowed else { return .failure(LoadFailure(message: "Importing a module script failed.")) }
        }
        let response: HTTPLoader.Response
        do {
            response = try await environment.fetchModule(url, credentials: credentials, nonce: nonce)
        } catch {
            return .failure(LoadFailure(message: "Importing a module script failed."))
        }
        guard (200..<300).contains(response.statusCode) else { return .failure(LoadFailure(message: "Importing a module script failed.")) }
        let contentType = response.headers.first { $0.name.lowercased() == "content-type" }?.value ?? ""
        let essence =
            contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        if type == "json" {
            guard essence == "application/json" || essence == "text/json" || essence.hasSuffix("+json") else {
                return .failure(LoadFailure(message: "'\(essence)' is not a valid JSON MIME type."))
            }
        } else if !javaScriptTypes.contains(essence) {
            return .failure(LoadFailure(message: "'\(essence)' is not a valid JavaScript MIME type."))
        }
        if !integrity.isEmpty, !SubresourceIntegrity.matches(integrity, body: response.body, opaque: false) {
            let expected =
                response.headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? response.body.count
            return .failure(
                LoadFailure(
                    message:
                        "Cannot load script \(url.absoluteString). Failed integrity metadata check. Content length: \(response.body.count), "
                        + "Expected content length: \(expected), Expected metadata: \(integrity)"))
        }
        return .success((response.url, String(decoding: response.body, as: UTF8.self)))
    }

    /// A module's record for the linker, and the modules it asks for:
    /// `[key, sourceURL, line, body, awaitProbe, bindings, requests, imports, locals, indirect,
    /// stars, failure, metaURL, readsImportScope, hasScopedBody]`, where `imports` are `[local, key, name]`, `indirect`
    /// `[name, key, importName]` and `failure` `[errorName, message]` (a specifier that
    /// resolves to no URL: the graph fails to link) or `null`. The body to fall back on, when
    /// there is one, is kept in `modules` (``DocumentModules/takeScopedBody(for:)``).
    /// `url` is what the module's imports and `import.meta.url` resolve against; `sourceURL`, where
    /// its errors point, when that is not `url` (an inline module's document).
    static func record(
        key: String, source: String, url: URL, sourceURL: URL? = nil, line: Int, type: String?, importMap: ImportMap,
        modules: DocumentModules
    ) -> (value: ScriptValue, requests: [(url: URL, type: String?)]) {
        func strings(_ list: [String]) -> ScriptValue { .array(list.map(ScriptValue.string)) }
        func value(
            body: String, probe: String?, bindings: String, requests: [String] = [], imports: [ScriptValue] = [],
            locals: [String] = [], indirect: [ScriptValue] = [], stars: [String] = [], failure: ScriptValue = .null,
            readsImportScope: Bool = false, hasScopedBody: Bool = false
        ) -> ScriptValue {
            .array([
                .string(key), .string((sourceURL ?? url).absoluteString), .number(Double(line)), .string(body),
                probe.map(ScriptValue.string) ?? .null,
                .string(bindings), strings(requests), .array(imports), strings(locals), .array(indirect), strings(stars), failure,
                .string(url.absoluteString), .bool(readsImportScope), .bool(hasScopedBody),
            ])
        }
        if type == "json" {
            let binding = ModuleSource.defaultBinding
            return (
                value(
                    body: "const \(binding) = JSON.parse(\(ScriptValue.quoted(source)));", probe: nil,
                    bindings: "\"default\": () => \(binding)", locals: ["default"]), []
            )
        }
        if let type {
            return (
                value(
                    body: "", probe: nil, bindings: "",
                    failure: .array(["TypeError", .string("Import attribute type '\(type)' is not valid.")])), []
            )
        }
        guard let module = try? ModuleSourceCache.source(for: source) else {
            // JavaScriptCore finds the error when the linker compiles it, and says where it is.
            return (value(body: source, probe: nil, bindings: ""), [])
        }
        var resolved: [ModuleSource.Request: URL] = [:]
        var failure: ScriptValue = .null
        var requests: [(url: URL, type: String?)] = []
        for request in module.requests {
            guard let target = importMap.resolve(request.specifier, base: url) else {
                if failure == .null {
                    failure = .array(["TypeError", .string("Module name, '\(request.specifier)' does not resolve to a valid URL.")])
                }
                continue
            }
            resolved[request] = target
            if !requests.contains(where: { $0.url == target }) { requests.append((target, request.type)) }
        }
        if let scoped = module.scopedBody {
            modules.keepScopedBody(DocumentModules.ScopedBody(body: scoped, awaitProbe: module.scopedAwaitProbe), for: key)
        }
        func keyOf(_ request: ModuleSource.Request) -> ScriptValue { .string(resolved[request]?.absoluteString ?? "") }
        return (
            value(
                body: module.body, probe: module.awaitProbe, bindings: module.bindings,
                requests: failure == .null ? requests.map(\.url.absoluteString) : [],
                imports: module.imports.map { .array([.string($0.local), keyOf($0.request), .string($0.name)]) },
                locals: module.localExports.map(\.name),
                indirect: module.indirectExports.map { .array([.string($0.name), keyOf($0.request), .string($0.importName)]) },
                stars: module.starExports.map { resolved[$0]?.absoluteString ?? "" }, failure: failure,
                readsImportScope: module.readsImportScope, hasScopedBody: module.scopedBody != nil),
            failure == .null ? requests : []
        )
    }
}
