import Foundation
import GitWireTestSupport

/// What git printed: its exit status, standard error and standard output (the `.expected`
/// format of `Fixtures/README.md`).
struct GitExpectation: Sendable {
    let status: Int32
    let standardError: [UInt8]
    let standardOutput: [UInt8]

    init(path: String) throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        var lines = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 3, omittingEmptySubsequences: false)
        func number(_ key: String) throws -> Int {
            let line = String(decoding: lines.removeFirst(), as: UTF8.self)
            guard line.hasPrefix(key + " "), let value = Int(line.dropFirst(key.count + 1)) else {
                throw FixtureProblem("\(path): bad .expected header line '\(line)'")
            }
            return value
        }
        status = Int32(try number("git-exit-status"))
        let errorCount = try number("git-stderr-bytes")
        let outputCount = try number("git-stdout-bytes")
        let rest = Array(lines.first ?? [])
        guard rest.count == errorCount + outputCount else { throw FixtureProblem("\(path): sizes do not add up") }
        standardError = Array(rest.prefix(errorCount))
        standardOutput = Array(rest.dropFirst(errorCount))
    }
}
