import SessionBridgeScriptEngine

/// The page world's module linker, in JavaScript: HTML's module map and ECMAScript's linking
/// and evaluation of module records, over the records ``ModuleGraph`` fetches.
///
/// Each module's body (``ModuleSource``) is compiled natively into a function of
/// `(__sbImports, __sbModule)`, whose body is `return function* () { … }`:
/// - `__sbImports`' accessors are the module's imported bindings, read live from the exporting
///   module, and read-only; the body reads them there (``ImportReferences``), or, when that
///   analysis was unsure, by their names through `with (__sbImports)` around the generator;
/// - the generator's first step hands the module's exported bindings to the linker
///   (`__sbModule.bind`) and stops: its function declarations exist then, its `let`s and
///   `const`s are in their temporal dead zone, as linking leaves them; its second step runs the
///   module's statements;
/// - a module that awaits at its top level is an `async function` instead, which binds, then
///   waits for `__sbModule.evaluation`.
///
/// The factory is called with the native functions: `compile(bindings, body, probe,
/// sourceURL, line, readsImportScope, scopedKey)` gives `{function, isAsync}` or `{error}` (a `SyntaxError`);
/// `graph(specifier, referrer, type)` a promise of `[key, records]`; `report(error)` reports
/// an uncaught error; `resolve(specifier, referrer)` a URL. It returns `run(records, key)`,
/// which links and evaluates a module script's graph, reports what fails, and returns whether
/// the script's element gets `load` (not after a syntax error, as in WebKit); and
/// `exposeImport()`, which defines the function classic scripts' `import()` calls become.
enum ModuleLinkerPrelude {
    /// ``source``, kept parsed by each engine thread that evaluates it.
    static let script = ScriptSource(source, sourceURL: "sessionbridge://prelude/modules.js")

