import Testing

@testable import SessionBridgeScriptEngine

/// The scan of a module's bytes for a shared memory, on encodings a page's JavaScript rarely
/// makes: 64-bit and custom-page-size limits, imports of every kind before a memory, bytes that
/// end early.
@Suite(.timeLimit(.minutes(1))) struct WebAssemblyModuleScanTests {
    static let header: [UInt8] = [0, 97, 115, 109, 1, 0, 0, 0]

    /// A module with one section.
    static func module(_ id: UInt8, _ body: [UInt8]) -> [UInt8] {
        header + [id, UInt8(body.count)] + body
    }

    @Test(arguments: [
        ([UInt8]([1, 0x03, 1, 1]), true),  // shared, with a maximum
        ([1, 0x01, 1, 1], false),  // a maximum, not shared
        ([1, 0x07, 1, 1], true),  // 64-bit, shared
        ([1, 0x0b, 1, 1, 16], true),  // shared, with a custom page size (2^16)
        ([1, 0x09, 1, 1, 16], false),
        ([2, 0x01, 0x80, 0x01, 0x80, 0x01, 0x03, 1, 1], true),  // a second memory, after a multi-byte LEB
    ])
    func aMemorySectionsLimits(body: [UInt8], shared: Bool) {
        #expect(WebAssemblyModuleScan.definesOrImportsSharedMemory(Self.module(5, body)) == shared)
    }

    @Test func aSharedMemoryImportedAfterImportsOfEveryOtherKind() {
        let name: [UInt8] = [1, 97]
        let function = name + name + [0, 0x80, 0x01]  // type index 128
        let table = name + name + [1, 0x63, 0x70, 0x00, 1]  // (ref null func), limits {min 1}
        let global = name + name + [3, 0x64, 0x6f, 1]  // (ref any), mutable
        let tag = name + name + [4, 0, 0]
        let memory: (UInt8) -> [UInt8] = { flags in name + name + [2, flags, 1, 1] }
        let imports: (UInt8) -> [UInt8] = { flags in [5] + function + table + global + tag + memory(flags) }
        #expect(WebAssemblyModuleScan.definesOrImportsSharedMemory(Self.module(2, imports(0x03))))
        #expect(!WebAssemblyModuleScan.definesOrImportsSharedMemory(Self.module(2, imports(0x01))))
    }

    /// Any prefix of a module ends the scan, without reading past the bytes.
    @Test func bytesThatEndEarlyEndTheScan() {
        let whole = Self.module(1, [1, 0x60, 0, 0]) + Self.module(5, [1, 0x03, 0xff, 0xff, 0xff, 0xff, 0x0f, 1]).dropFirst(8)
        #expect(WebAssemblyModuleScan.definesOrImportsSharedMemory(whole))
        for length in 0..<whole.count {
            _ = WebAssemblyModuleScan.definesOrImportsSharedMemory(Array(whole.prefix(length)))
        }
        // A section whose size runs past the end, and a LEB that never ends.
        #expect(!WebAssemblyModuleScan.definesOrImportsSharedMemory(Self.header + [0, 0xff, 0xff, 0xff, 0xff, 0x7f]))
        #expect(!WebAssemblyModuleScan.definesOrImportsSharedMemory(Self.header + [2] + [UInt8](repeating: 0xff, count: 64)))
    }
}
