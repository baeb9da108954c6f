// swift-tools-version:6.1
import PackageDescription

// In-process micro-benchmarks of gitwire's hot parsers with ordo-one's package-benchmark (wall
// time percentiles, throughput and allocation counts per iteration, baselines to compare):
//
//     cd Benchmarks && swift package --disable-sandbox benchmark
//
// A package of its own, depending on gitwire by path, so that the main package's `swift build`
// and `swift test` neither build nor resolve package-benchmark.
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
                .product(name: "GitWireReplay", package: "gitwire"),
            ],
            path: "Benchmarks/Parsers",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
