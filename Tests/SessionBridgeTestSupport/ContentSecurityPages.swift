/// Pages that try the headless engine's Content Security Policy where a page makes it hard,
/// shared by the headless tests and the tests on both engines.
public enum ContentSecurityPages {
    /// A page that freezes `eval` and `Function.prototype` (as hardening libraries do) and then
    /// meets a `<meta>` policy refusing `eval`: `before` is what `eval` gave first, `after` what
    /// `eval` and `new Function` did under the policy, `errors` the window's `error` events.
    public static let evalFrozenBeforeMetaPolicy = """
        <script>
        window.errors = []; addEventListener("error", e => errors.push(e.message));
        window.before = eval("1 + 1");
        Object.defineProperty(window, "eval", { value: eval, writable: false, configurable: false });
        Object.freeze(Function.prototype);
        </script>
        <meta http-equiv="Content-Security-Policy" content="script-src 'unsafe-inline'">
        <script>
        window.after = [];
        try { eval("1"); after.push("ran"); } catch (e) { after.push(e.name); }
        try { new Function("return 1"); after.push("ran"); } catch (e) { after.push(e.name); }
        </script>
        """
}
