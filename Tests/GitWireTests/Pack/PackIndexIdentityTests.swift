import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// The `.idx` gitwire writes is byte for byte the one `git index-pack` writes, for packs made in
/// many ways, with one and two threads.
@Suite struct PackIndexIdentityTests {
    /// Ways to make a pack of the fixture repository.
    enum Variant: String, CaseIterable, CustomTestStringConvertible {
        case offsetDeltas, deepChains, referenceDeltas, noReuse, oneThreadNoReuseObject, noDeltas
        case storedUncompressed, bestCompression, packVersion3, repackDeep, tagsOnly

        var testDescription: String { rawValue }

        /// The pack's bytes.
        func pack() throws -> [UInt8] {
            let fixture = FixtureRepository.shared
            switch self {
            case .offsetDeltas: return try fixture.pack(["--delta-base-offset"])
            case .deepChains:
                return try fixture.pack(["--delta-base-offset", "--no-reuse-delta", "--depth=250", "--window=250"])
            case .referenceDeltas: return try fixture.pack(["--no-reuse-delta", "--depth=250", "--window=50"])
            case .noReuse: return try fixture.pack(["--delta-base-offset", "--no-reuse-delta", "--threads=2"])
            case .oneThreadNoReuseObject:
                return try fixture.pack(["--delta-base-offset", "--no-reuse-object", "--threads=1"])
            case .noDeltas: return try fixture.pack(["--window=0"])
            case .storedUncompressed:
                return try fixture.pack(["--delta-base-offset", "--no-reuse-object", "--compression=0"])
            case .bestCompression:
                return try fixture.pack(["--delta-base-offset", "--no-reuse-object", "--compression=9"])
            case .packVersion3:
                var bytes = try fixture.pack(["--delta-base-offset"])
                bytes[7] = 3
                return rehashed(bytes)
            case .repackDeep:
                let copy = try TemporaryDirectory(prefix: "gitwire-repack")
                try git(["clone", "-q", "--bare", "--no-local", fixture.path, copy.appending("r.git")])
                try git(["repack", "-q", "-adf", "--depth=250", "--window=250"], in: copy.appending("r.git"))
                let packDirectory = copy.appending("r.git/objects/pack")
                let name = try fileNames(inDirectory: packDirectory).first { $0.hasSuffix(".pack") }!
                return try readFile("\(packDirectory)/\(name)")
            case .tagsOnly:
                let tags = try gitText(["tag"], in: fixture.path).split(separator: "\n").map(String.init)
                return try fixture.pack(["--delta-base-offset"], revisions: tags)
            }
        }
    }

    @Test(arguments: Variant.allCases, [1, 2])
    func indexMatchesGit(variant: Variant, threads: Int) throws {
        let directory = try TemporaryDirectory()
        let pack = try variant.pack()
        let expected = try gitIndex(of: pack, in: directory)
        let path = directory.appending("ours.pack")
        try writeFile(path, pack)
        let result = try PackIndexer.indexPack(at: path, options: PackIndexOptions(threads: threads))
        #expect(try readFile(result.indexPath) == expected)
        #expect(result.indexPath == directory.appending("ours.idx"))
        #expect(result.packChecksum == ObjectID(bytes: pack.suffix(20), format: .sha1))
        #expect(try gitText(["verify-pack", path]).isEmpty)
    }

    @Test func deepChainsResolveWithATinyBaseCache() throws {
        let directory = try TemporaryDirectory()
        let pack = try Variant.deepChains.pack()
        let expected = try gitIndex(of: pack, in: directory)
        let path = directory.appending("ours.pack")
        try writeFile(path, pack)
        let result = try PackIndexer.indexPack(at: path, options: PackIndexOptions(threads: 2, baseCacheLimit: 1))
        #expect(try readFile(result.indexPath) == expected)
    }

