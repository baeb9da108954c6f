import Foundation
import GitWire
import GitWirePOSIX
import GitWireTestSupport
import Testing

/// Packs on disk are read through bounded read-only maps (`MappedFile`). Reads across windows
/// give the file's bytes, and a pack cut short after it was opened gives an error where its
/// pages are gone, never SIGBUS (git maps its packs too, and a pack truncated under it kills
/// it with SIGBUS; git only replaces packs by renaming, which leaves an open map intact).
@Suite struct MappedPackTests {
    /// A real pack (the shared fixture, 1.5 MiB and more) and its index in `directory`.
    static func packOnDisk(_ directory: TemporaryDirectory) throws -> (pack: String, bytes: [UInt8]) {
        let bytes = try FixtureRepository.shared.pack(["--delta-base-offset"])
        _ = try gitIndex(of: bytes, in: directory)
        return (directory.appending("git.pack"), bytes)
    }

    @Test("reads through small windows, across their edges, give the file's bytes")
    func windowedReads() throws {
        let directory = try TemporaryDirectory()
        let (path, bytes) = try Self.packOnDisk(directory)
        let mapped = try MappedFile(File.openForReading(path), windowSize: 4096, maximumWindows: 2)
        var random = SeededRandom(seed: 7)
        for _ in 0..<500 {
            let offset = Int(random.next() % UInt64(bytes.count))
            let count = Int(random.next() % 20_000)
            let expected = Array(bytes[offset..<min(bytes.count, offset + count)])
            #expect(try mapped.read(at: UInt64(offset), count: count) == expected)
        }
        #expect(try mapped.read(at: UInt64(bytes.count), count: 10) == [])
        // Whole, through every window in turn.
        #expect(try mapped.read(at: 0, count: bytes.count + 100) == bytes)
    }

    @Test("a pack truncated after it was opened and mapped gives a pack error, not SIGBUS")
    func truncatedUnderTheMap() throws {
        let directory = try TemporaryDirectory()
        let (path, bytes) = try Self.packOnDisk(directory)
        let index = try PackIndex(path: directory.appending("git.idx"), format: .sha1)
        let ids = (0..<index.count).map(index.id(at:))
        let byOffset = ids.sorted { index.offset(of: $0)! < index.offset(of: $1)! }
        let reader = try PackReader(packPath: path, format: .sha1)
        // The first object maps the window that holds the whole pack.
        _ = try reader.object(byOffset[0])
        #expect(truncate(path, 12) == 0)
        var failures = 0
        for id in byOffset.reversed().prefix(20) {
            do {
                _ = try reader.object(id)
            } catch let error as PackError {
                #expect(error.reason == .packChangedOnDisk)
                failures += 1
            }
        }
        #expect(failures == 20)
        // A mapped copy of the cut file itself: empty instead of a crash.
        let mapped = try MappedFile(File.openForReading(path))
        #expect(mapped.size == 12)
        try writeFile(path, bytes)
        let grown = try MappedFile(File.openForReading(path))
        _ = try grown.read(at: 0, count: 16)
        #expect(truncate(path, 0) == 0)
        #expect(try grown.read(at: 4096 * 3, count: 100) == [])
    }
}
