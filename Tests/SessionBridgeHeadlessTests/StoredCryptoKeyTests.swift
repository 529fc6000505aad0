import Crypto
import CryptoExtras
import Foundation
import Testing

@testable import SessionBridgeHeadless

/// The native form of a `CryptoKey` kept for IndexedDB or a message to another document: every
/// kind of key comes back as it was, equal keys share an id, a damaged form is refused, and
/// the keys in flight between documents are bounded.
@Suite(.timeLimit(.minutes(2))) struct StoredCryptoKeyTests {
    static func stored(_ key: SubtleKey, extractable: Bool = false) -> StoredCryptoKey {
        StoredCryptoKey(key: key, type: "private", extractable: extractable, algorithm: #"{"name":"X"}"#, usages: ["sign"])
    }

    /// The material's bytes as the form keeps them, for comparing two keys.
    static func material(_ key: SubtleKey) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: StoredCryptoKey.form(of: key), options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func everyKindOfKeyComesBackAsItWas() throws {
        let p256 = P256.Signing.PrivateKey()
        let ed = Curve25519.Signing.PrivateKey()
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let keys: [SubtleKey] = [
            .secret(Array(repeating: 7, count: 32)),
            .elliptic(curve: .p256, scalar: Array(p256.rawRepresentation), point: Array(p256.publicKey.rawRepresentation)),
            .elliptic(curve: .p256, scalar: nil, point: Array(p256.publicKey.rawRepresentation)),
            .edwards(seed: Array(ed.rawRepresentation), publicKey: Array(ed.publicKey.rawRepresentation)),
            .edwards(seed: nil, publicKey: Array(ed.publicKey.rawRepresentation)),
            .rsa(privateKey: rsa, publicKey: rsa.publicKey),
            .rsa(privateKey: nil, publicKey: rsa.publicKey),
        ]
        for key in keys {
            let kept = Self.stored(key)
            let back = try #require(StoredCryptoKey(form: kept.form))
            #expect(Self.material(back.key) == Self.material(key))
            #expect(back.type == "private" && !back.extractable && back.usages == ["sign"] && back.algorithm == #"{"name":"X"}"#)
            #expect(back.id == kept.id)
        }
        // One key kept twice shares its id; its description is part of it.
        #expect(Self.stored(keys[0]).id == Self.stored(keys[0]).id)
        #expect(Self.stored(keys[0]).id != Self.stored(keys[0], extractable: true).id)
        #expect(Set(keys.map { Self.stored($0).id }).count == keys.count)
    }

    @Test func aDamagedFormIsRefused() {
        let good = Self.stored(.secret([1, 2, 3])).form
        var forms: [Any] = ["not a form", [:] as [String: Any]]
        for (field, value) in [("key", ["secret", "%%%"] as Any), ("type", "other"), ("extractable", "no"), ("usages", [1])] {
            var form = good
            form[field] = value
            forms.append(form)
        }
        var wrongSize = good
        wrongSize["key"] = ["elliptic", "P-256", NSNull(), Data([1, 2, 3]).base64EncodedString()]
        forms.append(wrongSize)
        var unknownCurve = good
        unknownCurve["key"] = ["elliptic", "P-999", NSNull(), Data(count: 64).base64EncodedString()]
        forms.append(unknownCurve)
        var badRSA = good
        badRSA["key"] = ["rsa", NSNull(), Data([0x30, 0x00]).base64EncodedString()]
        forms.append(badRSA)
        for form in forms { #expect(StoredCryptoKey(form: form) == nil, "\(form)") }
    }

    @Test func keysInFlightBetweenDocumentsAreBounded() {
        let shared = SharedCryptoKeys()
        let first = shared.share(Self.stored(.secret([0, 0, 0, 1])))
        #expect(shared.key(first) != nil)
        for index in 0..<SharedCryptoKeys.capacity {
            _ = shared.share(Self.stored(.secret([1, UInt8(index >> 16 & 0xFF), UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF)])))
        }
        #expect(shared.key(first) == nil)
        // Sharing a key again keeps one entry, as the newest.
        let again = shared.share(Self.stored(.secret([1, 0, 0, 0])))
        #expect(shared.key(again) != nil)
    }
}
