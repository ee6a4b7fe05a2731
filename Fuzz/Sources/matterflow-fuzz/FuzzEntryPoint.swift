import CFuzzDriver
import Foundation

/// libFuzzer's entry point: hands each input to the target named by `MATTERFLOW_FUZZ_TARGET` (see ``FuzzTarget``).
///
/// A target returns normally for every input; a trap, an overflow, an out-of-bounds access or a hang is what the
/// fuzzer reports.
@_cdecl("LLVMFuzzerTestOneInput")
public func matterflowFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzTarget.selected.run(bytes)
    return 0
}

/// The process entry point in a SwiftPM debug build, which links an executable's `main` under this name: it runs
/// libFuzzer's driver with the command line as given. (A release build uses libFuzzer's own `main`, which calls
/// ``matterflowFuzzTestOneInput(_:_:)`` the same way.)
@_cdecl("matterflow_fuzz_main")
public func matterflowFuzzMain(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in matterflowFuzzTestOneInput(data, size) }
}
