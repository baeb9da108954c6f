import Foundation
import GitWire
import GitWirePOSIX
import GitWireTestSupport
import Testing

/// A pack cut short after a reader opened it gives a pack error for every entry that is gone,
/// never a crash (git maps its packs, and a pack truncated under it kills it with SIGBUS; git only
/// replaces packs by renaming, which leaves an open file intact). gitwire reads packs with
/// `pread`: read-only maps were tried and taken out (Documentation/Performance.md).
@Suite struct TruncatedPackTests {
    /// A real pack (the shared fixture, 1.5 MiB and more) and its index in `directory`.
    static func packOnDisk(_ directory: TemporaryDirectory) throws -> (pack: String, bytes: [UInt8]) {
        let bytes = try FixtureRepository.shared.pack(["--delta-base-offset"])
        _ = try gitIndex(of: bytes, in: directory)
        return (directory.appending("git.pack"), bytes)
    }

    @Test("a pack truncated after it was opened gives a pack error, not a crash")
    func truncatedAfterOpening() throws {
        let directory = try TemporaryDirectory()
        let (path, _) = try Self.packOnDisk(directory)
        let index = try PackIndex(path: directory.appending("git.idx"), format: .sha1)
        let ids = (0..<index.count).map(index.id(at:))
        let byOffset = ids.sorted { index.offset(of: $0)! < index.offset(of: $1)! }
        let reader = try PackReader(packPath: path, format: .sha1)
        // The first object is read while the pack is whole.
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
    }
}
