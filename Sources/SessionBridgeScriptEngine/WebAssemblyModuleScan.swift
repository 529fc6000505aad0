/// What a context reads of a WebAssembly module's bytes before JavaScriptCore compiles them
/// (see ``ScriptContext/webAssemblyInstaller``).
enum WebAssemblyModuleScan {
    /// Whether the module defines or imports a shared memory: a memory whose limits carry flag
    /// `0x02` (the threads proposal), in its memory section (id 5) or its import section (id
    /// 2). Only those two sections are read, each up to where its bytes end; bytes the reader
    /// cannot read end the scan, and the compiler then rejects them.
    static func definesOrImportsSharedMemory(_ bytes: [UInt8]) -> Bool {
        var reader = WebAssemblyReader(bytes, at: min(8, bytes.count))
        while !reader.isAtEnd {
            guard let id = try? reader.byte(), let size = try? reader.u32() else { return false }
            let end = min(bytes.count, reader.at + Int(size))
            var section = WebAssemblyReader(bytes, at: reader.at, end: end)
            if (try? sharesMemory(section: id, &section)) == true { return true }
            reader.at = end
        }
        return false
    }

    /// Whether section `id` (read by `reader`) holds a shared memory.
    private static func sharesMemory(section id: UInt8, _ reader: inout WebAssemblyReader) throws(WebAssemblyReader.Malformed) -> Bool {
        switch id {
        case 2:
            for _ in 0..<(try reader.count()) {
                try reader.name()  // the module's
                try reader.name()  // the field's
                switch try reader.byte() {
                case 0: _ = try reader.u32()  // a function: its type
                case 1: try reader.skipTableType()
                case 2: if try reader.skipLimits() & 0x02 != 0 { return true }  // a memory
                case 3:  // a global: its type and mutability
                    try reader.skipValueType()
                    _ = try reader.byte()
                case 4:  // a tag: its attribute and type
                    _ = try reader.byte()
                    _ = try reader.u32()
                default: return false
                }
            }
        case 5:
            for _ in 0..<(try reader.count()) where try reader.skipLimits() & 0x02 != 0 { return true }
        default: break
        }
        return false
    }
}
