import CJavaScriptCore

extension ScriptContext {
    /// Installs `console.log/info/warn/error/debug`, captured as ``ConsoleMessage`` events.
    func installConsole() {
        for level in [ConsoleMessage.Level.log, .info, .warn, .error, .debug] {
            let function = makeFunction { context, call in
                let text = call.arguments.map { context.consoleText($0) }.joined(separator: " ")
                // A `toJSON` or `toString` stopped by the time limit: the line is not shown.
                if context.thread.watchdogFired.load(ordering: .relaxed) || context.stoppedInThisEntry { return nil }
                context.report(.console(ConsoleMessage(level: level, text: text)))
                return nil
            }
            define(function, as: level.rawValue, in: "console")
        }
    }

    /// The longest string argument a console line shows: 8 Mi UTF-16 code units, the 16 MiB
    /// of the default ``ConversionLimits/maxBytes``.
    static let maxConsoleStringLength = 8 << 20

    /// How a console shows one argument: strings as they are, other values as JSON where they
    /// have it, else as `String(value)`.
    private func consoleText(_ value: JSValueRef?) -> String {
        guard let value else { return "undefined" }
        if JSValueIsString(ctx, value) {
            // Measured before the copy, as conversions are.
            let length = stringLength(ctx, value)
            if length > Self.maxConsoleStringLength { return "<a string of \(length) characters, not shown>" }
            return stringOf(ctx, value) ?? ""
        }
        if JSValueIsObject(ctx, value), let object = JSValueToObject(ctx, value, nil), !JSObjectIsFunction(ctx, object),
           JSValueGetTypedArrayType(ctx, value, nil) == kJSTypedArrayTypeNone,
           !isErrorObject(object) {
            var exception: JSValueRef? = nil
            if let json = JSValueCreateJSONString(ctx, value, 0, &exception) {
                defer { JSStringRelease(json) }
                return swiftString(json)
            }
        }
        return stringOf(ctx, value) ?? "<unprintable>"
    }

    private func isErrorObject(_ object: JSObjectRef) -> Bool {
        guard let constructor = errorConstructor else { return false }
        return JSValueIsInstanceOfConstructor(ctx, object, constructor, nil)
    }

    private var errorConstructor: JSObjectRef? {
        JSObjectGetProperty(ctx, JSContextGetGlobalObject(ctx), PropertyName("Error").ref, nil)
            .flatMap { JSValueToObject(ctx, $0, nil) }
    }

    /// Reports promises rejected without a handler as ``ScriptEvent/unhandledRejection(_:)``.
    func installRejectionTracking() {
        let callback = makeFunction { context, call in
            let reason: JSValueRef = call[1] ?? JSValueMakeUndefined(call.ctx)!
            context.report(.unhandledRejection(context.scriptError(from: reason)))
            return nil
        }
        _ = JSGlobalContextSetUnhandledRejectionCallback(ctx, callback, nil)
    }
}
