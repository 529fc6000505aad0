/// The built-ins a context captures when it is made, before any other script runs, in one
/// null-prototype record that the context protects (no page-defined setter or getter can see it,
/// and it keeps what is stored in it alive). What is made from them later (the value walker, the
/// await helper) behaves the same whatever a page replaced meanwhile.
enum PristineBuiltins {
    /// The record's source.
    /// ``source``, kept parsed by each engine thread that evaluates it.
    static let script = ScriptSource(source, sourceURL: "sessionbridge://prelude/builtins.js")

    static let source = """
        ({ __proto__: null, 0: Object.keys, 1: Array.isArray, 2: Object.getPrototypeOf, 3: ArrayBuffer.isView, 4: Object.create,
           5: Object.prototype, 6: Array.prototype, 8: Reflect.apply, 9: Promise, 10: Promise.resolve, 11: Promise.prototype.then,
           12: Error, 13: { __proto__: null } })
        """
    /// Entries 0 up to this one are ``ValueWalker/source``'s parameters, in order.
    static let walkerCount = 7
    /// The entry that keeps the walker factory once it is made.
    static let walkerFactory = 7
    /// Where `Reflect.apply`, `Promise`, `Promise.resolve` and `Promise.prototype.then` are, in
    /// that order: what `evaluateAsync` waits with.
    static let awaitFirst = 8
    /// `Error`, which the console tells errors apart with (`instanceof`).
    static let error = 12
    /// `ArrayBuffer.isView`: an object it accepts that is no typed array is a `DataView`.
    static let isView = 3
    /// `Object.prototype`, which a plain object has: such an object is no `DataView`.
    static let objectPrototype = 5
    /// `Object.getPrototypeOf`, which tells a `Proxy` (no prototype of its own, one through
    /// its handler) from a null-prototype object.
    static let prototypeOf = 2
    /// A null-prototype record, the walkers' last parameter: where they keep the objects they
    /// read for the reader to check (``ValueWalker``).
    static let walked = 13
}
