#if !FUZZING
import Foundation

/// The replay driver of a plain build: `fuzz-set-cookie FILE|DIR...` runs each file (and every
/// file, not hidden, directly inside each directory, in name order) through the fuzz body.
/// Exits 0 when all pass; an input that breaks an invariant traps. With no arguments it prints
/// the usage and exits 0.
enum Replay {
    static func main(_ arguments: [String], _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard !arguments.isEmpty else {
            print(
                """
                usage: fuzz-set-cookie FILE|DIR...
                  Replays each input (each file of a directory) through the fuzz body; exits 0 when
                  every invariant holds. Scripts/fuzz builds this target with libFuzzer for real fuzzing.
                """)
            return
        }
        var count = 0
        for file in files(arguments) {
            guard let data = FileManager.default.contents(atPath: file.path) else {
                FileHandle.standardError.write(Data("fuzz-set-cookie: cannot read \(file.path)\n".utf8))
                exit(2)
            }
            unsafe data.withUnsafeBytes { unsafe body($0.bindMemory(to: UInt8.self)) }
            count += 1
        }
        print("fuzz-set-cookie: \(count) input(s) passed")
    }

    static func files(_ arguments: [String]) -> [URL] {
        var files: [URL] = []
        for argument in arguments {
            let url = URL(fileURLWithPath: argument)
            var isDirectory: ObjCBool = false
            if unsafe FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
                for name in names.sorted() where !name.hasPrefix(".") {
                    files.append(url.appendingPathComponent(name))
                }
            } else {
                files.append(url)
            }
        }
        return files
    }
}
#endif
