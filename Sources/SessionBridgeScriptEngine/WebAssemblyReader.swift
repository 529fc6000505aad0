/// A strict reader of WebAssembly's binary format (see ``WebAssemblyStopChecks``): every read
/// stays inside `end`, and anything that does not fit the format throws.
struct WebAssemblyReader {
    /// The bytes cannot be read as the format has them.
    struct Malformed: Error {}

    let bytes: [UInt8]
    var at: Int
    let end: Int

    init(_ bytes: [UInt8], at: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.at = at
        self.end = end ?? bytes.count
    }

    var isAtEnd: Bool { at >= end }

    mutating func byte() throws(Malformed) -> UInt8 {
        guard at < end else { throw Malformed() }
        defer { at += 1 }
        return bytes[at]
    }

    /// An unsigned LEB128 integer of up to 32 bits (`u32`: indices, counts, sizes).
    mutating func u32() throws(Malformed) -> UInt32 {
        var value: UInt32 = 0
        for shift in stride(from: 0, to: 35, by: 7) {
            let byte = try byte()
            if shift == 28 && byte & 0x70 != 0 { throw Malformed() }
            value |= UInt32(byte & 0x7f) << UInt32(shift)
            if byte & 0x80 == 0 { return value }
        }
        throw Malformed()
    }

    /// A `u32` used as a count or a size: within the bytes left, so that no loop over it runs
    /// past them.
    mutating func count() throws(Malformed) -> Int {
        let value = Int(try u32())
        guard value <= end - at else { throw Malformed() }
        return value
    }

    /// Skips a LEB128 integer of any kind the format uses (`s33`, `i64`, `u64`): at most ten bytes.
    mutating func skipInteger() throws(Malformed) {
        for _ in 0..<10 {
            if try byte() & 0x80 == 0 { return }
        }
        throw Malformed()
    }

    mutating func skip(_ count: Int) throws(Malformed) {
        guard count >= 0, count <= end - at else { throw Malformed() }
        at += count
    }

    /// Skips a name (a byte count and its bytes) and returns its bytes' range.
    @discardableResult
    mutating func name() throws(Malformed) -> Range<Int> {
        let length = try count()
        let start = at
        try skip(length)
        return start..<at
    }

    /// Skips a value type: one byte, or a reference type's prefix (`ref` and `ref null`) and
    /// its heap type.
    mutating func skipValueType() throws(Malformed) {
        let type = try byte()
        if type == 0x63 || type == 0x64 { try skipInteger() }
    }

    /// Skips a block type: empty (`0x40`), a value type, or a type index (`s33`).
    mutating func skipBlockType() throws(Malformed) {
        let first = try byte()
        if first == 0x63 || first == 0x64 { return try skipInteger() }
        if first & 0xc0 == 0x40 { return }  // one byte: empty or a value type
        at -= 1
        try skipInteger()
    }

    /// Reads limits (flags, a minimum, a maximum if flag 1, a page size if flag 8) and returns
    /// their flags (2: shared).
    @discardableResult
    mutating func skipLimits() throws(Malformed) -> UInt8 {
        let flags = try byte()
        try skipInteger()
        if flags & 0x01 != 0 { try skipInteger() }
        if flags & 0x08 != 0 { try skipInteger() }
        return flags
    }

    /// Skips a table type: a reference type and limits.
    mutating func skipTableType() throws(Malformed) {
        try skipValueType()
        try skipLimits()
    }

    /// Skips a memory argument: alignment flags (bit 6: a memory index follows) and an offset.
    mutating func skipMemoryArgument() throws(Malformed) {
        let flags = try u32()
        if flags & 0x40 != 0 { _ = try u32() }
        try skipInteger()
    }
}

extension Array where Element == UInt8 {
    /// Appends an unsigned LEB128 integer.
    package mutating func appendLEB(_ value: UInt32) {
        var value = value
        repeat {
            let low = UInt8(value & 0x7f)
            value >>= 7
            append(value == 0 ? low : low | 0x80)
        } while value != 0
    }

    /// Appends a signed LEB128 integer.
    package mutating func appendSignedLEB(_ value: Int32) {
        var value = value
        while true {
            let low = UInt8(truncatingIfNeeded: value) & 0x7f
            value >>= 7
            let done = (value == 0 && low & 0x40 == 0) || (value == -1 && low & 0x40 != 0)
            append(done ? low : low | 0x80)
            if done { return }
        }
    }

    /// Appends a name: its byte count and its bytes.
    package mutating func appendName(_ name: some Collection<UInt8>) {
        appendLEB(UInt32(clamping: name.count))
        append(contentsOf: name)
    }
}
