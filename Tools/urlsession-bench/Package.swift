// swift-tools-version:6.0
import PackageDescription

// A throwaway measurement, not part of gitwire: Tools/bench-urlsession.sh builds it into
// .build-bench/ to compare FoundationNetworking's URLSession with gitwire's libcurl-on-the-run-loop.
let package = Package(
    name: "urlsession-bench",
    targets: [.executableTarget(name: "urlsession-bench")]
)
