/// What ``WebAssemblyStopChecks`` needs to know of one instruction: where it ends, whether it
/// is a `loop` or a call, and which function index it names.
enum WebAssemblyInstruction: Equatable {
    /// `loop`, its block type read.
    case loop
    /// `call`, `return_call` (`isCall`) or `ref.func`: the function index at `indexStart` (a
    /// `u32` that runs to the instruction's end).
    case function(index: UInt32, indexStart: Int, isCall: Bool)
    /// `call_indirect`, `return_call_indirect`, `call_ref` or `return_call_ref`.
    case indirectCall
    /// `end`.
    case end
    /// Any other instruction.
    case other
}

extension WebAssemblyReader {
    /// Reads one instruction and its immediates, as the core specification (3.0) and the
    /// proposals JavaScriptCore 2.50 knows have them: exceptions (with the legacy form), tail
    /// calls, typed function references, garbage collection, fixed-width and relaxed SIMD,
    /// threads' atomics, bulk memory, reference types, multiple memories and 64-bit memories.
    /// An opcode outside them throws: its immediates' length is unknown.
    mutating func instruction() throws(Malformed) -> WebAssemblyInstruction {
        let opcode = try byte()
        switch opcode {
        case 0x03:
            try skipBlockType()
            return .loop
        case 0x0b:
            return .end
        case 0x10, 0x12, 0xd2:  // call, return_call, ref.func
            let start = at
            return .function(index: try u32(), indexStart: start, isCall: opcode != 0xd2)
        case 0x00, 0x01, 0x05, 0x0a, 0x0f, 0x19, 0x1a, 0x1b, 0x45...0xc4, 0xd1, 0xd3, 0xd4:
            break  // no immediates: control without operands, numeric, reference tests
        case 0x02, 0x04, 0x06:  // block, if, try
            try skipBlockType()
        case 0x14, 0x15:  // call_ref, return_call_ref: a type
            _ = try u32()
            return .indirectCall
        case 0x07, 0x08, 0x09, 0x0c, 0x0d, 0x18, 0x20...0x26, 0xd5, 0xd6:
            _ = try u32()  // one index: a tag, a label, a type, a local, a global or a table
        case 0x0e:  // br_table
            for _ in 0..<(try count()) { _ = try u32() }
            _ = try u32()
        case 0x11, 0x13:  // call_indirect, return_call_indirect: a type and a table
            _ = try u32()
            _ = try u32()
            return .indirectCall
        case 0x1c:  // select with types
            for _ in 0..<(try count()) { try skipValueType() }
        case 0x1f:  // try_table: a block type and its catch clauses
            try skipBlockType()
            for _ in 0..<(try count()) {
                let kind = try byte()
                guard kind <= 3 else { throw Malformed() }
                if kind <= 1 { _ = try u32() }  // catch, catch_ref: a tag
                _ = try u32()  // the label
            }
        case 0x28...0x3e:  // loads and stores
            try skipMemoryArgument()
        case 0x3f, 0x40:  // memory.size, memory.grow: a memory
            _ = try u32()
        case 0x41, 0x42:  // i32.const, i64.const
            try skipInteger()
        case 0x43: try skip(4)
        case 0x44: try skip(8)
        case 0xd0:  // ref.null: a heap type
            try skipInteger()
        case 0xfb: try skipGarbageCollection(try u32())
        case 0xfc: try skipMiscellaneous(try u32())
        case 0xfd: try skipVector(try u32())
        case 0xfe: try skipAtomic(try u32())
        default:
            throw Malformed()
        }
        return .other
    }

    /// The `0xfb` prefix: structs, arrays, casts, `i31`.
    private mutating func skipGarbageCollection(_ code: UInt32) throws(Malformed) {
        switch code {
        case 0, 1, 6, 7, 11...14, 16:  // a type
            _ = try u32()
        case 2...5, 8...10, 17...19:  // a type, and a field, a count, data, elements or a type
            _ = try u32()
            _ = try u32()
        case 15, 26...30: break  // array.len, conversions, i31
        case 20...23:  // ref.test, ref.cast: a heap type
            try skipInteger()
        case 24, 25:  // br_on_cast, br_on_cast_fail: flags, a label, two heap types
            _ = try byte()
            _ = try u32()
            try skipInteger()
            try skipInteger()
        default: throw Malformed()
        }
    }

    /// The `0xfc` prefix: saturating truncations, bulk memory, tables.
    private mutating func skipMiscellaneous(_ code: UInt32) throws(Malformed) {
        switch code {
        case 0...7: break
        case 9, 11, 13, 15, 16, 17:  // one index
            _ = try u32()
        case 8, 10, 12, 14:  // two indices
            _ = try u32()
            _ = try u32()
        default: throw Malformed()
        }
    }

    /// The `0xfd` prefix: fixed-width and relaxed SIMD.
    private mutating func skipVector(_ code: UInt32) throws(Malformed) {
        switch code {
        case 0...11, 92, 93:  // loads and stores
            try skipMemoryArgument()
        case 12, 13:  // v128.const, i8x16.shuffle
            try skip(16)
        case 21...34:  // lane extractions and replacements
            try skip(1)
        case 84...91:  // lane loads and stores
            try skipMemoryArgument()
            try skip(1)
        case 14...20, 35...83, 94...275: break
        default: throw Malformed()
        }
    }

    /// The `0xfe` prefix: atomics.
    private mutating func skipAtomic(_ code: UInt32) throws(Malformed) {
        switch code {
        case 0...2, 0x10...0x4e: try skipMemoryArgument()
        case 3: try skip(1)  // atomic.fence
        default: throw Malformed()
        }
    }
}
