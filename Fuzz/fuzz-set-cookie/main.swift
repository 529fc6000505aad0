// fuzz-set-cookie: `Set-Cookie` parsing, cookie storage and the `Cookie` / `document.cookie`
// views under arbitrary bytes. The fuzz body is `SetCookieFuzz.run` (SetCookieFuzz.swift).
//
// Built two ways:
// - `swift build` (no FUZZING): a replay driver. `fuzz-set-cookie FILE|DIR...` runs every input
//   through the fuzz body and exits 0; a broken invariant is a `precondition` failure (a trap).
// - `Scripts/fuzz` (`-sanitize=fuzzer,address -DFUZZING -enable-experimental-feature Extern`):
//   libFuzzer drives `LLVMFuzzerTestOneInput` below.
//
// Why not `-parse-as-library` and libFuzzer's own `main`: SwiftPM links every executable with
// `--defsym main=<module>_main` (so that tests can link the module), and that symbol only exists
// when main.swift has top-level code. So main.swift keeps its top-level code in both builds, and
// the fuzzing build's top-level code hands control to libFuzzer through `LLVMFuzzerRunDriver`
// (libFuzzer's documented entry for programs that own `main`).

#if FUZZING
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    unsafe SetCookieFuzz.run(UnsafeBufferPointer(start: size > 0 ? data : nil, count: size))
    return 0
}

@_extern(c, "LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ body: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

var fuzzerArgc = CommandLine.argc
var fuzzerArgv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = unsafe CommandLine.unsafeArgv
exit(unsafe runFuzzerDriver(&fuzzerArgc, &fuzzerArgv, fuzz))
#else
unsafe Replay.main(Array(CommandLine.arguments.dropFirst()), SetCookieFuzz.run)
#endif
