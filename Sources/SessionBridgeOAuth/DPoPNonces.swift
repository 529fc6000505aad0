public import Foundation
import Synchronization

/// The latest `DPoP-Nonce` each server origin gave (RFC 9449 §8, §9), shared by the token
/// requests and the resource requests of one client. Nonces are not secrets.
public final class DPoPNonces: Sendable {
    private let nonces = Mutex<[String: String]>([:])

    /// Creates an empty store.
    public init() {}

    /// The latest nonce of `url`'s origin, if any.
    public func nonce(for url: URL) -> String? {
        guard let origin = Self.origin(of: url) else { return nil }
        return nonces.withLock { $0[origin] }
    }

    /// Remembers the `DPoP-Nonce` field among `headers` (an answer from `url`), if there is
    /// one; returns whether there was. Any answer may carry a new nonce.
    @discardableResult
    public func remember(headers: [(String, String)], from url: URL) -> Bool {
        guard let value = headers.last(where: { $0.0.lowercased() == "dpop-nonce" })?.1, Self.isValid(value),
            let origin = Self.origin(of: url)
        else { return false }
        nonces.withLock { $0[origin] = value }
        return true
    }

    /// A nonce is a non-empty run of `NQCHAR` (RFC 9449 §8.1), at most 1 KiB here.
    static func isValid(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 1024
            && value.unicodeScalars.allSatisfy {
                $0 == "!" || ($0.value >= 0x23 && $0.value <= 0x5B) || ($0.value >= 0x5D && $0.value <= 0x7E)
            }
    }

    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        return "\(scheme)://\(host):\(url.port ?? (scheme == "https" ? 443 : 80))"
    }
}
