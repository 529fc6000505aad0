/// The rewrite that lets a context's time limit stop a page's WebAssembly.
///
/// JavaScriptCore 2.50 looks for a stop (its watchdog's, which ends an entry past the time
/// limit) in WebAssembly only when the code calls out to JavaScript or enters a function in its
/// interpreter; compiled code that calls nothing, `(loop (br 0))` or a recursion without a
/// loop, ran on past any limit and held the engine thread, and every page on it, for good.
/// So a module is compiled with checks that count the work it does:
///
/// - a mutable `i32` global, the module's last (no other global's index moves), counts bytes
///   of code run: each function's entry adds its body's size (and 32 for the checks), at least
///   what it runs before its next count. A function with loops keeps a credit in a local of its
///   own, as cheap as a register, that each loop turn takes its share from; when it runs out,
///   the global is charged ``localBudget`` more at once, so it has counted the turns before they
///   run and nothing is left uncounted when the function returns. A function that calls nothing
///   and that only this module's direct calls reach has no entry check: its callers count its
///   size with theirs;
/// - once the global passes ``budget`` (2 MB of code: about a millisecond of compiled code, 10
///   to 20 interpreted) it is reset and the module calls its last function import,
///   ``importModule``.``importName``, which the context supplies: a JavaScript function that,
///   past the time limit, waits in a loop where JavaScriptCore meets the stop.
///
/// The import is appended to the imports, so the module's own functions' indices move by one;
/// every place that names one is rewritten (calls, `ref.func`, exports, the start function,
/// element segments, tables' and globals' initializers, the `name` section). Branch hints name
/// code offsets and are dropped.
///
/// What it costs is figure 10 of `bridge-bench` (the same module with and without the checks,
/// in one run): a loop of two instructions 1.1-1.2x, a loop calling a small function of its
/// module's 1.3-1.4x (3.5x while that function counted its own calls), a loop with work in it
/// (a checksum over memory) 1.0x, a recursion that does little else (`fib`) 2.4-2.5x.
///
/// Bytes this reader cannot read (an opcode it does not know, a section that ends early) give
/// `nil`: the context then compiles nothing it could not check (see
/// ``ScriptContext/webAssemblyInstaller``).
enum WebAssemblyStopChecks {
    /// The module name of the import a rewritten module calls.
    static let importModule = "sessionbridge:time-limit"
    /// The field name of the import a rewritten module calls.
    static let importName = "check"
    /// How much code, in bytes of function bodies counted, runs between two calls out.
    static let budget: Int32 = 1 << 21
    /// The credit a function's loops take their turns from before the global is charged again.
    static let localBudget: Int32 = 1 << 12

    /// The module with its checks, or `nil` for bytes that are not a module this reader knows.
    static func instrument(_ bytes: [UInt8]) -> [UInt8]? {
        try? Rewrite(bytes).module()
    }

    private typealias Malformed = WebAssemblyReader.Malformed

    /// One module's rewrite.
    private struct Rewrite {
        let bytes: [UInt8]
        /// The sections, in order: their ids and their contents' ranges.
        var sections: [(id: UInt8, range: Range<Int>)] = []
        /// The function index of the import, which the module's own functions (at and past it)
        /// move up from.
        var checkFunction: UInt32 = 0
        /// The counter's global index, past every other.
        var counter: UInt32 = 0
        /// The type index of `[] -> []`, appended to the types.
        var checkType: UInt32 { UInt32(clamping: parameterCounts.count) }
        /// Each type's parameter count (`nil`: not a function type).
        var parameterCounts: [Int?] = []
        /// Each of the module's own functions' type index, in order.
        var functionTypes: [UInt32] = []
        /// The functions named elsewhere than by a direct call, as the rewrite meets them.
        let references = FunctionReferences()

        /// The functions that may be called otherwise than by a direct call of this module's:
        /// exported, in a table, the start function, or taken by `ref.func`.
        final class FunctionReferences {
            var escaping: Set<UInt32> = []
        }

