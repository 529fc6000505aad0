import Crypto
import CryptoExtras
import Foundation
import OrderedCollections
import SessionBridgeScriptEngine

/// The native half of a headless page's `crypto.subtle` (``WebPlatformPrelude/subtleSource``):
/// WebCrypto's operations over bytes and key handles, from swift-crypto. The prelude has
/// normalized the algorithm and checked the key's type, usages and extractability; this
/// checks the material. Each runs off the page's thread, as WebKit runs them on a work queue.
///
/// A failure is a `ScriptThrow` whose name is the `DOMException` the page receives:
/// `DataError` for material that is not what it claims, `OperationError` for an operation that
/// failed, `NotSupportedError` for parameters swift-crypto has no form of. No message carries
/// key material.
enum SubtleCryptoOperations {
    /// The most PBKDF2 iterations one derivation may ask for: it cannot be stopped once begun.
    static let maximumIterations = 10_000_000
    /// The most bytes one derivation gives (PBKDF2's cost grows with them; HKDF's limit is lower).
    static let maximumDerivedBytes = 65_536

    /// Runs the operation `arguments[0]` with the rest as its arguments.
    /// `held` are the keys its handles name, taken when it was called; new keys go into `keys`.
    static func perform(_ arguments: [ScriptValue], held: SubtleKeyTable.Held, keys: SubtleKeyTable) throws(ScriptThrow) -> ScriptValue {
        var reader = Arguments(values: arguments)
        switch try reader.string() {
        case "digest":
            let hash = try reader.hash()
            return .bytes(Array(hash.digest(try reader.bytes())))
        case "generate":
            return try generate(&reader, keys: keys)
        case "import":
            return try importKey(&reader, keys: keys)
        case "export":
            return try export(key: held.key(reader.next()), format: reader.string())
        case "sign":
            let algorithm = try reader.string(), key = try held.key(reader.next()), data = try reader.bytes()
            return .bytes(try sign(algorithm, key, data, &reader))
        case "verify":
            let algorithm = try reader.string(), key = try held.key(reader.next())
            let signature = try reader.bytes(), data = try reader.bytes()
            return .bool(try verify(algorithm, key, signature: signature, data: data, &reader))
        case "encrypt", "decrypt":
            return .bytes(try aesGCM(sealing: arguments.first?.stringValue == "encrypt", &reader, held: held))
        case "deriveBits", "deriveKey":
            let asKey = arguments.first?.stringValue == "deriveKey"
            let bits = try derive(&reader, held: held)
            return asKey ? .number(Double(keys.insert(.secret(bits)))) : .bytes(bits)
        default:
            throw ScriptThrow("NotSupportedError", "The operation is not supported.")
        }
    }

    // MARK: Keys

    private static func generate(_ reader: inout Arguments, keys: SubtleKeyTable) throws(ScriptThrow) -> ScriptValue {
        func pair(_ privateKey: SubtleKey, _ publicKey: SubtleKey) -> ScriptValue {
            .array([.number(Double(keys.insert(privateKey))), .number(Double(keys.insert(publicKey)))])
        }
        switch try reader.string() {
        case "secret":
            let count = try reader.integer(in: 1...4096)
            var generator = SystemRandomNumberGenerator()
            return .number(Double(keys.insert(.secret((0..<count).map { _ in generator.next() }))))
        case "ec":
            let curve = try reader.curve()
            let (scalar, point) = generatedScalar(on: curve)
            return pair(.elliptic(curve: curve, scalar: scalar, point: point), .elliptic(curve: curve, scalar: nil, point: point))
        case "ed25519":
            let key = Curve25519.Signing.PrivateKey()
            let publicKey = Array(key.publicKey.rawRepresentation)
            return pair(.edwards(seed: Array(key.rawRepresentation), publicKey: publicKey), .edwards(seed: nil, publicKey: publicKey))
        case "rsa":
            let bits = try reader.integer(in: 0...Int.max)
            guard [2048, 3072, 4096].contains(bits) else {
                throw ScriptThrow("NotSupportedError", "RSA keys are generated with a modulusLength of 2048, 3072 or 4096.")
            }
            guard let key = try? _RSA.Signing.PrivateKey(keySize: .init(bitCount: bits)) else {
                throw ScriptThrow("OperationError", "The key could not be generated.")
            }
            return pair(.rsa(privateKey: key, publicKey: key.publicKey), .rsa(privateKey: nil, publicKey: key.publicKey))
        default:
            throw ScriptThrow("NotSupportedError", "The algorithm is not supported.")
        }
    }

