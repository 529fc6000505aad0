import CJavaScriptCore
import Synchronization

extension ScriptContext {
    /// Installs `console.log/info/warn/error/debug`, captured as ``ConsoleMessage`` events.
    func installConsole() {
        for level in [ConsoleMessage.Level.log, .info, .warn, .error, .debug] {
            let function = unsafe makeFunction { context, call in
                let text = unsafe call.arguments.map { unsafe context.consoleText($0) }.joined(separator: " ")
                // A `toJSON` or `toString` stopped by the time limit: the line is not shown.
                if context.thread.watchdogFired.load(ordering: .relaxed) || context.stoppedInThisEntry { return nil }
                context.report(.console(ConsoleMessage(level: level, text: text)))
                return nil
            }
            unsafe define(function, as: level.rawValue, in: "console")
        }
    }

    /// The longest string argument a console line shows: 8 Mi UTF-16 code units, the 16 MiB
    /// of the default ``ConversionLimits/maxBytes``.
    static let maxConsoleStringLength = 8 << 20

    /// How a console shows one argument: strings as they are, other values as JSON where they
    /// have it, else as `String(value)`.
    private func consoleText(_ value: JSValueRef?) -> String {
        guard let value = unsafe value else { return "undefined" }
        if unsafe JSValueIsString(ctx, value) {
            // Measured before the copy, as conversions are.
            let length = unsafe stringLength(ctx, value)
            if length > Self.maxConsoleStringLength { return "<a string of \(length) characters, not shown>" }
            return unsafe stringOf(ctx, value) ?? ""
        }
        if unsafe JSValueIsObject(ctx, value), let object = unsafe JSValueToObject(ctx, value, nil),
            unsafe !JSObjectIsFunction(ctx, object),
            unsafe JSValueGetTypedArrayType(ctx, value, nil) == kJSTypedArrayTypeNone,
            unsafe !isErrorObject(object)
        {
            var exception: JSValueRef? = nil
            if let json = unsafe JSValueCreateJSONString(ctx, value, 0, &exception) {
                defer { unsafe JSStringRelease(json) }
                return unsafe swiftString(json)
            }
        }
        return unsafe stringOf(ctx, value) ?? "<unprintable>"
    }

    private func isErrorObject(_ object: JSObjectRef) -> Bool {
        guard let constructor = unsafe errorConstructor else { return false }
        return unsafe JSValueIsInstanceOfConstructor(ctx, object, constructor, nil)
    }

    /// The `Error` the context started with: a page that rebinds the global one changes
    /// nothing here (and runs no code of its own through it).
    private var errorConstructor: JSObjectRef? {
        guard let list = unsafe pristineBuiltins else { return nil }
        return unsafe JSObjectGetPropertyAtIndex(ctx, list, UInt32(PristineBuiltins.error), nil)
            .flatMap { unsafe JSValueToObject(ctx, $0, nil) }
    }

    /// Reports promises rejected without a handler as ``ScriptEvent/unhandledRejection(_:)``.
    func installRejectionTracking() {
        let callback = unsafe makeFunction { context, call in
            let reason: JSValueRef = unsafe call[1] ?? JSValueMakeUndefined(call.ctx)!
            unsafe context.reportUncaught(reason, rejectionOf: call[0] ?? JSValueMakeUndefined(call.ctx)!)
            return nil
        }
        _ = unsafe JSGlobalContextSetUnhandledRejectionCallback(ctx, callback, nil)
    }
}