        init(_ bytes: [UInt8]) throws(Malformed) {
            self.bytes = bytes
            guard bytes.count >= 8, bytes[0..<8].elementsEqual([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]) else {
                throw Malformed()
            }
            var reader = WebAssemblyReader(bytes, at: 8)
            var seen: Set<UInt8> = []
            while !reader.isAtEnd {
                let id = try reader.byte()
                let size = try reader.count()
                // Each known section once; the rewrite adds to the one it finds.
                guard id == 0 || (id <= 13 && seen.insert(id).inserted) else { throw Malformed() }
                sections.append((id, reader.at..<reader.at + size))
                try reader.skip(size)
            }
            var importedGlobals: UInt32 = 0
            var definedGlobals: UInt32 = 0
            for (id, range) in sections {
                var reader = WebAssemblyReader(bytes, at: range.lowerBound, end: range.upperBound)
                switch id {
                case 1: parameterCounts = try Self.parameterCounts(&reader)
                case 3: for _ in 0..<(try reader.count()) { functionTypes.append(try reader.u32()) }
                case 2:
                    for _ in 0..<(try reader.count()) {
                        try reader.name()
                        try reader.name()
                        switch try reader.byte() {
                        case 0:
                            _ = try reader.u32()
                            checkFunction += 1
                        case 1: try reader.skipTableType()
                        case 2: try reader.skipLimits()
                        case 3:
                            try reader.skipValueType()
                            _ = try reader.byte()
                            importedGlobals += 1
                        case 4:
                            _ = try reader.byte()
                            _ = try reader.u32()
                        default: throw Malformed()
                        }
                    }
                case 6: definedGlobals = UInt32(clamping: try reader.count())
                default: break
                }
                // What the rewrite copies as it is after reading it must be all the section holds.
                if id >= 1 && id <= 3 && !reader.isAtEnd { throw Malformed() }
            }
            counter = importedGlobals &+ definedGlobals
        }

        /// The parameter count of each type a type section defines (a recursion group defines
        /// several), `nil` for a type that is not a function's.
        private static func parameterCounts(_ reader: inout WebAssemblyReader) throws(Malformed) -> [Int?] {
            var counts: [Int?] = []
            for _ in 0..<(try reader.count()) {
                if reader.at < reader.end, reader.bytes[reader.at] == 0x4e {  // rec
                    _ = try reader.byte()
                    for _ in 0..<(try reader.count()) { counts.append(try subtype(&reader)) }
                } else {
                    counts.append(try subtype(&reader))
                }
            }
            return counts
        }

        /// Skips a subtype; a function type's parameter count.
        private static func subtype(_ reader: inout WebAssemblyReader) throws(Malformed) -> Int? {
            var form = try reader.byte()
            if form == 0x50 || form == 0x4f {  // sub, sub final: their supertypes
                for _ in 0..<(try reader.count()) { _ = try reader.u32() }
                form = try reader.byte()
            }
            switch form {
            case 0x60:  // func: parameters and results
                let parameters = try reader.count()
                for _ in 0..<parameters { try reader.skipValueType() }
                for _ in 0..<(try reader.count()) { try reader.skipValueType() }
                return parameters
            case 0x5f:  // struct: fields
                for _ in 0..<(try reader.count()) { try skipField(&reader) }
            case 0x5e:  // array: one field
                try skipField(&reader)
            default: throw Malformed()
            }
            return nil
        }

        private static func skipField(_ reader: inout WebAssemblyReader) throws(Malformed) {
            try reader.skipValueType()  // a packed type (0x78, 0x77) is one byte too
            _ = try reader.byte()
        }

        /// Where a section goes among the others (custom sections go anywhere).
        private static func order(_ id: UInt8) -> Int {
            switch id {
            case 1...5: Int(id)
            case 13: 6  // tags: between memories and globals
            case 6...9: Int(id) + 1
            case 12: 11  // data count: before code
            case 10, 11: Int(id) + 2
            default: 0
            }
        }

