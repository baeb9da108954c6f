// swift-tools-version:6.1
import Foundation
import PackageDescription

// In-process micro-benchmarks of gitwire's hot parsers with ordo-one's package-benchmark (time
// percentiles, CPU time, malloc and retain counts per iteration, baselines to compare). Run them
// with Tools/bench-micro.sh, which captures their inputs from a real repository first.
//
// A package of its own, depending on gitwire by path, so that the main package's `swift build`
// and `swift test` neither build nor resolve package-benchmark and its dependencies.
//
// Two of the paths measured are `package` API of gitwire: the C delta interpreter
// (`Delta.applyNative`) and the batch SHA-1 (`ObjectHashBatch`). Rather than making them public
// for a benchmark, this target is compiled as a member of gitwire's package: SwiftPM names a
// package's modules with `-package-name <identity>`, the identity of a package found by path being
// its folder's name in lower case (the checkout's folder, `..` from here), with what a C
// identifier cannot hold replaced by `_`. If SwiftPM ever names it otherwise, those two
// benchmarks stop compiling (nothing else changes); the library itself is not touched.
// A folder named `<name>.git` gives the identity `<name>`, as SwiftPM strips that suffix too.
let gitwireFolder = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent
let gitwirePackageName: String = {
    let identity = gitwireFolder.hasSuffix(".git") ? String(gitwireFolder.dropLast(4)) : gitwireFolder
    var name = String(identity.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    if name.first?.isNumber ?? true { name = "_" + name }
    return name
}()

let package = Package(
    name: "gitwire-benchmarks",
    dependencies: [
        .package(name: "gitwire", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "Parsers",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GitWire", package: "gitwire"),
            ],
            path: "Benchmarks/Parsers",
            packageAccess: false,
            swiftSettings: [.unsafeFlags(["-package-name", gitwirePackageName])],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
