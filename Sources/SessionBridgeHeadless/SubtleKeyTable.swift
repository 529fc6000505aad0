import Crypto
import CryptoExtras
import Foundation
import SessionBridgeScriptEngine
import Synchronization

/// The key material of one world's `crypto.subtle`. A page's `CryptoKey` holds only a handle
/// into this table: the material never enters the JavaScript heap, so a page that replaced
/// `Object.prototype.then` or any other built-in cannot see a key it may not export.
/// Entries go when their `CryptoKey` is collected (the prelude's `FinalizationRegistry`) or
/// when the world's context closes.
final class SubtleKeyTable: Sendable {
    private let state = Mutex<(next: Int, keys: [Int: SubtleKey])>((1, [:]))

    /// Stores `key` and returns its handle.
    func insert(_ key: SubtleKey) -> Int {
        state.withLock { state in
            let handle = state.next
            state.next += 1
            state.keys[handle] = key
            return handle
        }
    }

    /// The keys behind the handles among `values`, taken on the page's thread when an
    /// operation is called: a key the page drops while its operation runs is forgotten in a
    /// job of its own, and the operation still has it.
    func keys(among values: [ScriptValue]) -> Held {
        let handles = values.compactMap { $0.numberValue.flatMap(Int.init(javaScriptNumber:)) }
        return Held(keys: state.withLock { state in handles.reduce(into: [:]) { $0[$1] = state.keys[$1] } })
    }

    /// Keys taken for one operation.
    struct Held: Sendable {
        let keys: [Int: SubtleKey]

        /// The key behind `handle`, or a `ScriptThrow` naming an `InvalidAccessError`.
        func key(_ handle: ScriptValue?) throws(ScriptThrow) -> SubtleKey {
            guard let number = handle?.numberValue, let handle = Int(javaScriptNumber: number), let key = keys[handle] else {
                throw ScriptThrow("InvalidAccessError", "The key is not usable here.")
            }
            return key
        }
    }

    func remove(_ handle: Int) {
        state.withLock { _ = $0.keys.removeValue(forKey: handle) }
    }

    /// How many keys the table holds.
    var count: Int { state.withLock { $0.keys.count } }
}

/// The material of one `CryptoKey`.
enum SubtleKey: Sendable {
    /// HMAC, AES, HKDF and PBKDF2 keys: the secret's bytes.
    case secret([UInt8])
    /// An ECDSA or ECDH key on a NIST curve: the private scalar (a private key's only) and the
    /// public point's coordinates, `x` then `y`.
    case elliptic(curve: SubtleCurve, scalar: [UInt8]?, point: [UInt8])
    /// An Ed25519 key: the private seed (a private key's only) and the public key.
    case edwards(seed: [UInt8]?, publicKey: [UInt8])
    /// An RSASSA-PKCS1-v1_5 or RSA-PSS key.
    case rsa(privateKey: _RSA.Signing.PrivateKey?, publicKey: _RSA.Signing.PublicKey)
}

/// The hash functions of WebCrypto's `hash` members.
enum SubtleHash: String, Sendable {
    case sha1 = "SHA-1"
    case sha256 = "SHA-256"
    case sha384 = "SHA-384"
    case sha512 = "SHA-512"

    var function: any HashFunction.Type {
        switch self {
        case .sha1: Insecure.SHA1.self
        case .sha256: SHA256.self
        case .sha384: SHA384.self
        case .sha512: SHA512.self
        }
    }

    var byteCount: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    func digest(_ data: [UInt8]) -> any Digest {
        switch self {
        case .sha1: Insecure.SHA1.hash(data: data)
        case .sha256: SHA256.hash(data: data)
        case .sha384: SHA384.hash(data: data)
        case .sha512: SHA512.hash(data: data)
        }
    }
}

extension ContiguousBytes {
    /// A copy of the bytes (a derived key's or a shared secret's).
    var bytes: [UInt8] { unsafe withUnsafeBytes { unsafe Array($0) } }
}
