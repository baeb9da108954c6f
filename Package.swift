// swift-tools-version:6.0
import PackageDescription

// The library is three modules, one per layer, so the compiler enforces the layering:
// - GitWireCore: the pure protocol core (object ids, pkt-lines, exchanges, ref advertisements,
//   pack entry headers, delta application). Bytes in, values or actions out: no I/O, no Glibc,
//   no C; it builds wherever Swift runs.
// - GitWirePOSIX: the one place that makes system calls and touches errno, C shims and unsafe
//   pointers: descriptors, sockets, pipes and child processes, epoll, zlib, SHA-1 with collision
//   detection (CGitWire's own C, SHA extensions and AVX2 where present) and plain SHA-1 (the same code with detection off),
//   and on them the byte streams and the epoll run loop.
// - GitWire: transports, the exchange engine, remotes and pack I/O; re-exports both layers below.
let package = Package(
    name: "gitwire",
    products: [
        .library(name: "GitWire", targets: ["GitWire"]),
        .library(name: "GitWireCore", targets: ["GitWireCore"]),
        .library(name: "GitWireReplay", targets: ["GitWireReplay"]),
        .executable(name: "gitwire", targets: ["gitwire"]),
    ],
    targets: [
        .target(
            name: "CGitWire",
            // zlib for streams; libdeflate (about twice as fast) for zlib streams that are whole in
            // memory with a known inflated size: most pack entries.
            linkerSettings: [.linkedLibrary("z"), .linkedLibrary("deflate")]
        ),
        .target(name: "GitWireCore"),
        .target(name: "GitWirePOSIX", dependencies: ["CGitWire", "GitWireCore"]),
        .target(name: "GitWire", dependencies: ["GitWireCore", "GitWirePOSIX"]),
        .target(name: "GitWireReplay", dependencies: ["GitWire"]),
        .executableTarget(
            name: "gitwire",
            dependencies: ["GitWire", "GitWireReplay"]
        ),
        .target(
            name: "GitWireTestSupport", dependencies: ["GitWire", "GitWireReplay"], path: "Tests/GitWireTestSupport"),
        // Run by the tests as a process of its own (what a SIGPIPE does cannot be seen from inside
        // the test process, which ignores the signal).
        .executableTarget(
            name: "GitWireTestHelper", dependencies: ["GitWire", "GitWirePOSIX"], path: "Tests/GitWireTestHelper"),
        // The fuzz targets (one function per parser), run under libFuzzer by Tools/fuzz.sh through
        // gitwire-fuzz, and over every kept input by FuzzRegressionTests.
        .target(
            name: "GitWireFuzzTargets", dependencies: ["GitWire", "GitWireReplay"], path: "Tests/GitWireFuzzTargets"),
        .executableTarget(
            name: "gitwire-fuzz", dependencies: ["GitWire", "GitWireFuzzTargets"], path: "Tests/GitWireFuzz"),
        .testTarget(
            name: "GitWireTests",
            dependencies: [
                "GitWire", "GitWireReplay", "GitWireTestSupport", "gitwire", "GitWireTestHelper", "gitwire-fuzz",
                "GitWireFuzzTargets",
            ]),
        .testTarget(name: "GitWireReplayTests", dependencies: ["GitWire", "GitWireReplay", "GitWireTestSupport"]),
    ]
)
