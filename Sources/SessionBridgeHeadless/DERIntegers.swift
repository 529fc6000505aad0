/// The little of DER that `crypto.subtle` reads itself: a SEQUENCE of INTEGERs (PKCS #1's
/// RSAPrivateKey) and the version that marks a PKCS #8 PrivateKeyInfo.
enum DERIntegers {
    /// The INTEGERs of a SEQUENCE that holds only INTEGERs, as big-endian bytes; nil for
    /// anything else.
    static func sequence(_ bytes: [UInt8]) -> [[UInt8]]? {
        var index = 0
        guard let (tag, body) = element(bytes, &index), tag == 0x30, index == bytes.count else { return nil }
        let contents = Array(bytes[body])
        var inner = 0
        var integers: [[UInt8]] = []
        while inner < contents.count {
            guard let (tag, range) = element(contents, &inner), tag == 0x02 else { return nil }
            integers.append(Array(contents[range]))
        }
        return integers
    }

    /// Whether `bytes` begin as a PKCS #8 PrivateKeyInfo: a SEQUENCE whose first member is
    /// the INTEGER 0 and whose second is a SEQUENCE (the algorithm). SEC 1's ECPrivateKey,
    /// which swift-crypto also reads, has version 1.
    static func isPKCS8(_ bytes: [UInt8]) -> Bool {
        var index = 0
        guard let (tag, body) = element(bytes, &index), tag == 0x30, index == bytes.count else { return false }
        let contents = Array(bytes[body])
        var inner = 0
        guard let (versionTag, version) = element(contents, &inner), versionTag == 0x02, Array(contents[version]) == [0],
            let (algorithmTag, _) = element(contents, &inner), algorithmTag == 0x30
        else { return false }
        return true
    }

    /// The tag and content range of the element at `index`, which moves past it.
    private static func element(_ bytes: [UInt8], _ index: inout Int) -> (tag: UInt8, range: Range<Int>)? {
        guard index + 2 <= bytes.count else { return nil }
        let tag = bytes[index]
        var length = Int(bytes[index + 1])
        index += 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count >= 1, count <= 4, index + count <= bytes.count else { return nil }
            length = 0
            for byte in bytes[index..<index + count] { length = length << 8 | Int(byte) }
            index += count
        }
        guard length <= bytes.count - index else { return nil }
        defer { index += length }
        return (tag, index..<index + length)
    }
}