        func module() throws(Malformed) -> [UInt8] {
            var out = Array(bytes[0..<8])
            out.reserveCapacity(bytes.count + bytes.count / 8 + 64)
            var added = Set(sections.map(\.id))  // a section the module has is not made again
            // The type, import and global sections the rewrite needs, where the module has none.
            func addMissing(before id: UInt8?) throws(Malformed) {
                for missing: UInt8 in [1, 2, 6] where !added.contains(missing) {
                    guard id.map({ Self.order($0) > Self.order(missing) }) ?? true else { continue }
                    added.insert(missing)
                    appendSection(missing, try section(missing, nil), to: &out)
                }
            }
            for (id, range) in sections {
                if id != 0 { try addMissing(before: id) }
                if id == 0 {
                    guard let custom = try customSection(range) else { continue }
                    appendSection(0, custom, to: &out)
                } else {
                    appendSection(id, try section(id, range), to: &out)
                }
            }
            try addMissing(before: nil)
            return out
        }

        private func appendSection(_ id: UInt8, _ contents: [UInt8], to out: inout [UInt8]) {
            out.append(id)
            out.appendLEB(UInt32(clamping: contents.count))
            out.append(contentsOf: contents)
        }

        /// A section's new contents (`range` `nil`: the section made anew).
        private func section(_ id: UInt8, _ range: Range<Int>?) throws(Malformed) -> [UInt8] {
            let range = range ?? 0..<0
            var reader = WebAssemblyReader(bytes, at: range.lowerBound, end: range.upperBound)
            var out: [UInt8] = []
            switch id {
            case 1:  // types: `[] -> []` appended
                out.appendLEB(UInt32(clamping: range.isEmpty ? 1 : try reader.count() + 1))
                out.append(contentsOf: bytes[reader.at..<range.upperBound])
                reader.at = range.upperBound
                out.append(contentsOf: [0x60, 0x00, 0x00])
            case 2:  // imports: the check appended
                out.appendLEB(UInt32(clamping: range.isEmpty ? 1 : try reader.count() + 1))
                out.append(contentsOf: bytes[reader.at..<range.upperBound])
                reader.at = range.upperBound
                out.appendName(importModule.utf8)
                out.appendName(importName.utf8)
                out.append(0x00)
                out.appendLEB(checkType)
            case 4:  // tables: an initializer may name a function
                let count = try reader.count()
                out.appendLEB(UInt32(clamping: count))
                for _ in 0..<count {
                    if reader.at + 1 < reader.end, bytes[reader.at] == 0x40, bytes[reader.at + 1] == 0x00 {
                        try reader.skip(2)
                        out.append(contentsOf: [0x40, 0x00])
                        let start = reader.at
                        try reader.skipTableType()
                        out.append(contentsOf: bytes[start..<reader.at])
                        try expression(&reader, into: &out)
                    } else {
                        let start = reader.at
                        try reader.skipTableType()
                        out.append(contentsOf: bytes[start..<reader.at])
                    }
                }
            case 6:  // globals: initializers may name a function; the counter appended
                let count = range.isEmpty ? 0 : try reader.count()
                out.appendLEB(UInt32(clamping: count + 1))
                for _ in 0..<count {
                    let start = reader.at
                    try reader.skipValueType()
                    _ = try reader.byte()
                    out.append(contentsOf: bytes[start..<reader.at])
                    try expression(&reader, into: &out)
                }
                out.append(contentsOf: [0x7f, 0x01, 0x41, 0x00, 0x0b])  // (mut i32) (i32.const 0)
            case 7:  // exports
                let count = try reader.count()
                out.appendLEB(UInt32(clamping: count))
                for _ in 0..<count {
                    out.appendName(bytes[try reader.name()])
                    let kind = try reader.byte()
                    out.append(kind)
                    let index = try reader.u32()
                    out.appendLEB(kind == 0 ? try moved(index) : index)
                }
            case 8:  // start
                out.appendLEB(try moved(try reader.u32()))
            case 9: try elements(&reader, into: &out)
            case 10: try code(&reader, into: &out)
            default:
                return Array(bytes[range])
            }
            guard reader.isAtEnd else { throw Malformed() }
            return out
        }

