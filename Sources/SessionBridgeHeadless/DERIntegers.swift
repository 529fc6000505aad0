import SwiftASN1

/// The little of DER that `crypto.subtle` reads itself (with SwiftASN1): a SEQUENCE of INTEGERs
/// (PKCS #1's RSAPrivateKey) and the version that marks a PKCS #8 PrivateKeyInfo.
enum DERIntegers {
    /// The INTEGERs of a SEQUENCE that holds only INTEGERs, as big-endian bytes; nil for
    /// anything else.
    static func sequence(_ bytes: [UInt8]) -> [[UInt8]]? {
        try? DER.sequence(DER.parse(bytes), identifier: .sequence) { nodes in
            var integers: [[UInt8]] = []
            while let node = nodes.next() { integers.append(Array(try ArraySlice<UInt8>(derEncoded: node))) }
            return integers
        }
    }

    /// Whether `bytes` are a PKCS #8 PrivateKeyInfo: a SEQUENCE whose first member is the
    /// INTEGER 0 and whose second is a SEQUENCE (the algorithm). SEC 1's ECPrivateKey and
    /// PKCS #1's RSAPrivateKey, which swift-crypto also reads, are not.
    static func isPKCS8(_ bytes: [UInt8]) -> Bool {
        let matches = try? DER.sequence(DER.parse(bytes), identifier: .sequence) { nodes -> Bool in
            guard let version = nodes.next(), let algorithm = nodes.next() else { return false }
            while nodes.next() != nil {}
            return try Int(derEncoded: version) == 0 && algorithm.identifier == .sequence
        }
        return matches ?? false
    }
}
