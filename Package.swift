// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "gitwire",
    products: [
        .library(name: "GitWire", targets: ["GitWire"]),
        .library(name: "GitWireReplay", targets: ["GitWireReplay"]),
        .executable(name: "gitwire", targets: ["gitwire"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        .target(
            name: "CGitWire",
            linkerSettings: [.linkedLibrary("z"), .linkedLibrary("crypto")]
        ),
        .target(name: "GitWire", dependencies: ["CGitWire"]),
        .target(name: "GitWireReplay", dependencies: ["GitWire"]),
        .executableTarget(
            name: "gitwire",
            dependencies: [
                "GitWire", "GitWireReplay",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "GitWireTestSupport", dependencies: ["GitWire", "GitWireReplay"], path: "Tests/GitWireTestSupport"),
        .testTarget(name: "GitWireTests", dependencies: ["GitWire", "GitWireReplay", "GitWireTestSupport", "gitwire"]),
        .testTarget(name: "GitWireReplayTests", dependencies: ["GitWire", "GitWireReplay", "GitWireTestSupport"]),
    ]
)