    private static func generatedScalar(on curve: SubtleCurve) -> (scalar: [UInt8], point: [UInt8]) {
        switch curve {
        case .p256:
            let key = P256.Signing.PrivateKey()
            return (Array(key.rawRepresentation), Array(key.publicKey.rawRepresentation))
        case .p384:
            let key = P384.Signing.PrivateKey()
            return (Array(key.rawRepresentation), Array(key.publicKey.rawRepresentation))
        case .p521:
            let key = P521.Signing.PrivateKey()
            return (Array(key.rawRepresentation), Array(key.publicKey.rawRepresentation))
        }
    }

    /// `["import", kind, format, data, curve?]`: the handle and what the prelude records of
    /// the key (`{handle, private, modulusLength, publicExponent}`).
    private static func importKey(_ reader: inout Arguments, keys: SubtleKeyTable) throws(ScriptThrow) -> ScriptValue {
        let kind = try reader.string(), format = try reader.string()
        let data = reader.next() ?? .undefined
        let key: SubtleKey = try failing("DataError", "The key data is not a valid \(format) key.") {
            switch kind {
            case "secret": return .secret(try bytes(data))
            case "ec": return try ellipticKey(format, data, curve: reader.curve())
            case "ed25519": return try edwardsKey(format, data)
            case "rsa": return try rsaKey(format, data)
            default: throw ScriptThrow("NotSupportedError", "The algorithm is not supported.")
            }
        }
        var record: [(String, ScriptValue)] = [("handle", .number(Double(keys.insert(key))))]
        switch key {
        case .secret(let secret): record.append(("length", .number(Double(secret.count * 8))))
        case .elliptic(_, let scalar, _): record.append(("private", .bool(scalar != nil)))
        case .edwards(let seed, _): record.append(("private", .bool(seed != nil)))
        case .rsa(let privateKey, let publicKey):
            let primitives = try? publicKey.getKeyPrimitives()
            record.append(("private", .bool(privateKey != nil)))
            record.append(("modulusLength", .number(Double(publicKey.keySizeInBits))))
            record.append(("publicExponent", .bytes(Array(withoutLeadingZeros(primitives?.publicExponent ?? Data())))))
        }
        return .object(.init(uniqueKeysWithValues: record))
    }

    private static func ellipticKey(_ format: String, _ data: ScriptValue, curve: SubtleCurve) throws -> SubtleKey {
        switch format {
        case "raw":
            let bytes = try bytes(data)
            return .elliptic(curve: curve, scalar: nil, point: try curve.point(x963OrCompressed: bytes))
        case "spki":
            return .elliptic(curve: curve, scalar: nil, point: try curve.point(spki: bytes(data)))
        case "pkcs8":
            let (scalar, point) = try curve.scalar(pkcs8: bytes(data))
            return .elliptic(curve: curve, scalar: scalar, point: point)
        case "jwk":
            let point = try member(data, "x") + member(data, "y")
            let checked = try curve.point(x963OrCompressed: [4] + point)
            guard case .bytes(let scalar)? = data["d"] else { return .elliptic(curve: curve, scalar: nil, point: checked) }
            guard try curve.point(ofScalar: scalar) == checked else {
                throw ScriptThrow("DataError", "The JWK's d does not match its x and y.")
            }
            return .elliptic(curve: curve, scalar: scalar, point: checked)
        default:
            throw ScriptThrow("NotSupportedError", "The key format is not supported.")
        }
    }

