import Foundation

/// The on-disk format of ``PersistentCookieStore``, version 2.
///
/// ```
/// offset  size  field
///      0     8  magic "SBCOOKIE"
///      8     4  format version, big-endian (2; 1 is still read)
///     12     8  generation, big-endian (incremented by every save)
///     20     8  payload length in bytes, big-endian
///     28     4  CRC-32 (IEEE) of bytes 8..<28 followed by the payload, big-endian
///     32     n  payload: a JSON array of cookie records (every `Cookie` field; times in
///               seconds since 2001-01-01T00:00:00Z, exactly as `Date` holds them)
/// ```
/// A file shorter or longer than its header says, or whose checksum does not match, is refused.
///
/// Version 2 adds a record's `partitionKey` (CHIPS). A version 1 file reads as it was written;
/// its partitioned cookies, which had no key, are keyed by the site of their own domain (the
/// partition they were set in when their site was the top-level one).
enum CookieStoreFormat {
    static let magic: [UInt8] = Array("SBCOOKIE".utf8)
    static let version: UInt32 = 2
    /// Every version this code reads.
    static let readableVersions: ClosedRange<UInt32> = 1...2
    static let headerSize = 32

    struct Record: Codable {
        var name: String
        var value: String
        var domain: String
        var path: String
        var expiresAt: Double?
        var creationTime: Double
        var lastAccessTime: Double
        var secure: Bool
        var httpOnly: Bool
        var hostOnly: Bool
        var sameSite: SameSite
        var partitioned: Bool
        var partitionKey: String?
        var persistent: Bool

        init(_ c: Cookie) {
            name = c.name
            value = c.value
            domain = c.domain
            path = c.path
            expiresAt = c.expiresAt?.timeIntervalSinceReferenceDate
            creationTime = c.creationTime.timeIntervalSinceReferenceDate
            lastAccessTime = c.lastAccessTime.timeIntervalSinceReferenceDate
            secure = c.isSecure
            httpOnly = c.isHttpOnly
            hostOnly = c.isHostOnly
            sameSite = c.sameSite
            partitioned = c.isPartitioned
            partitionKey = c.partitionKey
            persistent = c.isPersistent
        }

        var cookie: Cookie {
            Cookie(
                name: name, value: value, domain: domain, path: path,
                expiresAt: persistent ? expiresAt.map { Date(timeIntervalSinceReferenceDate: $0) } : nil,
                creationTime: Date(timeIntervalSinceReferenceDate: creationTime),
                lastAccessTime: Date(timeIntervalSinceReferenceDate: lastAccessTime), isSecure: secure, isHttpOnly: httpOnly,
                isHostOnly: hostOnly, sameSite: sameSite, isPartitioned: partitioned, partitionKey: partitionKey)
        }

        /// The cookie of a version 1 record: a partitioned one is keyed by its own domain's site.
        var versionOneCookie: Cookie {
            var cookie = self.cookie
            if partitioned && partitionKey == nil {
                cookie.partitionKey = CookieJar.site(scheme: secure ? "https" : "http", host: domain, PublicSuffixList.system)
            }
            return cookie
        }
    }

    static func encode(_ cookies: [Cookie], generation: UInt64, version: UInt32 = version) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let payload = try [UInt8](encoder.encode(cookies.map(Record.init)))
        var out: [UInt8] = magic
        out.reserveCapacity(headerSize + payload.count)
        appendBigEndian(&out, version)
        appendBigEndian(&out, generation)
        appendBigEndian(&out, UInt64(payload.count))
        var crc = CRC32()
        crc.update(out[8..<28])
        crc.update(payload[...])
        appendBigEndian(&out, crc.value)
        out += payload
        return out
    }

    static func decode(_ bytes: [UInt8]) -> Result<(generation: UInt64, cookies: [Cookie]), StoreFileProblem> {
        guard bytes.count >= headerSize else {
            return .failure(.truncated(expected: headerSize, actual: bytes.count))
        }
        guard Array(bytes[0..<8]) == magic else { return .failure(.notACookieStore) }
        let version = UInt32(readBigEndian(bytes, 8, 4))
        guard readableVersions.contains(version) else { return .failure(.unsupportedVersion(version)) }
        let generation = readBigEndian(bytes, 12, 8)
        let length = readBigEndian(bytes, 20, 8)
        let expected = UInt64(headerSize) + length
        guard UInt64(bytes.count) == expected else {
            return .failure(.truncated(expected: Int(clamping: expected), actual: bytes.count))
        }
        var crc = CRC32()
        crc.update(bytes[8..<28])
        crc.update(bytes[headerSize...])
        guard crc.value == UInt32(readBigEndian(bytes, 28, 4)) else { return .failure(.checksumMismatch) }
        do {
            let records = try JSONDecoder().decode([Record].self, from: Data(bytes[headerSize...]))
            return .success((generation, records.map { version == 1 ? $0.versionOneCookie : $0.cookie }))
        } catch {
            return .failure(.undecodable("\(error)"))
        }
    }

    static func appendBigEndian<T: FixedWidthInteger>(_ out: inout [UInt8], _ value: T) {
        var v = value.bigEndian
        unsafe withUnsafeBytes(of: &v) { unsafe out += $0 }
    }

    static func readBigEndian(_ bytes: [UInt8], _ offset: Int, _ size: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in offset..<(offset + size) { v = v << 8 | UInt64(bytes[i]) }
        return v
    }
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320).
struct CRC32 {
    static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    private var state: UInt32 = 0xFFFF_FFFF

    mutating func update(_ bytes: ArraySlice<UInt8>) {
        let table = Self.table
        for b in bytes { state = table[Int((state ^ UInt32(b)) & 0xFF)] ^ (state >> 8) }
    }

    var value: UInt32 { state ^ 0xFFFF_FFFF }
}

/// What is wrong with one store file.
public enum StoreFileProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// There is no such file.
    case missing
    /// The file could not be read (an `errno` value).
    case unreadable(errno: Int32)
    /// The file is shorter (or longer) than its header says.
    case truncated(expected: Int, actual: Int)
    /// The file does not start with the store's magic bytes.
    case notACookieStore
    /// The file was written by a format version this code does not read.
    case unsupportedVersion(UInt32)
    /// The checksum does not match the contents.
    case checksumMismatch
    /// The checksum matched but the records could not be decoded.
    case undecodable(String)

    public var description: String {
        switch self {
        case .missing: return "file is missing"
        case .unreadable(let e): return unsafe "file cannot be read (\(String(cString: strerror(e))))"
        case .truncated(let expected, let actual):
            return "file is cut short or is no cookie store: \(actual) bytes where \(expected) were expected"
        case .notACookieStore: return "file is not a cookie store"
        case .unsupportedVersion(let v): return "unsupported format version \(v)"
        case .checksumMismatch: return "checksum mismatch: the file is corrupt"
        case .undecodable(let reason): return "records cannot be decoded: \(reason)"
        }
    }
}
