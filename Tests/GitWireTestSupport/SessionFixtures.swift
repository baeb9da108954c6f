import Foundation

/// The fixture files under `Fixtures/<folder>` with the extension `.session`, sorted by name.
public func sessionFixtures(in folder: String) -> [String] {
    let directory = "\(fixturesDirectory)/\(folder)"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter { $0.hasSuffix(".session") }.sorted().map { "\(directory)/\($0)" }
}