    /// Ed25519's SubjectPublicKeyInfo and PKCS #8 forms (RFC 8410) before their 32 bytes.
    private static let edwardsSPKIPrefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]
    private static let edwardsPKCS8Prefix: [UInt8] = [
        0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
    ]

    private static func edwardsKey(_ format: String, _ data: ScriptValue) throws -> SubtleKey {
        func checked(_ publicKey: [UInt8]) throws -> [UInt8] {
            Array(try Curve25519.Signing.PublicKey(rawRepresentation: publicKey).rawRepresentation)
        }
        func fromSeed(_ seed: [UInt8]) throws -> SubtleKey {
            let key = try Curve25519.Signing.PrivateKey(rawRepresentation: seed)
            return .edwards(seed: seed, publicKey: Array(key.publicKey.rawRepresentation))
        }
        switch format {
        case "raw":
            return .edwards(seed: nil, publicKey: try checked(bytes(data)))
        case "spki":
            let bytes = try bytes(data)
            guard bytes.count == 44, bytes.starts(with: edwardsSPKIPrefix) else {
                throw ScriptThrow("DataError", "The key data is not an Ed25519 SPKI.")
            }
            return .edwards(seed: nil, publicKey: try checked(Array(bytes.suffix(32))))
        case "pkcs8":
            let bytes = try bytes(data)
            guard bytes.count == 48, bytes.starts(with: edwardsPKCS8Prefix) else {
                throw ScriptThrow("DataError", "The key data is not an Ed25519 PKCS #8.")
            }
            return try fromSeed(Array(bytes.suffix(32)))
        case "jwk":
            let publicKey = try checked(member(data, "x"))
            guard case .bytes(let seed)? = data["d"] else { return .edwards(seed: nil, publicKey: publicKey) }
            let key = try fromSeed(seed)
            guard case .edwards(_, publicKey) = key else { throw ScriptThrow("DataError", "The JWK's d does not match its x.") }
            return key
        default:
            throw ScriptThrow("NotSupportedError", "The key format is not supported.")
        }
    }

    private static func rsaKey(_ format: String, _ data: ScriptValue) throws -> SubtleKey {
        switch format {
        case "spki":
            let bytes = try bytes(data)
            let key = try _RSA.Signing.PublicKey(derRepresentation: bytes)
            // SubjectPublicKeyInfo only: swift-crypto also reads a bare PKCS #1 key.
            guard key.derRepresentation == Data(bytes) else { throw ScriptThrow("DataError", "The key data is not an RSA SPKI.") }
            return .rsa(privateKey: nil, publicKey: key)
        case "pkcs8":
            // PKCS #8 only: swift-crypto also reads a bare PKCS #1 key.
            let bytes = try bytes(data)
            guard DERIntegers.isPKCS8(bytes) else { throw ScriptThrow("DataError", "The key data is not a PKCS #8 key.") }
            let key = try _RSA.Signing.PrivateKey(derRepresentation: bytes)
            return .rsa(privateKey: key, publicKey: key.publicKey)
        case "jwk":
            let n = try member(data, "n"), e = try member(data, "e")
            guard case .bytes(let d)? = data["d"] else {
                return .rsa(privateKey: nil, publicKey: try _RSA.Signing.PublicKey(n: n, e: e))
            }
            let key = try _RSA.Signing.PrivateKey(n: n, e: e, d: d, p: member(data, "p"), q: member(data, "q"))
            // The CRT members the JWK carries must be the key's own.
            let own = try rsaMembers(key)
            for name in ["dp", "dq", "qi"] where data[name] != nil {
                guard case .bytes(let given)? = data[name], withoutLeadingZeros(given) == own[name] else {
                    throw ScriptThrow("DataError", "The JWK's \(name) does not match its key.")
                }
            }
            return .rsa(privateKey: key, publicKey: key.publicKey)
        default:
            throw ScriptThrow("NotSupportedError", "The key format is not supported.")
        }
    }

    /// `raw`, `spki` and `pkcs8` as bytes; `jwk` as an object of the key's members as bytes
    /// (the prelude writes them in base64url and adds the rest).
    private static func export(key: SubtleKey, format: String) throws(ScriptThrow) -> ScriptValue {
        func object(_ members: [(String, [UInt8])]) -> ScriptValue {
            .object(.init(uniqueKeysWithValues: members.map { ($0.0, ScriptValue.bytes($0.1)) }))
        }
        return try failing("OperationError", "The key could not be exported.") {
            switch (key, format) {
            case (.secret(let secret), "raw"): return .bytes(secret)
            case (.secret(let secret), "jwk"): return object([("k", secret)])
            case (.elliptic(_, nil, let point), "raw"): return .bytes([4] + point)
            case (.elliptic(let curve, _, let point), "spki"): return .bytes(try curve.spki(point: point))
            case (.elliptic(let curve, let scalar?, _), "pkcs8"): return .bytes(try curve.pkcs8(scalar: scalar))
            case (.elliptic(let curve, let scalar, let point), "jwk"):
                let size = curve.coordinateSize
                return object([("x", Array(point.prefix(size))), ("y", Array(point.suffix(size)))] + (scalar.map { [("d", $0)] } ?? []))
            case (.edwards(nil, let publicKey), "raw"): return .bytes(publicKey)
            case (.edwards(_, let publicKey), "spki"): return .bytes(edwardsSPKIPrefix + publicKey)
            case (.edwards(let seed?, _), "pkcs8"): return .bytes(edwardsPKCS8Prefix + seed)
            case (.edwards(let seed, let publicKey), "jwk"): return object([("x", publicKey)] + (seed.map { [("d", $0)] } ?? []))
            case (.rsa(_, let publicKey), "spki"): return .bytes(Array(publicKey.derRepresentation))
            case (.rsa(let privateKey?, _), "pkcs8"): return .bytes(Array(privateKey.pkcs8DERRepresentation))
            case (.rsa(let privateKey, let publicKey), "jwk"):
                if let privateKey {
                    let members = try rsaMembers(privateKey)
                    return object(["n", "e", "d", "p", "q", "dp", "dq", "qi"].compactMap { name in members[name].map { (name, $0) } })
                }
                let primitives = try publicKey.getKeyPrimitives()
                return object([
                    ("n", withoutLeadingZeros(primitives.modulus)), ("e", withoutLeadingZeros(primitives.publicExponent)),
                ])
            default:
                throw ScriptThrow("InvalidAccessError", "The key cannot be exported as \(format).")
            }
        }
    }

    /// An RSA private key's members as a JWK names them, from its PKCS #1 form.
    private static func rsaMembers(_ key: _RSA.Signing.PrivateKey) throws(ScriptThrow) -> [String: [UInt8]] {
        // RSAPrivateKey ::= SEQUENCE { version, n, e, d, p, q, dp, dq, qi }
        guard let integers = DERIntegers.sequence(Array(key.derRepresentation)), integers.count >= 9 else {
            throw ScriptThrow("OperationError", "The key could not be read.")
        }
        let names = ["n", "e", "d", "p", "q", "dp", "dq", "qi"]
        return Dictionary(uniqueKeysWithValues: zip(names, integers[1...8].map { withoutLeadingZeros($0) }))
    }

    // MARK: Signatures

    private static func sign(
        _ algorithm: String, _ key: SubtleKey, _ data: [UInt8], _ reader: inout Arguments
    ) throws(ScriptThrow) -> [UInt8] {
        try failing("OperationError", "The data could not be signed.") {
            switch (algorithm, key) {
            case ("HMAC", .secret(let secret)):
                return hmac(try reader.hash().function, secret, data)
            case ("ECDSA", .elliptic(let curve, let scalar?, _)):
                return try curve.sign(try reader.hash().digest(data), scalar: scalar)
            case ("Ed25519", .edwards(let seed?, _)):
                return Array(try Curve25519.Signing.PrivateKey(rawRepresentation: seed).signature(for: data))
            case ("RSASSA-PKCS1-v1_5", .rsa(let privateKey?, _)):
                return Array(try privateKey.signature(for: reader.hash().digest(data), padding: .insecurePKCS1v1_5).rawRepresentation)
            case ("RSA-PSS", .rsa(let privateKey?, _)):
                let hash = try reader.hash()
                try checkSaltLength(reader.integer(in: 0...Int.max), hash)
                return Array(try privateKey.signature(for: hash.digest(data), padding: .PSS).rawRepresentation)
            default:
                throw ScriptThrow("InvalidAccessError", "The key cannot sign with \(algorithm).")
            }
        }
    }

    private static func verify(
        _ algorithm: String, _ key: SubtleKey, signature: [UInt8], data: [UInt8], _ reader: inout Arguments
    ) throws(ScriptThrow) -> Bool {
        switch (algorithm, key) {
        case ("HMAC", .secret(let secret)):
            let expected = hmac(try reader.hash().function, secret, data)
            // In constant time over the expected length.
            guard signature.count == expected.count else { return false }
            return zip(signature, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
        case ("ECDSA", .elliptic(let curve, _, let point)):
            return curve.verify(signature, for: try reader.hash().digest(data), point: point)
        case ("Ed25519", .edwards(_, let publicKey)):
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
            return key.isValidSignature(signature, for: data)
        case ("RSASSA-PKCS1-v1_5", .rsa(_, let publicKey)):
            let digest = try reader.hash().digest(data)
            return publicKey.isValidSignature(.init(rawRepresentation: signature), for: digest, padding: .insecurePKCS1v1_5)
        case ("RSA-PSS", .rsa(_, let publicKey)):
            let hash = try reader.hash()
            try checkSaltLength(reader.integer(in: 0...Int.max), hash)
            return publicKey.isValidSignature(.init(rawRepresentation: signature), for: hash.digest(data), padding: .PSS)
        default:
            throw ScriptThrow("InvalidAccessError", "The key cannot verify with \(algorithm).")
        }
    }

    /// swift-crypto's PSS salt is as long as the digest, as JWS's PS256, PS384 and PS512 have it.
    private static func checkSaltLength(_ saltLength: Int, _ hash: SubtleHash) throws(ScriptThrow) {
        guard saltLength == hash.byteCount else {
            throw ScriptThrow("NotSupportedError", "RSA-PSS is supported with a saltLength of the hash's length (\(hash.byteCount)).")
        }
    }

    private static func hmac<H: HashFunction>(_: H.Type, _ secret: [UInt8], _ data: [UInt8]) -> [UInt8] {
        Array(HMAC<H>.authenticationCode(for: data, using: SymmetricKey(data: secret)))
    }

    // MARK: Encryption and derivation

    /// `[op, "AES-GCM", handle, iv, additionalData, tagLength, data]`.
    private static func aesGCM(sealing: Bool, _ reader: inout Arguments, held: SubtleKeyTable.Held) throws(ScriptThrow) -> [UInt8] {
        guard try reader.string() == "AES-GCM", case .secret(let secret) = try held.key(reader.next()) else {
            throw ScriptThrow("InvalidAccessError", "The key cannot be used with this algorithm.")
        }
        let iv = try reader.bytes(), additional = try reader.bytes()
        guard try reader.integer(in: 0...Int.max) == 128 else {
            throw ScriptThrow("NotSupportedError", "AES-GCM is supported with a tagLength of 128.")
        }
        guard iv.count >= 12 else { throw ScriptThrow("NotSupportedError", "AES-GCM is supported with an iv of 12 bytes or more.") }
        let data = try reader.bytes()
        return try failing("OperationError", sealing ? "The data could not be encrypted." : "The data could not be decrypted.") {
            let key = SymmetricKey(data: secret), nonce = try AES.GCM.Nonce(data: iv)
            if sealing {
                let box = try AES.GCM.seal(data, using: key, nonce: nonce, authenticating: additional)
                return Array(box.ciphertext) + Array(box.tag)
            }
            guard data.count >= 16 else { throw ScriptThrow("OperationError", "The data is shorter than its tag.") }
            let box = try AES.GCM.SealedBox(nonce: nonce, ciphertext: data.dropLast(16), tag: data.suffix(16))
            return Array(try AES.GCM.open(box, using: key, authenticating: additional))
        }
    }

    /// `[op, algorithm, handle, bits, ...]`: HKDF (hash, salt, info), PBKDF2 (hash, salt,
    /// iterations) or ECDH (the peer's public key's handle).
    private static func derive(_ reader: inout Arguments, held: SubtleKeyTable.Held) throws(ScriptThrow) -> [UInt8] {
        let algorithm = try reader.string(), key = try held.key(reader.next())
        // -1: ECDH's whole secret (a length of null).
        let bits = try reader.integer(in: -1...Int.max)
        let count = (max(bits, 0) + 7) / 8
        guard count <= maximumDerivedBytes else {
            throw ScriptThrow("OperationError", "At most \(maximumDerivedBytes * 8) bits are derived at once.")
        }
        return try failing("OperationError", "The bits could not be derived.") {
            switch (algorithm, key) {
            case ("HKDF", .secret(let secret)):
                let hash = try reader.hash(), salt = try reader.bytes(), info = try reader.bytes()
                guard count <= 255 * hash.byteCount else { throw ScriptThrow("OperationError", "HKDF cannot derive that many bits.") }
                // swift-crypto's HKDF traps on an empty output: a length of 0 is no bits.
                guard count > 0 else { return [] }
                return masked(hkdf(hash.function, secret, salt: salt, info: info, count: count), bits: bits)
            case ("PBKDF2", .secret(let secret)):
                let hash = try reader.hash(), salt = try reader.bytes()
                let iterations = try reader.integer(in: 0...Int.max)
                guard iterations > 0 else { throw ScriptThrow("OperationError", "PBKDF2 needs at least one iteration.") }
                guard iterations <= maximumIterations else {
                    throw ScriptThrow("NotSupportedError", "PBKDF2 is limited to 10,000,000 iterations.")
                }
                guard count > 0 else { throw ScriptThrow("OperationError", "PBKDF2 cannot derive zero bits.") }
                let function: KDF.Insecure.PBKDF2.HashFunction =
                    switch hash {
                    case .sha1: .insecureSHA1
                    case .sha256: .sha256
                    case .sha384: .sha384
                    case .sha512: .sha512
                    }
                let derived = try KDF.Insecure.PBKDF2.deriveKey(
                    from: secret, salt: salt, using: function, outputByteCount: count, unsafeUncheckedRounds: iterations)
                return masked(derived.bytes, bits: bits)
            case ("ECDH", .elliptic(let curve, let scalar?, _)):
                guard case .elliptic(curve, _, let point) = try held.key(reader.next()) else {
                    throw ScriptThrow("InvalidAccessError", "The public key is not an ECDH key on the same curve.")
                }
                let secret = try curve.sharedSecret(scalar: scalar, point: point)
                if bits < 0 { return secret }
                guard count <= secret.count else { throw ScriptThrow("OperationError", "ECDH cannot derive that many bits.") }
                return masked(Array(secret.prefix(count)), bits: bits)
            default:
                throw ScriptThrow("InvalidAccessError", "The key cannot derive with \(algorithm).")
            }
        }
    }

    private static func hkdf<H: HashFunction>(_: H.Type, _ secret: [UInt8], salt: [UInt8], info: [UInt8], count: Int) -> [UInt8] {
        HKDF<H>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), salt: salt, info: info, outputByteCount: count).bytes
    }

    /// `bytes` with the bits past `bits` cleared (a length that is no multiple of 8).
    private static func masked(_ bytes: [UInt8], bits: Int) -> [UInt8] {
        var bytes = bytes
        if bits % 8 != 0, !bytes.isEmpty { bytes[bytes.count - 1] &= ~UInt8(0xFF >> (bits % 8)) }
        return bytes
    }

    /// Runs `body`: a `ScriptThrow` it throws passes as it is, and any other error (swift-crypto's,
    /// which says nothing a page needs) becomes `ScriptThrow(name, message)`.
    private static func failing<T>(_ name: String, _ message: String, _ body: () throws -> T) throws(ScriptThrow) -> T {
        do {
            return try body()
        } catch let thrown as ScriptThrow {
            throw thrown
        } catch {
            throw ScriptThrow(name, message)
        }
    }

    // MARK: Reading

    private static func bytes(_ value: ScriptValue) throws(ScriptThrow) -> [UInt8] {
        guard case .bytes(let bytes) = value else { throw ScriptThrow("DataError", "The key data is not bytes.") }
        return bytes
    }

    private static func member(_ value: ScriptValue, _ name: String) throws(ScriptThrow) -> [UInt8] {
        guard case .bytes(let bytes)? = value[name] else { throw ScriptThrow("DataError", "The JWK has no valid \(name).") }
        return bytes
    }

    static func withoutLeadingZeros<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        let kept = Array(bytes.drop { $0 == 0 })
        return kept.isEmpty ? [0] : kept
    }

    /// The prelude's arguments, read in order.
    struct Arguments {
        let values: [ScriptValue]
        var index = 0

        mutating func next() -> ScriptValue? {
            defer { index += 1 }
            return index < values.count ? values[index] : nil
        }

        mutating func string() throws(ScriptThrow) -> String {
            guard let string = next()?.stringValue else { throw ScriptThrow("TypeError", "A member of the algorithm is missing.") }
            return string
        }

        mutating func bytes() throws(ScriptThrow) -> [UInt8] {
            guard case .bytes(let bytes)? = next() else { throw ScriptThrow("TypeError", "The data is not a BufferSource.") }
            return bytes
        }

        mutating func integer(in range: ClosedRange<Int>) throws(ScriptThrow) -> Int {
            guard let number = next()?.numberValue, let integer = Int(javaScriptNumber: number), range.contains(integer) else {
                throw ScriptThrow("OperationError", "A length of the algorithm is out of range.")
            }
            return integer
        }

        mutating func hash() throws(ScriptThrow) -> SubtleHash {
            guard let hash = try SubtleHash(rawValue: string()) else {
                throw ScriptThrow("NotSupportedError", "The hash is not supported.")
            }
            return hash
        }

        mutating func curve() throws(ScriptThrow) -> SubtleCurve {
            guard let curve = try SubtleCurve(rawValue: string()) else {
                throw ScriptThrow("NotSupportedError", "The named curve is not supported.")
            }
            return curve
        }
    }
}
