import Synchronization

/// `MessagePort`s entangled across script contexts: a port a document transfers to its worker
/// (or a worker to its document, or on to another port's owner), as an authentication SDK
/// hands its worker the port the token's answer comes back on.
///
/// A pipe has two ends, one per port. An end is bound to the context that holds its port,
/// which is given what the other end posts, in the order posted; while a port is in flight
/// (transferred, not yet taken up) what is posted to it waits here, up to
/// ``maximumWaiting`` messages. An end is closed by its port's `close()` and by its context
/// closing; a pipe both of whose ends are closed is gone. A data store keeps the pipes of its
/// pages and their workers (``WebsiteDataStore/messagePorts``).
final class MessagePortPipes: Sendable {
    /// How many messages wait for an end in flight before later ones are dropped.
    static let maximumWaiting = 10_000

    /// One end of a pipe: `side` 0 or 1.
    struct End: Hashable, Sendable {
        let pipe: Int
        let side: Int
        var other: End { End(pipe: pipe, side: 1 - side) }
    }

    /// A message for an end: its wire form's text, and the ends of the ports it carries.
    struct Message: Sendable {
        let to: End
        let wire: String
        let ports: [End]
    }

    private struct Slot {
        var deliver: (@Sendable (Message) -> Void)?
        var waiting: [Message] = []
        var closed = false
    }

    private struct State {
        var lastPipe = 0
        var slots: [End: Slot] = [:]
    }

    private let state = Mutex(State())

    /// A new pipe's number; both its ends wait for their ports.
    func makePipe() -> Int {
        state.withLock { state in
            state.lastPipe += 1
            for side in 0...1 { state.slots[End(pipe: state.lastPipe, side: side)] = Slot() }
            return state.lastPipe
        }
    }

    /// Gives `deliver` what the other end posts to `end`: first what waited for it.
    /// (Delivered under the lock, so that nothing posted meanwhile overtakes what waited.)
    func bind(_ end: End, _ deliver: @escaping @Sendable (Message) -> Void) {
        state.withLock { state in
            guard var slot = state.slots[end], !slot.closed else { return }
            for message in slot.waiting { deliver(message) }
            slot.waiting = []
            slot.deliver = deliver
            state.slots[end] = slot
        }
    }

    /// `end`'s port left its context: what comes for it waits until it is bound again.
    func unbind(_ end: End) {
        state.withLock { $0.slots[end]?.deliver = nil }
    }

    /// Posts a message from `end` to the other end.
    func post(from end: End, wire: String, ports: [End]) {
        state.withLock { state in
            let to = end.other
            guard state.slots[end]?.closed == false, var slot = state.slots[to], !slot.closed else { return }
            let message = Message(to: to, wire: wire, ports: ports)
            if let deliver = slot.deliver {
                deliver(message)
            } else if slot.waiting.count < Self.maximumWaiting {
                slot.waiting.append(message)
                state.slots[to] = slot
            }
        }
    }

    /// Closes `end`: it sends and receives nothing more. The pipe is gone once the other end is
    /// closed too, or has nothing waiting for it (nothing can come for it any more).
    func close(_ end: End) {
        state.withLock { state in
            guard state.slots[end] != nil else { return }
            state.slots[end] = Slot(closed: true)
            if state.slots[end.other].map({ $0.closed || $0.waiting.isEmpty }) ?? true {
                state.slots[end] = nil
                state.slots[end.other] = nil
            }
        }
    }

    /// How many pipes have an end open (for tests).
    var openPipes: Int {
        state.withLock { state in Set(state.slots.filter { !$0.value.closed }.keys.map(\.pipe)).count }
    }
}
