// swift-tools-version:6.0
import PackageDescription

// The library is four modules; the first three are layers, so the compiler enforces the layering:
// - GitWireCore: the pure protocol core (object ids, pkt-lines, exchanges, ref advertisements,
//   configuration parsing, pack entry headers, delta application). Bytes in, values or actions
//   out: no I/O, no Glibc, no C; it builds wherever Swift runs (GitWireCoreTests links it alone).
// - GitWirePOSIX: the one place that makes system calls and touches errno, C shims and unsafe
//   pointers: descriptors, sockets, pipes and child processes, epoll, zlib, SHA-1 with collision
//   detection (CGitWire's own C, SHA extensions and AVX2 where present), plain SHA-1 (the same
//   code with detection off) and SHA-256, and on them the byte streams and the epoll run loop.
// - GitWire: transports, the exchange engine, remotes, repositories and pack I/O; re-exports both
//   layers below.
// - GitWireReplay: recording sessions with real servers and replaying them in tests (on GitWire).
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
        // What tests of the core and the fuzz targets need besides the core (the fixtures directory,
        // pack and delta encoders): on GitWireCore alone, with no Foundation, so GitWireCoreTests
        // links no module of the library but GitWireCore.
        .target(name: "GitWireCoreTestSupport", dependencies: ["GitWireCore"], path: "Tests/GitWireCoreTestSupport"),
        .target(
            name: "GitWireTestSupport", dependencies: ["GitWire", "GitWireReplay", "GitWireCoreTestSupport"],
            path: "Tests/GitWireTestSupport"),
        // Run by the tests as a process of its own (what a SIGPIPE does cannot be seen from inside
        // the test process, which ignores the signal).
        .executableTarget(
            name: "GitWireTestHelper", dependencies: ["GitWire", "GitWirePOSIX"], path: "Tests/GitWireTestHelper"),
        // The fuzz targets (one function per parser), run under libFuzzer by Tools/fuzz.sh through
        // gitwire-fuzz, and over every kept input by FuzzRegressionTests.
        .target(
            name: "GitWireFuzzTargets", dependencies: ["GitWire", "GitWireReplay", "GitWireCoreTestSupport"],
            path: "Tests/GitWireFuzzTargets"),
        .executableTarget(
            name: "gitwire-fuzz", dependencies: ["GitWire", "GitWireFuzzTargets"], path: "Tests/GitWireFuzz"),
        .testTarget(
            name: "GitWireTests",
            dependencies: [
                "GitWire", "GitWireReplay", "GitWireTestSupport", "gitwire", "GitWireTestHelper", "gitwire-fuzz",
                "GitWireFuzzTargets",
            ]),
        // The tests that need only the pure core (pkt-lines, object ids, deltas, exchanges over
        // captured bytes): linking GitWireCore alone checks that it builds anywhere Swift runs.
        .testTarget(name: "GitWireCoreTests", dependencies: ["GitWireCore", "GitWireCoreTestSupport"]),
        .testTarget(name: "GitWireReplayTests", dependencies: ["GitWire", "GitWireReplay", "GitWireTestSupport"]),
    ]
)