        /// A function index named otherwise than by a direct call (an export, the start function,
        /// a table's element, `ref.func`, a name), after the import's insertion: noted as one that
        /// may be called from elsewhere.
        private func moved(_ index: UInt32) throws(Malformed) -> UInt32 {
            references.escaping.insert(index)
            return try shifted(index)
        }

        /// A function index after the import's insertion (none names the last index there is).
        private func shifted(_ index: UInt32) throws(Malformed) -> UInt32 {
            guard index < checkFunction else {
                guard index < UInt32.max else { throw Malformed() }
                return index + 1
            }
            return index
        }

        /// Copies a constant expression, up to and with its `end`, moving function indices.
        private func expression(_ reader: inout WebAssemblyReader, into out: inout [UInt8]) throws(Malformed) {
            var depth = 0
            while true {
                let start = reader.at
                let instruction = try reader.instruction()
                switch instruction {
                case .function(let index, let indexStart, _):
                    out.append(contentsOf: bytes[start..<indexStart])
                    out.appendLEB(try moved(index))
                    continue
                case .end where depth == 0:
                    out.append(0x0b)
                    return
                case .end: depth -= 1
                case .loop: depth += 1
                case .other, .indirectCall: if [0x02, 0x04, 0x06, 0x1f].contains(bytes[start]) { depth += 1 }
                }
                out.append(contentsOf: bytes[start..<reader.at])
            }
        }

        /// The element section: its segments' function indices and expressions.
        private func elements(_ reader: inout WebAssemblyReader, into out: inout [UInt8]) throws(Malformed) {
            let count = try reader.count()
            out.appendLEB(UInt32(clamping: count))
            for _ in 0..<count {
                let flags = try reader.u32()
                guard flags <= 7 else { throw Malformed() }
                out.appendLEB(flags)
                if flags & 0x02 != 0 && flags & 0x01 == 0 {  // an explicit table
                    out.appendLEB(try reader.u32())
                }
                if flags & 0x01 == 0 { try expression(&reader, into: &out) }  // active: its offset
                if flags & 0x03 != 0 {  // an element kind or a reference type
                    let start = reader.at
                    if flags & 0x04 == 0 { _ = try reader.byte() } else { try reader.skipValueType() }
                    out.append(contentsOf: bytes[start..<reader.at])
                }
                let items = try reader.count()
                out.appendLEB(UInt32(clamping: items))
                for _ in 0..<items {
                    if flags & 0x04 == 0 {
                        out.appendLEB(try moved(try reader.u32()))
                    } else {
                        try expression(&reader, into: &out)
                    }
                }
            }
        }

