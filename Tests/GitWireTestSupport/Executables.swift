import Foundation

/// The `gitwire` executable built next to the test bundle.
public let gitwireExecutable: String = builtExecutable("gitwire")

/// The `GitWireTestHelper` executable built next to the test bundle: checks the tests run in a
/// process of their own (see its source).
public let testHelperExecutable: String = builtExecutable("GitWireTestHelper")

/// The `gitwire-fuzz` executable built next to the test bundle (plain build): `gitwire-fuzz
/// <target> <file>...` runs a fuzz target on kept inputs.
public let fuzzExecutable: String = builtExecutable("gitwire-fuzz")

/// The path of executable `name` among the build products.
private func builtExecutable(_ name: String) -> String {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    var candidate = directory.appendingPathComponent(name).path
    if !FileManager.default.isExecutableFile(atPath: candidate) {
        // Under XCTest's runner the bundle path is deeper; look beside the build products.
        candidate = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name).path
    }
    return candidate
}

/// Runs `gitwire` with `arguments`, without failing on a non-zero status.
@discardableResult
public func gitwire(_ arguments: [String], in directory: String? = nil, environment: [String: String] = [:])
    throws -> ProcessOutput
{
    try run([gitwireExecutable] + arguments, in: directory, environment: environment, check: false)
}