    static let source = #"""
        (function (native) {
          "use strict";
          const { create, defineProperty, preventExtensions } = Object;
          const ModuleMap = Map, PromiseConstructor = Promise;
          const modules = new ModuleMap();
          const ambiguous = create(null);
          let parseFailed = false;

          function define(data) {
            if (modules.has(data[0])) return;
            modules.set(data[0], {
              key: data[0], sourceURL: data[1], line: data[2], body: data[3], probe: data[4], bindings: data[5],
              requests: data[6], imports: data[7], locals: data[8], indirect: data[9], stars: data[10],
              failure: data[11], metaURL: data[12], readsImportScope: data[13], hasScopedBody: data[14],
              status: "new", error: undefined, compiled: null, isAsync: false, getters: null, namespace: null,
              generator: null, start: null, completion: null, promise: undefined, failed: false,
            });
          }

          // Linking: the graph's new modules compiled (a syntax error is found before anything
          // links), their imports resolved, then each instantiated.
          function link(root) {
            const graph = [];
            (function collect(m) {
              if (m === undefined || graph.includes(m)) return;
              if (m.status === "errored") throw m.error;
              if (m.status !== "new") return;
              graph.push(m);
              for (const key of m.requests) collect(modules.get(key));
            })(root);
            for (const m of graph) {
              if (m.compiled) continue;
              const compiled = native.compile(
                m.bindings, m.body, m.probe, m.sourceURL, m.line, m.readsImportScope, m.hasScopedBody ? m.key : null);
              if (!compiled.function) {
                m.status = "errored";
                m.error = compiled.error;
                parseFailed = true;
                throw compiled.error;
              }
              m.compiled = compiled.function;
              m.isAsync = compiled.isAsync;
            }
            for (const m of graph) {
              if (m.failure) throw linkError(m.failure[0] === "SyntaxError" ? SyntaxError : TypeError, m.failure[1]);
            }
            const scopes = graph.map(importScope);
            graph.forEach((m, index) => instantiate(m, scopes[index]));
            graph.forEach((m, index) => bindDirectly(m, scopes[index]));
          }

          // Once every module of the graph has bound its exports, each import reads its binding
          // through the exporting module's own getter (or holds its namespace), which the engine
          // can inline, instead of through a lookup by name.
          function bindDirectly(m, scope) {
            for (const [local, key, name] of m.imports) {
              const from = modules.get(key);
              const found = name === "*" ? { namespace: from } : resolveExport(from, name, []);
              if (found.namespace) {
                defineProperty(scope, local, { value: namespaceOf(found.namespace), writable: false, configurable: false });
              } else if (found.module.getters) {
                defineProperty(scope, local, { get: reader(found), set: readOnly, configurable: false });
              }
            }
          }

          function importScope(m) {
            const scope = create(null);
            for (const [local, key, name] of m.imports) {
              const from = modules.get(key);
              let get;
              if (name === "*") {
                get = () => namespaceOf(from);
              } else {
                const found = from ? resolveExport(from, name, []) : null;
                if (found === null) throw linkError(SyntaxError, `Importing binding name '${name}' is not found.`);
                if (found === ambiguous) {
                  throw linkError(SyntaxError, `Importing binding name '${name}' cannot be resolved due to ambiguous multiple bindings.`);
                }
                get = reader(found);
              }
              defineProperty(scope, local, { get, set: readOnly, configurable: true });
            }
            return scope;
          }

          // An error of linking, which is at no line of the page's (as in WebKit).
          function linkError(Type, message) {
            const error = new Type(message);
            delete error.line;
            delete error.column;
            delete error.sourceURL;
            return error;
          }

          function readOnly() { throw new TypeError("Attempted to assign to readonly property."); }

          function instantiate(m, scope) {
            const handle = moduleHandle(m);
            if (m.isAsync) handle.evaluation = new PromiseConstructor((resolve) => { m.start = resolve; });
            const body = m.compiled(scope, handle);
            m.status = "linked";
            if (m.isAsync) {
              m.completion = body();
            } else {
              m.generator = body();
              m.generator.next();
            }
          }

          function moduleHandle(m) {
            let meta;
            return {
              bind(getters) { m.getters = getters; },
              get meta() {
                if (!meta) {
                  meta = create(null);
                  meta.url = m.metaURL;
                  meta.resolve = function resolve(specifier) { return native.resolve(String(specifier), m.metaURL); };
                }
                return meta;
              },
              import(specifier, options) { return importModule(specifier, options, m.metaURL); },
              evaluation: undefined,
            };
          }

          function resolveExport(m, name, seen) {
            for (const [module, exported] of seen) if (module === m && exported === name) return null;
            seen.push([m, name]);
            if (m.locals.includes(name)) return { module: m, name };
            for (const [exported, key, importName] of m.indirect) {
              if (exported !== name) continue;
              const from = modules.get(key);
              if (!from) return null;
              return importName === "*" ? { namespace: from } : resolveExport(from, importName, seen);
            }
            if (name === "default") return null;
            let found = null;
            for (const key of m.stars) {
              const from = modules.get(key);
              const resolution = from ? resolveExport(from, name, seen) : null;
              if (resolution === ambiguous) return ambiguous;
              if (resolution === null) continue;
              if (found && !(found.module === resolution.module && found.name === resolution.name && found.namespace === resolution.namespace)) {
                return ambiguous;
              }
              found = resolution;
            }
            return found;
          }

          function reader(found) {
            if (found.namespace) return () => namespaceOf(found.namespace);
            const { module, name } = found;
            if (module.getters) return module.getters[name];
            return () => {
              const getters = module.getters;
              if (!getters) throw new ReferenceError("Cannot access uninitialized variable.");
              return getters[name]();
            };
          }

          function exportedNames(m, visited) {
            if (visited.includes(m)) return [];
            visited.push(m);
            const names = [...m.locals];
            for (const entry of m.indirect) names.push(entry[0]);
            for (const key of m.stars) {
              const from = modules.get(key);
              if (!from) continue;
              for (const name of exportedNames(from, visited)) if (name !== "default" && !names.includes(name)) names.push(name);
            }
            return names;
          }

          function namespaceOf(m) {
            if (m.namespace) return m.namespace;
            const namespace = create(null);
            for (const name of exportedNames(m, []).sort()) {
              const found = resolveExport(m, name, []);
              if (found && found !== ambiguous) defineProperty(namespace, name, { get: reader(found), enumerable: true });
            }
            defineProperty(namespace, Symbol.toStringTag, { value: "Module" });
            preventExtensions(namespace);
            m.namespace = namespace;
            return namespace;
          }

          // Evaluation: a module after the modules it imports. Returns `undefined` when the module
          // finished at once, else a promise (it awaits, waits for one that does, or failed).
          function evaluate(m) {
            if (m.status === "evaluated" || m.status === "evaluating") return m.promise;
            m.status = "evaluating";
            const waits = [];
            for (const key of m.requests) {
              const from = modules.get(key);
              if (!from) continue;
              const pending = evaluate(from);
              if (from.failed) {
                // The first module that throws ends the graph's evaluation: the modules after it
                // do not run, and every module that imports it fails with its error.
                m.failed = true;
                m.status = "evaluated";
                m.promise = pending;
                return pending;
              }
              if (pending) waits.push(pending);
            }
            m.promise = waits.length ? afterAll(waits, m) : execute(m);
            m.status = "evaluated";
            return m.promise;
          }

          async function afterAll(waits, m) {
            for (const pending of waits) await pending;
            const pending = execute(m);
            if (pending) await pending;
          }

          function execute(m) {
            if (m.isAsync) {
              m.start();
              return m.completion;
            }
            try {
              m.generator.next();
              return undefined;
            } catch (error) {
              m.failed = true;
              return rejected(error);
            }
          }

          async function rejected(error) { throw error; }

          async function importModule(specifier, options, referrer) {
            specifier = String(specifier);
            let type = null;
            if (options !== undefined) {
              if (typeof options !== "object" || options === null) throw new TypeError("Import options must be an object");
              const attributes = options.with;
              if (attributes !== undefined) {
                if (typeof attributes !== "object" || attributes === null) throw new TypeError("Import attributes must be an object");
                if (attributes.type !== undefined) type = String(attributes.type);
              }
            }
            const [key, records] = await native.graph(specifier, referrer, type);
            for (const data of records) define(data);
            const m = modules.get(key);
            link(m);
            const pending = evaluate(m);
            if (pending) await pending;
            return namespaceOf(m);
          }

          async function reportRejection(pending) {
            try {
              await pending;
            } catch (error) {
              native.report(error);
            }
          }

          // A classic script's `import()`, rewritten as a call of this (``ClassicScriptImports``).
          function exposeImport() {
            defineProperty(globalThis, "__sessionBridgeImport", {
              value: function (referrer, specifier, options) { return importModule(specifier, options, referrer); },
            });
          }

          function run(records, key) {
            for (const data of records) define(data);
            const m = modules.get(key);
            parseFailed = false;
            try {
              link(m);
            } catch (error) {
              native.report(error);
              return !parseFailed;
            }
            const pending = evaluate(m);
            if (pending) reportRejection(pending);
            return true;
          }

          return { run, exposeImport };
        })
        """#
}
