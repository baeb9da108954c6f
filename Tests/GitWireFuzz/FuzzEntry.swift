import GitWire
import GitWireFuzzTargets

// Built with `--sanitize=fuzzer -DGITWIRE_FUZZER` (Tools/fuzz.sh), libFuzzer supplies `main` and
// calls the two functions below; the target is named by GITWIRE_FUZZ_TARGET. Built plainly,
// `Runner` is the program instead: `gitwire-fuzz <target> <file>...` runs the target once per file,
// and `gitwire-fuzz seeds <directory> <file>...` writes starting inputs made from fixtures and packs.

nonisolated(unsafe) private var selected: FuzzTarget?

/// libFuzzer calls this once before the first input: reads which target to run.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>>>
) -> CInt {
    let name = Environment.value("GITWIRE_FUZZ_TARGET") ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        Console.writeError(
            "GITWIRE_FUZZ_TARGET must name one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n")
        Console.exit(2)
    }
    selected = target
    return 0
}

/// libFuzzer calls this with each input: runs the selected target on it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    selected?.run(bytes)
    return 0
}

#if !GITWIRE_FUZZER
    @main
    enum Runner {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            if arguments.first == "seeds", arguments.count >= 2 {
                do {
                    let counts = try FuzzSeeds.write(
                        from: Array(arguments.dropFirst(2)), into: arguments[arguments.startIndex + 1])
                    for (target, count) in counts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                        Console.writeError("\(target.rawValue): \(count) seeds\n")
                    }
                } catch {
                    Console.writeError("seeds: \(error)\n")
                    Console.exit(1)
                }
                return
            }
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
                Console.writeError(
                    "usage: gitwire-fuzz <target> <file>...  (targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")))\n"
                )
                Console.exit(2)
            }
            for path in arguments.dropFirst() {
                do {
                    target.run(try FileSystem.read(path))
                } catch {
                    Console.writeError("\(path): \(error)\n")
                    Console.exit(1)
                }
            }
        }
    }
#endif
