import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Delta trees shaped to make a resolver redo work (gitwire issue #11): every delta must be
/// applied exactly once, whatever the shape and whatever the cache budget, and the index must be
/// git's. (Speed is measured side by side with git by `Tools/bench-delta-chain.sh`.)
@Suite("delta chains and trees")
struct DeltaChainTests {
    /// A 256 KiB blob of text: compressible, like the source files long chains are made of.
    static let rootBlob: [UInt8] = {
        var text: [UInt8] = []
        var line = 0
        while text.count < 256 << 10 {
            text += Array("line \(line) of a file that a long delta chain grows from\n".utf8)
            line += 1
        }
        return Array(text.prefix(256 << 10))
    }()

    /// A delta on a base of `baseSize` bytes that keeps its first `kept` bytes and appends `tag`.
    static func delta(baseSize: Int, kept: Int, tag: String) -> [UInt8] {
        var instructions: [UInt8] = []
        var offset = 0
        while offset < kept {
            let size = min(kept - offset, 0xff_ffff)
            instructions += copyInstruction(offset: offset, size: size)
            offset += size
        }
        let tagBytes = Array(tag.utf8)
        return makeDelta(
            baseSize: baseSize, resultSize: kept + tagBytes.count, instructions + insertInstruction(tagBytes))
    }

    /// The pack: a chain of `links` OFS_DELTAs (or REF_DELTAs) on the 256 KiB blob, all
    /// links first, then one leaf delta on each link. Each link's first child in pack order is
    /// the next link, whose subtree holds the rest of the chain.
    static func chainPack(links: Int, referenceDeltas: Bool = false) throws -> [UInt8] {
        var builder = TestPackBuilder()
        var offsets = [try builder.addObject(.blob, rootBlob)]
        var contents = [rootBlob]
        for link in 1...links {
            let base = contents[link - 1]
            let tag = String(format: "link %06d\n", link)
            let delta = Self.delta(baseSize: base.count, kept: base.count - tag.utf8.count, tag: tag)
            let content = Array(base.prefix(base.count - tag.utf8.count)) + Array(tag.utf8)
            if referenceDeltas {
                offsets.append(
                    try builder.addReferenceDelta(base: ObjectID.of(type: .blob, data: base[...], format: .sha1), delta)
                )
            } else {
                offsets.append(try builder.addOffsetDelta(baseOffset: offsets[link - 1], delta))
            }
            contents.append(content)
        }
        for link in 1...links {
            let delta = Self.delta(baseSize: contents[link].count, kept: 1000, tag: "leaf \(link)\n")
            if referenceDeltas {
                try builder.addReferenceDelta(
                    base: ObjectID.of(type: .blob, data: contents[link][...], format: .sha1), delta)
            } else {
                try builder.addOffsetDelta(baseOffset: offsets[link], delta)
            }
        }
        return builder.bytes()
    }

    /// Indexes `pack` with gitwire (with `options`) and git; checks the indexes are the same and
    /// returns what delta resolution did.
    func indexLikeGit(_ pack: [UInt8], options: PackIndexOptions) throws -> DeltaResolutionStatistics {
        let directory = try TemporaryDirectory()
        let gitIdx = try gitIndex(of: pack, in: directory)
        try writeFile(directory.appending("ours.pack"), pack)
        let result = try PackIndexer.indexPack(at: directory.appending("ours.pack"), options: options)
        #expect(try readFile(directory.appending("ours.idx")) == gitIdx)
        #expect(try fileNames(in: directory) == ["git.idx", "git.pack", "ours.idx", "ours.pack"])
        return result.resolution
    }

    /// The 2,400-link chain with a leaf on each link: each delta is applied once, and
    /// with the next link resolved last, no base outlives its last child, so nothing spills.
    @Test(arguments: [1, 2])
    func longChainWithLeavesResolvesEachDeltaOnce(threads: Int) throws {
        let pack = try Self.chainPack(links: 2400)
        let statistics = try indexLikeGit(pack, options: PackIndexOptions(threads: threads))
        #expect(statistics.deltasApplied == 4800)
        #expect(statistics.bytesSpilled == 0)
    }

    /// The same chain of REF_DELTAs. Their results are named in batches, and what is based on a
    /// result is resolved once the batch is named, so a base no longer waits for its leaves
    /// beyond the budget: each delta is applied once and nothing spills.
    @Test func longReferenceChainResolvesEachDeltaOnce() throws {
        let pack = try Self.chainPack(links: 300, referenceDeltas: true)
        let statistics = try indexLikeGit(pack, options: PackIndexOptions(threads: 2, baseCacheLimit: 4 << 20))
        #expect(statistics.deltasApplied == 600)
        #expect(statistics.bytesSpilled == 0)
    }

    /// A complete binary tree of OFS_DELTAs, eight levels deep, with a one-byte cache: every base
    /// that still has a child waiting is spilled and read back, and nothing is applied twice.
    @Test func binaryTreeWithNoCache() throws {
        let base = Array(Self.rootBlob.prefix(4096))
        var builder = TestPackBuilder()
        var level = [(offset: try builder.addObject(.blob, base), content: base)]
        var deltas = 0
        for depth in 1...8 {
            var next: [(offset: Int, content: [UInt8])] = []
            for (index, parent) in level.enumerated() {
                for side in 0..<2 {
                    let tag = "d\(depth)i\(index)s\(side)\n"
                    let kept = parent.content.count - tag.utf8.count
                    let delta = Self.delta(baseSize: parent.content.count, kept: kept, tag: tag)
                    let offset = try builder.addOffsetDelta(baseOffset: parent.offset, delta)
                    next.append((offset, Array(parent.content.prefix(kept)) + Array(tag.utf8)))
                    deltas += 1
                }
            }
            level = next
        }
        let statistics = try indexLikeGit(builder.bytes(), options: PackIndexOptions(threads: 1, baseCacheLimit: 1))
        #expect(statistics.deltasApplied == deltas)
        #expect(statistics.bytesSpilled > 0)
    }
}
