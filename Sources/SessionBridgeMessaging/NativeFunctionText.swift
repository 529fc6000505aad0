/// JavaScript that has `Function.prototype.toString` show a bridge's function as WebKit shows
/// its own (`function postMessage() {\n    [native code]\n}`): a page that checks that its
/// bridge is native, as a guard against injected scripts, accepts it on both engines.
///
/// Pasted into a world's prelude, whose scope must have `apply` (`Reflect.apply`) and `define`
/// (`Object.defineProperty`), it defines `functionText` (the world's own
/// `Function.prototype.toString`) and `showAsNative(function, text)`. The replacement reads as
/// native itself, has the built-in's name, length and property attributes, and gives every
/// other function's text, or throws, as the built-in does.
package enum NativeFunctionText {
    /// WebKit's text for a handler's `postMessage`.
    package static let postMessage = "function postMessage() {\n    [native code]\n}"
    /// The same, as a JavaScript string literal.
    package static let postMessageLiteral = #""function postMessage() {\n    [native code]\n}""#

    package static let source = """
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