        /// The code section: each body with its checks.
        ///
        /// A function with loops gets a local of its own, past the others: its loops' credit
        /// (see ``loopCheck(weight:local:)``). A function that calls nothing and is called only
        /// by this module's direct calls (not exported, in no table, never taken by `ref.func`)
        /// gets no check at its entry: what one call of it runs outside its loops (at most its
        /// size) is counted by its callers, whose checks count the size of every such function
        /// they call besides their own. The small functions compiled code calls most (`memcpy`,
        /// `strlen`, a getter) cost nothing more then.
        private func code(_ reader: inout WebAssemblyReader, into out: inout [UInt8]) throws(Malformed) {
            let count = try reader.count()
            guard count == functionTypes.count else { throw Malformed() }
            // First the calls each body makes.
            var bodies: [(range: Range<Int>, callees: [UInt32], callsIndirectly: Bool)] = []
            bodies.reserveCapacity(count)
            for _ in 0..<count {
                let size = try reader.count()
                var function = WebAssemblyReader(bytes, at: reader.at, end: reader.at + size)
                try reader.skip(size)
                for _ in 0..<(try function.count()) {
                    _ = try function.u32()
                    try function.skipValueType()
                }
                var callees: [UInt32] = []
                var callsIndirectly = false
                while !function.isAtEnd {
                    switch try function.instruction() {
                    case .function(let index, _, isCall: true): callees.append(index)
                    case .function(let index, _, isCall: false): references.escaping.insert(index)
                    case .indirectCall: callsIndirectly = true
                    case .loop, .end, .other: break
                    }
                }
                bodies.append((function.end - size..<function.end, callees, callsIndirectly))
            }
            let imported = checkFunction
            let counted = bodies.indices.map { index in
                bodies[index].callees.isEmpty && !bodies[index].callsIndirectly
                    && !references.escaping.contains(imported &+ UInt32(index))
            }
            out.appendLEB(UInt32(clamping: count))
            var instructions: [UInt8] = []
            var body: [UInt8] = []
            for (index, (range, callees, _)) in bodies.enumerated() {
                var function = WebAssemblyReader(bytes, at: range.lowerBound, end: range.upperBound)
                let type = Int(functionTypes[index])
                guard type < parameterCounts.count, let parameters = parameterCounts[type] else { throw Malformed() }
                // The locals: their declarations as they are, and how many there are.
                let declarations = try function.count()
                let localsStart = function.at
                var locals = parameters
                for _ in 0..<declarations {
                    locals += Int(try function.u32())
                    guard locals <= 1_000_000 else { throw Malformed() }
                    try function.skipValueType()
                }
                let localsEnd = function.at
                // What a pass through the body runs at most: itself and the functions it calls
                // that count nothing themselves.
                var weight = range.count + 32
                for callee in callees where callee >= imported && callee - imported < counted.count && counted[Int(callee - imported)] {
                    weight += bodies[Int(callee - imported)].range.count + 32
                    if weight >= Int(budget) { break }
                }
                let loopCheck = loopCheck(weight: Int32(clamping: min(weight, Int(budget))), local: UInt32(locals))
                // The instructions, with a check at each loop's start.
                var hasLoops = false
                instructions.removeAll(keepingCapacity: true)
                while !function.isAtEnd {
                    let start = function.at
                    switch try function.instruction() {
                    case .function(let index, let indexStart, _):
                        instructions.append(contentsOf: bytes[start..<indexStart])
                        instructions.appendLEB(try shifted(index))
                    case .loop:
                        hasLoops = true
                        instructions.append(contentsOf: bytes[start..<function.at])
                        instructions.append(contentsOf: loopCheck)
                    case .end, .other, .indirectCall:
                        instructions.append(contentsOf: bytes[start..<function.at])
                    }
                }
                body.removeAll(keepingCapacity: true)
                body.appendLEB(UInt32(clamping: declarations + (hasLoops ? 1 : 0)))
                body.append(contentsOf: bytes[localsStart..<localsEnd])
                if hasLoops { body.append(contentsOf: [0x01, 0x7f]) }  // the loops' credit, an i32
                if !counted[index] { body.append(contentsOf: entryCheck(weight: Int32(clamping: min(weight, Int(budget))))) }
                body.append(contentsOf: instructions)
                out.appendLEB(UInt32(clamping: body.count))
                out.append(contentsOf: body)
            }
        }

        /// The check at a function's entry: adds `weight` to the counter and, once it passes the
        /// budget, resets it and calls the import.
        private func entryCheck(weight: Int32) -> [UInt8] {
            var code: [UInt8] = [0x23]  // global.get counter
            code.appendLEB(counter)
            code.append(0x41)  // i32.const weight
            code.appendSignedLEB(weight)
            code.append(contentsOf: [0x6a, 0x24])  // i32.add, global.set counter
            code.appendLEB(counter)
            code.append(contentsOf: budgetCheck)
            return code
        }

