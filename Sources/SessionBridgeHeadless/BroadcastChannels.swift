import SessionBridgeMessaging
import SessionBridgeScriptEngine
import Synchronization

/// The `BroadcastChannel`s of a ``WebsiteDataStore``'s pages (HTML): a message one document
/// posts on a channel name reaches every other document of its origin listening on that name,
/// as it reaches the tabs of one browser profile.
///
/// A document's page world listens once it makes its first channel, until it closes. The
/// message crosses as the text of its structured clone's wire form
/// (``WebPlatformPrelude/wireFormSource``): dates, maps, sets, binary data, blobs, errors,
/// shared references and `CryptoKey`s (handed over natively, ``SharedCryptoKeys``) arrive as
/// they were sent.
final class BroadcastChannels: Sendable {
    /// One message: the channel's name, its data, the sending document's origin.
    struct Message: Sendable {
        let name: String
        let data: ScriptValue
        let origin: String
    }

    private let listeners = Mutex<[ObjectIdentifier: (origin: SecurityOrigin, deliver: @Sendable (Message) -> Void)]>([:])

    /// Gives `deliver` each message another document of `origin` posts, until ``stopListening(_:)``.
    func listen(_ origin: SecurityOrigin, as id: ObjectIdentifier, deliver: @escaping @Sendable (Message) -> Void) {
        listeners.withLock { $0[id] = (origin, deliver) }
    }

    func stopListening(_ id: ObjectIdentifier) {
        listeners.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// Sends `message` to every document listening, of any origin (the platform's own
    /// channels: the data store telling its pages of a change of its own).
    func postToEveryDocument(_ message: Message) {
        let receivers = listeners.withLock { $0.values.map(\.deliver) }
        for deliver in receivers { deliver(message) }
    }

    /// Sends `message` to the documents of `origin` listening, but the sender (`source`).
    func post(_ message: Message, from origin: SecurityOrigin, by source: ObjectIdentifier) {
        let receivers = listeners.withLock { $0.filter { $0.key != source && $0.value.origin == origin }.map(\.value.deliver) }
        for deliver in receivers { deliver(message) }
    }
}
