import Foundation
import ScreenTimeFuzz

// Built by `make fuzz` with `-sanitize=fuzzer,address -DFUZZING`: libFuzzer's main calls
// LLVMFuzzerTestOneInput with each input, on the target named by SCREENTIME_FUZZ_TARGET.
// Built plainly (`swift build`): `screentime-fuzz TARGET FILE...` runs saved inputs through it,
// to try a crash libFuzzer wrote before adding it to Fuzz/TARGET/regressions.

#if FUZZING
nonisolated(unsafe) var target: FuzzTargets.Target? = nil

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    let name = ProcessInfo.processInfo.environment["SCREENTIME_FUZZ_TARGET"] ?? ""
    guard let named = FuzzTargets.named(name) else {
        FileHandle.standardError.write(Data("screentime-fuzz: set SCREENTIME_FUZZ_TARGET to one of \(FuzzTargets.all.map(\.name).joined(separator: ", ")) (it is '\(name)')\n".utf8))
        exit(2)
    }
    target = named
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    // A broken invariant is a crash to libFuzzer: it saves the input and stops.
    if let finding = target!(bytes) { fatalError("invariant broken: \(finding)") }
    return 0
}
#else
@main
struct RunSavedInputs {
    static func main() {
        let args = CommandLine.arguments.dropFirst()
        guard let name = args.first, let target = FuzzTargets.named(name), args.count > 1 else {
            FileHandle.standardError.write(Data("usage: screentime-fuzz TARGET FILE...  (targets: \(FuzzTargets.all.map(\.name).joined(separator: ", ")))\n".utf8))
            exit(2)
        }
        var failed = false
        for file in args.dropFirst() {
            guard let data = FileManager.default.contents(atPath: file) else {
                print("\(file): cannot be read"); failed = true; continue
            }
            if let finding = target(Array(data)) { print("\(file): \(finding)"); failed = true } else { print("\(file): ok") }
        }
        exit(failed ? 1 : 0)
    }
}
#endif
