import CJavaScriptCore
import Foundation

extension ScriptContext {
    /// Stops `eval`, `Function` (and its async and generator kin) and a timer's code from
    /// compiling code, as a page's Content Security Policy without `'unsafe-eval'` does in
    /// WebKit: the first two throw an `EvalError` with `message`; a timer given code returns
    /// 0 and runs nothing, and `onTimerCode` is told. Code the engine runs itself
    /// (scripts, handlers it compiles) is not affected.
    package func refuseCodeFromStrings(message: String, onTimerCode: ((isolated ScriptContext, String) -> Void)?) {
        guard !isClosed else { return }
        compilesCodeFromStrings = false
        refusedTimerCode = onTimerCode
        let text = unsafe makeJSString(message)
        unsafe JSGlobalContextSetEvalEnabled(ctx, false, text)
        unsafe JSStringRelease(text)
    }

    /// The innermost frame of the running JavaScript whose source is not one of the engine's
    /// own (`sessionbridge:` URLs) or native: its URL and line; `nil` outside JavaScript.
    package func callerLocation() -> (url: String, line: Int)? {
        guard !isClosed, let trace = unsafe JSContextCreateBacktrace(ctx, 32) else { return nil }
        let text = unsafe swiftString(trace)
        unsafe JSStringRelease(trace)
        for frame in text.split(separator: "\n") {
            guard let at = frame.range(of: "() at ", options: .backwards) else { continue }
            let location = frame[at.upperBound...]
            guard let colon = location.lastIndex(of: ":"), let line = Int(location[location.index(after: colon)...]) else { continue }
            let url = String(location[..<colon])
            if url.isEmpty || url.hasPrefix("sessionbridge:") || url == "[native code]" { continue }
            return (url, line)
        }
        return nil
    }
}
