import Foundation

/// The repository's `Fixtures/` directory (found from this file's path, so tests need no
/// resources and no network).
public let fixturesDirectory: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures").path

/// The fixture files under `Fixtures/<folder>` with the extension `.session`, sorted by name.
public func sessionFixtures(in folder: String) -> [String] {
    let directory = "\(fixturesDirectory)/\(folder)"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter { $0.hasSuffix(".session") }.sorted().map { "\(directory)/\($0)" }
}
