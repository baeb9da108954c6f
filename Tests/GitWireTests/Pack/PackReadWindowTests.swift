import GitWireTestSupport
import Testing

@testable import GitWire
@testable import GitWirePOSIX

/// ``PackReadWindow`` gives the file's bytes for any range, wherever the window lies, and fewer
/// bytes where the file is shorter than the range (so that a reader sees the pack changed).
@Suite struct PackReadWindowTests {
    @Test func rangesGiveTheFilesBytes() throws {
        let directory = try TemporaryDirectory()
        let file = try File.createTemporary(in: directory.path, prefix: "window_")
        let size = 3 * PackReadWindow.size + 123
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 ^ $0 >> 8) }
        try file.write(bytes[...], at: 0)
        let reader = try File.openForReading(file.path)
        // Entries end 20 bytes before the file does, as a pack's trailer follows them.
        let end = UInt64(size - 20)
        let window = PackReadWindow(file: reader, end: end)
        var generator = SeededGenerator(seed: 7)
        var ranges: [Range<UInt64>] = [0..<1, 1..<100, 50..<60, 0..<UInt64(PackReadWindow.size)]
        ranges += [end - 10..<end, end - 10..<end + 20, end..<end + 20, end + 5..<end + 6]
        for _ in 0..<2_000 {
            let start = UInt64.random(in: 0..<UInt64(size), using: &generator)
            let count = UInt64.random(in: 0...min(UInt64(PackReadWindow.size), UInt64(size) - start), using: &generator)
            ranges.append(start..<start + count)
        }
        // Forward runs, as resolution mostly reads.
        var position: UInt64 = 0
        while position + 300 < UInt64(size) {
            ranges.append(position..<position + 300)
            position += 250
        }
        for range in ranges {
            let got = try window.bytes(range)
            #expect(Array(got) == Array(bytes[Int(range.lowerBound)..<Int(range.upperBound)]), "\(range)")
        }
        // The file cut short under the reader: a range past its end gives fewer bytes.
        try file.truncate(to: Int64(size - 1000))
        let fresh = PackReadWindow(file: reader, end: end)
        let cut = try fresh.bytes(UInt64(size - 1100)..<UInt64(size - 900))
        #expect(Array(cut) == Array(bytes[size - 1100..<size - 1000]))
    }
}

/// A small deterministic generator (xorshift), so that the ranges are the same every run.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed == 0 ? 1 : seed }

    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