        /// The check at a loop's start: takes `weight` from the function's local credit and,
        /// once that runs out, gives it ``localBudget`` more and counts the credit and this turn
        /// in the global counter, which it then checks against the budget. So the global has
        /// counted a function's loop turns before they run, and nothing is left uncounted when
        /// the function returns. Both checks leave the operand stack as they found it.
        private func loopCheck(weight: Int32, local: UInt32) -> [UInt8] {
            var code: [UInt8] = [0x20]  // local.get
            code.appendLEB(local)
            code.append(0x41)  // i32.const weight
            code.appendSignedLEB(weight)
            code.append(contentsOf: [0x6b, 0x22])  // i32.sub, local.tee
            code.appendLEB(local)
            code.append(contentsOf: [0x41, 0x00, 0x48, 0x04, 0x40, 0x41])  // i32.const 0, i32.lt_s, if, i32.const
            code.appendSignedLEB(localBudget)
            code.append(0x21)  // local.set
            code.appendLEB(local)
            code.append(0x23)  // global.get counter
            code.appendLEB(counter)
            code.append(0x41)  // i32.const the credit and this turn
            code.appendSignedLEB(localBudget + weight)
            code.append(contentsOf: [0x6a, 0x24])  // i32.add, global.set counter
            code.appendLEB(counter)
            code.append(contentsOf: budgetCheck)
            code.append(0x0b)  // end
            return code
        }

        /// Checks the global counter against the budget: past it, resets it and calls the import.
        private var budgetCheck: [UInt8] {
            var code: [UInt8] = [0x23]  // global.get counter
            code.appendLEB(counter)
            code.append(0x41)  // i32.const budget
            code.appendSignedLEB(budget)
            code.append(contentsOf: [0x4b, 0x04, 0x40, 0x41, 0x00, 0x24])  // i32.gt_u, if, i32.const 0, global.set
            code.appendLEB(counter)
            code.append(0x10)  // call the import
            code.appendLEB(checkFunction)
            code.append(0x0b)  // end
            return code
        }

        /// A custom section as it goes out, or `nil` for one that is dropped: the `name` section
        /// with its function indices moved (dropped if it cannot be read), branch hints (code
        /// offsets) dropped, any other as it is.
        private func customSection(_ range: Range<Int>) throws(Malformed) -> [UInt8]? {
            var reader = WebAssemblyReader(bytes, at: range.lowerBound, end: range.upperBound)
            let name = bytes[try reader.name()]
            if name.elementsEqual("metadata.code.branch_hint".utf8) { return nil }
            guard name.elementsEqual("name".utf8) else { return Array(bytes[range]) }
            var out: [UInt8] = []
            out.appendName(name)
            do {
                while !reader.isAtEnd {
                    let id = try reader.byte()
                    let size = try reader.count()
                    var subsection = WebAssemblyReader(bytes, at: reader.at, end: reader.at + size)
                    try reader.skip(size)
                    var contents: [UInt8] = []
                    if id == 1 || id == 2 || id == 3 {  // functions, locals, labels: keyed by function
                        let count = try subsection.count()
                        contents.appendLEB(UInt32(clamping: count))
                        for _ in 0..<count {
                            contents.appendLEB(try moved(try subsection.u32()))
                            let start = subsection.at
                            if id == 1 {
                                try subsection.name()
                            } else {
                                for _ in 0..<(try subsection.count()) {
                                    _ = try subsection.u32()
                                    try subsection.name()
                                }
                            }
                            contents.append(contentsOf: bytes[start..<subsection.at])
                        }
                        guard subsection.isAtEnd else { throw Malformed() }
                    } else {
                        contents = Array(bytes[subsection.at..<subsection.end])
                    }
                    out.append(id)
                    out.appendLEB(UInt32(clamping: contents.count))
                    out.append(contentsOf: contents)
                }
            } catch {
                return nil
            }
            return out
        }
    }
}