    @Test(arguments: [7, 1000, 65_537, Int.max])
    func streamedInAnyChunkingMatchesGit(chunkSize: Int) throws {
        let directory = try TemporaryDirectory()
        let pack = try Variant.deepChains.pack()
        let expected = try gitIndex(of: pack, in: directory)
        let result = try streamIndex(pack, chunkSize: chunkSize, in: directory)
        #expect(try readFile(result.indexPath) == expected)
        #expect(try readFile(result.packPath) == pack)
        #expect(try fileNames(in: directory) == ["git.idx", "git.pack", "streamed.idx", "streamed.pack"])
    }

    @Test func smallPackFedOneByteAtATime() throws {
        let directory = try TemporaryDirectory()
        let pack = try FixtureRepository.shared.pack(["--delta-base-offset"], revisions: ["v20"])
        let expected = try gitIndex(of: pack, in: directory)
        let result = try streamIndex(pack, chunkSize: 1, in: directory)
        #expect(try readFile(result.indexPath) == expected)
        #expect(
            result.objectCount
                == Int(
                    try gitText(["rev-list", "--objects", "v20"], in: FixtureRepository.shared.path).split(
                        separator: "\n"
                    ).count))
    }

    @Test func directoryDestinationNamesPackAfterChecksum() throws {
        let directory = try TemporaryDirectory()
        let pack = try FixtureRepository.shared.pack(["--delta-base-offset"], revisions: ["v30"])
        let indexer = try PackIndexer(destination: .directory(directory.path))
        try indexer.append(pack)
        let result = try indexer.finish()
        let checksum = ObjectID(bytes: pack.suffix(20), format: .sha1)!
        #expect(result.packPath == directory.appending("pack-\(checksum.hex).pack"))
        #expect(result.indexPath == directory.appending("pack-\(checksum.hex).idx"))
        #expect(try fileNames(in: directory) == ["pack-\(checksum.hex).idx", "pack-\(checksum.hex).pack"])
    }

    @Test func largeOffsetTableMatchesGitWithALowThreshold() throws {
        let directory = try TemporaryDirectory()
        let pack = try Variant.offsetDeltas.pack()
        let expected = try gitIndex(of: pack, in: directory, arguments: ["--index-version=2,0x1000"])
        let path = directory.appending("ours.pack")
        try writeFile(path, pack)
        let result = try PackIndexer.indexPack(at: path, options: PackIndexOptions(largeOffsetThreshold: 0x1000))
        let ours = try readFile(result.indexPath)
        #expect(ours == expected)
        // Header, fan-out, checksums and 28 bytes per object, plus 8 per offset in the large table.
        #expect(ours.count > 8 + 1024 + 40 + 28 * result.objectCount)
    }

    @Test func progressCountsEveryObjectAndDelta() throws {
        let directory = try TemporaryDirectory()
        let pack = try Variant.deepChains.pack()
        let path = directory.appending("p.pack")
        try writeFile(path, pack)
        let reports = ProgressLog()
        let result = try PackIndexer.indexPack(at: path, options: PackIndexOptions(threads: 2)) { reports.add($0) }
        let receiving = reports.all.filter { $0.phase == .receiving }
        let resolving = reports.all.filter { $0.phase == .resolving }
        #expect(receiving.last?.completed == result.objectCount)
        #expect(receiving.last?.total == result.objectCount)
        let deltas = try git(["verify-pack", "-v", path]).text.split(separator: "\n").filter {
            $0.split(separator: " ").count == 7
        }
        #expect(resolving.last?.completed == deltas.count)
        #expect(resolving.last?.total == deltas.count)
    }

    private func streamIndex(_ pack: [UInt8], chunkSize: Int, in directory: TemporaryDirectory) throws
        -> PackIndexResult
    {
        let indexer = try PackIndexer(destination: .file(directory.appending("streamed.pack")))
        var start = 0
        while start < pack.count {
            let end = start + min(chunkSize, pack.count - start)
            try indexer.append(pack[start..<end])
            start = end
        }
        return try indexer.finish()
    }
}

/// Collects progress reports from any thread.
final class ProgressLog: @unchecked Sendable {
    private var reports: [PackProgress] = []
    private let lock = NSLock()

    func add(_ report: PackProgress) { lock.withLock { reports.append(report) } }

    var all: [PackProgress] { lock.withLock { reports } }
}
