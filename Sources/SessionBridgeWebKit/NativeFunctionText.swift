/// JavaScript that has `Function.prototype.toString` show the engine's `postMessage` wrapper as
/// WebKit shows its own (`function postMessage() {\n    [native code]\n}`): a page that checks
/// that its bridge is native, as a guard against injected scripts, accepts it.
///
/// Pasted into the wrapper's script, whose scope must have `apply` (`Reflect.apply`) and
/// `define` (`Object.defineProperty`), it defines `functionText` (the world's own
/// `Function.prototype.toString`) and `showAsNative(function, text)`. The replacement reads as
/// native itself, has the built-in's name, length and property attributes, and gives every
/// other function's text, or throws, as the built-in does. (It costs a page about 8 KB of its
/// web process, which the headless engine does not pay: its `postMessage` is native already.)
enum NativeFunctionText {
    static let source = """
        const functionText = Function.prototype.toString;
        const nativeTexts = new WeakMap(), textOf = WeakMap.prototype.get, setText = WeakMap.prototype.set;
        const showAsNative = (shown, text) => { apply(setText, nativeTexts, [shown, text]); };
        const toString = {
          toString() {
            const text = typeof this === "function" ? apply(textOf, nativeTexts, [this]) : undefined;
            return text !== undefined ? text : apply(functionText, this, arguments);
          }
        }.toString;
        showAsNative(toString, apply(functionText, functionText, []));
        define(Function.prototype, "toString", { value: toString, writable: true, enumerable: false, configurable: true });
        """
}
