import Foundation
import SessionBridgeScriptEngine

/// The page world's module linker (``ModuleLinkerPrelude``), made when its first module
/// script runs.
@safe  // its JavaScriptCore reference is used only on its context's engine thread, while the context lives
final class ModuleLinker {
    let run: RawObject
    let exposeImport: RawObject
    /// Whether classic scripts' `import()` has its function.
    var importsExposed = false
    init(run: RawObject, exposeImport: RawObject) {
        unsafe self.run = unsafe run
        unsafe self.exposeImport = unsafe exposeImport
    }
}

extension DocumentEnvironment {
    /// The parameters of a compiled module body: its import scope and its handle.
    private static let moduleParameters = ["__sbImports", "__sbModule"]

    /// Links and evaluates a module script's graph (``ModuleGraph/load(_:environment:)``) in
    /// the page world, under the time limit, reporting what fails. Returns whether the script's
    /// element gets `load`.
    static func runModule(
        _ records: [ScriptValue], key: String, environment: DocumentEnvironment, in context: isolated ScriptContext
    ) -> Bool {
        let linker: ModuleLinker
        do throws(ScriptError) {
            linker = try moduleLinker(environment, in: context)
        } catch {
            context.report(.uncaughtError(error))
            return false
        }
        context.enterJavaScript()
        defer { context.leaveJavaScript() }
        var held = context.holdArguments()
        unsafe context.hold(context.jsValue(.array(records)), in: &held)
        unsafe context.hold(context.jsValue(.string(key)), in: &held)
        do {
            let result = try unsafe context.call(linker.run, with: held)
            return (try? unsafe context.scriptValue(result)) == .bool(true)
        } catch {
            context.report(.uncaughtError(error))
            return false
        }
    }

    /// Makes the page world ready for classic scripts whose `import()` was rewritten
    /// (``ClassicScriptImports``): the linker, and the function the calls became.
    static func exposeClassicImport(_ environment: DocumentEnvironment, in context: isolated ScriptContext) {
        guard let linker = try? moduleLinker(environment, in: context), !linker.importsExposed else { return }
        linker.importsExposed = true
        _ = try? unsafe context.call(linker.exposeImport, [])
    }

    /// The world's linker, made with its native functions on first use.
    private static func moduleLinker(
        _ environment: DocumentEnvironment, in context: isolated ScriptContext
    ) throws(ScriptError) -> ModuleLinker {
        if let linker = context.attachment(ModuleLinker.self) { return linker }
        let factory = try unsafe context.evaluateRaw(ModuleLinkerPrelude.script)
        guard let factoryFunction = unsafe context.function(factory) else {
            throw ScriptError(kind: .exception, name: "Error", message: "module linker failed")
        }
        let native = unsafe context.makeObject()
        unsafe context.protect(native)
        defer { unsafe context.unprotect(native) }
        unsafe context.defineReadOnly(compileFunction(environment, in: context), as: "compile", on: native)
        unsafe context.defineReadOnly(graphFunction(environment, in: context), as: "graph", on: native)
        let report = unsafe context.makeFunction { context, call in
            unsafe context.reportUncaught(call[0] ?? context.undefined)
            return nil
        }
        unsafe context.defineReadOnly(report, as: "report", on: native)
        let resolve = unsafe context.makeFunction { context, call in
            let specifier = try unsafe context.scriptValue(call[0]).stringValue ?? ""
            let referrer = try unsafe context.scriptValue(call[1]).stringValue ?? ""
            guard let base = URL(string: referrer), let target = environment.modules.importMap.resolve(specifier, base: base) else {
                throw ScriptThrow("TypeError", "Module name, '\(specifier)' does not resolve to a valid URL.")
            }
            return unsafe context.jsValue(.string(target.absoluteString))
        }
        unsafe context.defineReadOnly(resolve, as: "resolve", on: native)
        let functions = try unsafe context.call(factoryFunction, [native])
        let run = try unsafe context.protectedFunction("run", of: functions)
        let exposeImport = try unsafe context.protectedFunction("exposeImport", of: functions)
        let linker = unsafe ModuleLinker(run: run, exposeImport: exposeImport)
        context.attach(linker)
        context.onClose { context in
            guard let linker = context.attachment(ModuleLinker.self) else { return }
            unsafe context.unprotect(linker.run)
            unsafe context.unprotect(linker.exposeImport)
        }
        return linker
    }

