/// What a context reads of a WebAssembly module's bytes before JavaScriptCore compiles them
/// (see ``ScriptContext/webAssemblyInstaller``).
enum WebAssemblyModuleScan {
    /// Whether the module defines or imports a shared memory: a memory whose limits carry flag
    /// `0x02` (the threads proposal), in its memory section (id 5) or its import section (id
    /// 2). Only those two sections are read; bytes that end early end the scan, and the compiler
    /// then rejects them.
    static func definesOrImportsSharedMemory(_ bytes: [UInt8]) -> Bool {
        var reader = Reader(bytes: bytes, at: 8)
        while reader.at < bytes.count {
            let id = reader.byte()
            let size = reader.integer()
            let end = min(bytes.count, reader.at + size)
            if id == 2 {
                var count = reader.integer()
                entries: while count > 0 && reader.at < end {
                    count -= 1
                    for _ in 0..<2 {  // the module's and the field's names
                        let length = reader.integer()
                        reader.at += length
                    }
                    switch reader.byte() {
                    case 0: reader.skipInteger()  // a function: its type
                    case 1:  // a table: its element type and limits
                        reader.skipValueType()
                        _ = reader.limitsAreShared()
                    case 2: if reader.limitsAreShared() { return true }  // a memory
                    case 3:  // a global: its type and mutability
                        reader.skipValueType()
                        reader.at += 1
                    case 4:  // a tag: its attribute and type
                        reader.at += 1
                        reader.skipInteger()
                    default: break entries
                    }
                }
            } else if id == 5 {
                var count = reader.integer()
                while count > 0 && reader.at < end {
                    count -= 1
                    if reader.limitsAreShared() { return true }
                }
            }
            reader.at = end
        }
        return false
    }

    /// Reads a module's bytes from `at` on; past the end it reads zeros.
    private struct Reader {
        let bytes: [UInt8]
        var at: Int

        mutating func byte() -> UInt8 {
            defer { at += 1 }
            return at < bytes.count ? bytes[at] : 0
        }

        /// An unsigned LEB128 integer of up to 35 bits (`u32`, and the sizes of the format).
        mutating func integer() -> Int {
            var value = 0
            var shift = 0
            while true {
                let byte = byte()
                if shift < 35 { value |= Int(byte & 0x7f) << shift }
                shift += 7
                if byte & 0x80 == 0 || at >= bytes.count { return value }
            }
        }

        /// Skips a LEB128 integer of any width.
        mutating func skipInteger() {
            while at < bytes.count && byte() & 0x80 != 0 {}
        }

        /// Skips a value type: one byte, or a reference type's two-byte form and heap type.
        mutating func skipValueType() {
            let type = byte()
            if type == 0x63 || type == 0x64 { skipInteger() }
        }

        /// Reads limits (flags, minimum, the maximum if flag 1, a page size if flag 8) and tells
        /// whether flag 2, shared, is set.
        mutating func limitsAreShared() -> Bool {
            let flags = byte()
            skipInteger()
            if flags & 0x01 != 0 { skipInteger() }
            if flags & 0x08 != 0 { skipInteger() }
            return flags & 0x02 != 0
        }
    }
}
