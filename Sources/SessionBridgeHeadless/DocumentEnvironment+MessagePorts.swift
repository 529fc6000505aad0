import SessionBridgeScriptEngine

/// The ends of ``MessagePortPipes`` a context's ports hold, and the prelude's function that
/// gives them what comes.
@safe  // its JavaScriptCore reference is used only on its context's engine thread, while the context lives
final class PortEnds {
    let receive: RawObject
    var ends: Set<MessagePortPipes.End> = []
    var inbox: ScriptContextInbox<MessagePortPipes.Message>?

    init(receive: RawObject) { unsafe self.receive = unsafe receive }
}

extension DocumentEnvironment {
    /// The page APIs' native functions of ports entangled across contexts (``MessagePortPipes``).
    static func defineMessagePortFunctions(
        _ add: (String, @escaping @Sendable (isolated ScriptContext, RawCall, DocumentEnvironment) throws -> RawValue?) -> Void
    ) {
        // `()`: a new pipe's number.
        unsafe add("portPipe") { context, _, env in
            unsafe context.jsValue(.number(Double(env.configuration.websiteDataStore.messagePorts.makePipe())))
        }
        // `(receive, pipe, side)`: the context's port holds that end; `receive(pipe, side, wire,
        // ends)` gets what comes for it.
        unsafe add("portBind") { context, call, env in
            guard let receive = unsafe context.function(call[0]), let end = try portEnd(call, from: 1, in: context) else {
                return nil
            }
            let pipes = env.configuration.websiteDataStore.messagePorts
            let held = unsafe portEnds(receive, pipes: pipes, in: context)
            held.ends.insert(end)
            guard let inbox = held.inbox else { return nil }
            pipes.bind(end) { inbox.send($0) }
            return nil
        }
        // `(pipe, side)`: the port left the context (transferred on).
        unsafe add("portUnbind") { context, call, env in
            guard let end = try portEnd(call, from: 0, in: context) else { return nil }
            env.configuration.websiteDataStore.messagePorts.unbind(end)
            context.attachment(PortEnds.self)?.ends.remove(end)
            return nil
        }
        // `(pipe, side, wire, ends)`: a message to the other end, `ends` the ports it carries
        // (pipe and side after one another).
        unsafe add("portPost") { context, call, env in
            guard let end = try portEnd(call, from: 0, in: context) else { return nil }
            let wire = try unsafe context.scriptValue(call[2]).stringValue ?? "null"
            env.configuration.websiteDataStore.messagePorts.post(
                from: end, wire: wire, ports: try unsafe carriedPorts(call[3], in: context))
            return nil
        }
        // `(pipe, side)`: the port's `close()`.
        unsafe add("portClose") { context, call, env in
            guard let end = try portEnd(call, from: 0, in: context) else { return nil }
            env.configuration.websiteDataStore.messagePorts.close(end)
            context.attachment(PortEnds.self)?.ends.remove(end)
            return nil
        }
    }

    /// The end `call` names from argument `first` on (pipe, side).
    private static func portEnd(_ call: RawCall, from first: Int, in context: isolated ScriptContext) throws -> MessagePortPipes.End? {
        guard let pipe = try unsafe context.scriptValue(call[first]).numberValue.flatMap({ Int(javaScriptNumber: $0) }),
            let side = try unsafe context.scriptValue(call[first + 1]).numberValue.flatMap({ Int(javaScriptNumber: $0) }),
            side == 0 || side == 1
        else { return nil }
        return MessagePortPipes.End(pipe: pipe, side: side)
    }

    /// The ends of the ports a message carries: a list of numbers, pipe and side after one another.
    static func carriedPorts(_ value: RawValue?, in context: isolated ScriptContext) throws -> [MessagePortPipes.End] {
        guard case .array(let numbers) = try unsafe context.scriptValue(value) else { return [] }
        let values = numbers.compactMap { $0.numberValue.flatMap { Int(javaScriptNumber: $0) } }
        return stride(from: 0, to: values.count - 1, by: 2).compactMap { index in
            values[index + 1] == 0 || values[index + 1] == 1 ? MessagePortPipes.End(pipe: values[index], side: values[index + 1]) : nil
        }
    }

    /// The ends as the prelude takes them: pipe and side after one another.
    static func portsValue(_ ends: [MessagePortPipes.End]) -> ScriptValue {
        .array(ends.flatMap { [ScriptValue.number(Double($0.pipe)), .number(Double($0.side))] })
    }

    /// The context's ends, made with its first (the prelude's `receive` kept); they close with it.
    private static func portEnds(_ receive: RawObject, pipes: MessagePortPipes, in context: isolated ScriptContext) -> PortEnds {
        if let held = context.attachment(PortEnds.self) { return held }
        unsafe context.protect(receive)
        let held = unsafe PortEnds(receive: receive)
        held.inbox = ScriptContextInbox(for: context) { context, message in dispatchPortMessage(message, in: context) }
        context.attach(held)
        context.onClose { context in
            guard let held = context.attachment(PortEnds.self) else { return }
            for end in held.ends { pipes.close(end) }
            held.ends.removeAll()
            unsafe context.unprotect(held.receive)
        }
        return held
    }

    /// Gives a message to the port holding its end.
    private static func dispatchPortMessage(_ message: MessagePortPipes.Message, in context: isolated ScriptContext) {
        guard let held = context.attachment(PortEnds.self), held.ends.contains(message.to) else { return }
        unsafe callReporting(held.receive, in: context) {
            unsafe [
                context.jsValue(.number(Double(message.to.pipe))), context.jsValue(.number(Double(message.to.side))),
                context.jsValue(.string(message.wire)), context.jsValue(portsValue(message.ports)),
            ]
        }
    }
}