    /// `compile(bindings, body, probe, sourceURL, line, readsImportScope, scopedKey)`: the
    /// module body's function and whether it awaits at its top level, as `{function, isAsync}`,
    /// or `{error}`, the `SyntaxError` JavaScriptCore found (with its line). A body whose
    /// references to its imports were rewritten and does not parse is compiled again as it was,
    /// with its imports in a `with` scope (kept natively for the module `scopedKey`).
    private static func compileFunction(_ environment: DocumentEnvironment, in context: isolated ScriptContext) -> RawObject {
        unsafe context.makeFunction { context, call in
            let bindings = try unsafe context.scriptValue(call[0]).stringValue ?? ""
            let body = try unsafe context.scriptValue(call[1]).stringValue ?? ""
            let probe = try unsafe context.scriptValue(call[2]).stringValue
            let sourceURL = try unsafe context.scriptValue(call[3]).stringValue ?? ""
            let line = Int(javaScriptNumber: try unsafe context.scriptValue(call[4]).numberValue ?? 1) ?? 1
            let readsImportScope = try unsafe context.scriptValue(call[5]) == .bool(true)
            let scoped = try unsafe context.scriptValue(call[6]).stringValue.flatMap { environment.modules.takeScopedBody(for: $0) }
            var exception: RawValue? = nil
            var (function, isAsync) = unsafe compileModule(
                body, probe: probe, bindings: bindings, withScope: readsImportScope, sourceURL: sourceURL, line: line,
                exception: &exception, in: context)
            if unsafe function == nil, let scoped {
                unsafe (function, isAsync) = unsafe compileModule(
                    scoped.body, probe: scoped.awaitProbe, bindings: bindings, withScope: true, sourceURL: sourceURL, line: line,
                    exception: &exception, in: context)
            }
            let result = unsafe context.makeObject()
            if let function = unsafe function {
                unsafe context.setProperty(function, as: "function", on: result)
                unsafe context.setProperty(context.jsValue(.bool(isAsync)), as: "isAsync", on: result)
            } else {
                unsafe context.setProperty(exception ?? context.undefined, as: "error", on: result)
            }
            return unsafe result
        }
    }

    /// Compiles a module body as a generator, or as an async function when `probe` shows an
    /// `await` at its top level.
    private static func compileModule(
        _ body: String, probe: String?, bindings: String, withScope: Bool, sourceURL: String, line: Int, exception: inout RawValue?,
        in context: isolated ScriptContext
    ) -> (RawObject?, Bool) {
        func wrapped(_ text: String, async: Bool) -> String {
            // On the body's first line, so that its lines stay the module's.
            let function =
                async
                ? "return async function () { \"use strict\"; __sbModule.bind({\(bindings)}); await __sbModule.evaluation; " + text + "\n}"
                : "return function* () { \"use strict\"; __sbModule.bind({\(bindings)}); yield; " + text + "\n}"
            return withScope ? "with (__sbImports) { " + function + " }" : function
        }
        if let probe,
            unsafe context.compileFunction(
                parameters: moduleParameters, body: wrapped(probe, async: false), sourceURL: sourceURL, startingLine: line,
                exception: &exception) == nil
        {
            // An `await` a plain generator cannot parse: one at the top level (or an error the
            // asynchronous body shows too).
            let function = unsafe context.compileFunction(
                parameters: moduleParameters, body: wrapped(body, async: true), sourceURL: sourceURL, startingLine: line,
                exception: &exception)
            return unsafe (function, true)
        }
        let function = unsafe context.compileFunction(
            parameters: moduleParameters, body: wrapped(body, async: false), sourceURL: sourceURL, startingLine: line,
            exception: &exception)
        return unsafe (function, false)
    }

    /// `graph(specifier, referrer, type)`: a promise of `[key, records]`, the graph of a
    /// dynamic import (``ModuleGraph``), or of its `TypeError`.
    private static func graphFunction(_ environment: DocumentEnvironment, in context: isolated ScriptContext) -> RawObject {
        unsafe context.makeFunction { context, call in
            let specifier = try unsafe context.scriptValue(call[0]).stringValue ?? ""
            let referrer = try unsafe context.scriptValue(call[1]).stringValue ?? ""
            let type = try unsafe context.scriptValue(call[2]).stringValue
            guard let base = URL(string: referrer), let target = environment.modules.importMap.resolve(specifier, base: base) else {
                throw ScriptThrow("TypeError", "Module name, '\(specifier)' does not resolve to a valid URL.")
            }
            let (promise, deferred) = unsafe try context.makeDeferredPromise()
            context.startTask(settling: deferred) {
                do throws(ModuleGraph.LoadFailure) {
                    let (key, records) = try await ModuleGraph.load(.url(target, type: type), environment: environment)
                    return .success(.array([.string(key), .array(records)]))
                } catch {
                    // A module that failed its integrity check: WebKit's line to the console, its words to the page.
                    guard error.message.hasPrefix("Cannot load script") else { return .failure(ScriptThrow("TypeError", error.message)) }
                    environment.loader.events?(.console(ConsoleMessage(level: .error, text: error.message), url: environment.url))
                    return .failure(ScriptThrow("TypeError", "Cannot load script due to integrity mismatch"))
                }
            }
            return unsafe promise
        }
    }
}
