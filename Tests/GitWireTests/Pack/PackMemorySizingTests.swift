import Foundation
import GitWireCore
import GitWireTestSupport
import Testing

@testable import GitWire

/// index-pack's buffers sized to the pack: a small pack takes the least, the packs the speed was
/// measured on (git.git's, libgit2's) keep the sizes they had, and the first pass's queue takes
/// its size once the pack's header is read.
@Suite struct PackMemorySizingTests {
    @Test func smallPacksTakeTheLeastAndLargeOnesKeepTheirSizes() {
        // swift-nio's pack as cloned: 30,410 objects, 13 MiB.
        #expect(PackMemorySizing.firstPassQueueBytes(objectCount: 30_410) == 1 << 20)
        #expect(PackMemorySizing.hashBatchBytes(packBytes: 13 << 20, deferringChildren: false) == 1 << 20)
        #expect(PackMemorySizing.hashBatchBytes(packBytes: 21 << 20, deferringChildren: false) == 1 << 20)
        #expect(PackMemorySizing.hashBatchBytes(packBytes: (32 << 20) - 1, deferringChildren: false) == 1 << 20)
        #expect(PackMemorySizing.hashBatchBytes(packBytes: 32 << 20, deferringChildren: false) == 4 << 20)
        #expect(PackMemorySizing.hashBatchBytes(packBytes: 32 << 20, deferringChildren: true) == 2 << 20)
        // libgit2's repacked pack, 43 MiB.
        #expect(PackMemorySizing.hashBatchBytes(packBytes: 43 << 20, deferringChildren: false) == 4 << 20)
        #expect(PackMemorySizing.hashBatchBytes(packBytes: 13 << 20, deferringChildren: true) == 1 << 20)
        // libgit2's reference-delta pack, 76 MiB.
        #expect(PackMemorySizing.hashBatchBytes(packBytes: 76 << 20, deferringChildren: true) == 2 << 20)
        // A pack of a few objects: the floors.
        #expect(PackMemorySizing.firstPassQueueBytes(objectCount: 3) == 1 << 20)
        #expect(PackMemorySizing.hashBatchBytes(packBytes: 300, deferringChildren: false) == 1 << 20)
        // git.git's pack as cloned: 419,403 objects, 304 MiB.
        #expect(PackMemorySizing.firstPassQueueBytes(objectCount: 419_403) == 419_403 * 16)
        #expect(PackMemorySizing.hashBatchBytes(packBytes: 304 << 20, deferringChildren: false) == 4 << 20)
        #expect(PackMemorySizing.hashBatchBytes(packBytes: 304 << 20, deferringChildren: true) == 2 << 20)
        // Larger packs: the caps.
        #expect(PackMemorySizing.firstPassQueueBytes(objectCount: 10_000_000) == 8 << 20)
        #expect(PackMemorySizing.firstPassQueueBytes(objectCount: .max) == 8 << 20)
        #expect(PackMemorySizing.hashBatchBytes(packBytes: .max, deferringChildren: false) == 4 << 20)
    }

    /// `index-pack` of a file reads a small pack 256 KiB at a time (the first pass's slices keep
    /// their chunks alive), a pack of 32 MiB or more 1 MiB at a time, as before.
    @Test func smallPacksAreReadInSmallerChunks() {
        #expect(PackMemorySizing.readChunkBytes(packBytes: 13 << 20) == 256 << 10)
        #expect(PackMemorySizing.readChunkBytes(packBytes: (32 << 20) - 1) == 256 << 10)
        #expect(PackMemorySizing.readChunkBytes(packBytes: 32 << 20) == 1 << 20)
        #expect(PackMemorySizing.readChunkBytes(packBytes: 304 << 20) == 1 << 20)
    }

    @Test func queueCapacityChangesWhatFits() {
        let queue = BlockingQueue<Int>(capacity: 1)
        #expect(queue.offer(1, weight: 1))
        #expect(!queue.offer(2, weight: 1))
        queue.setCapacity(3)
        #expect(queue.offer(2, weight: 1))
        queue.setCapacity(2)
        #expect(!queue.offer(3, weight: 1))
        #expect(queue.take() == 1)
        #expect(queue.offer(3, weight: 1))
        queue.setCapacity(0)
        #expect(queue.take() == 2)
        #expect(!queue.offer(4, weight: 1))
        #expect(queue.take() == 3)
        #expect(queue.offer(4, weight: 1))
        queue.close()
        #expect(queue.take() == 4)
        #expect(queue.take() == nil)
    }

    /// The first pass makes room for the entries in steps up to the header's count, every array at
    /// once: the names' array, which its growth used to follow only when the offsets' array was
    /// full (an array may get more room than asked for), grew by doubling on its own before, to
    /// 1.3 times what swift-nio's 30,410 names take.
    @Test func entryTableHoldsNoMoreRoomThanTheHeaderAnnounces() throws {
        var builder = TestPackBuilder()
        let count = 5_000
        for index in 0..<count { try builder.addObject(.blob, Array("blob \(index)\n".utf8)) }
        let parser = try PackStreamParser(format: .sha1)
        let pack = builder.bytes()
        var offset = 0
        while offset < pack.count {
            let end = min(pack.count, offset + 4096)
            try parser.append(pack[offset..<end])
            offset = end
        }
        _ = try parser.finish()
        let table = parser.takeTable()
        #expect(table.count == count)
        #expect(table.ids.capacity < count + 64)
        #expect(table.offsets.capacity < count + 64)
    }

    /// A resolver holds the names it resolved in a list of fixed room, handed over every
    /// ``DeltaTreeResolver/handOffCount`` (1,024) names, within a tree too: one chain of 3,000
    /// deltas here. The list grew by doubling before, to 4,096 names a thread (8,192 once a batch
    /// was named past the count: 0.47 MB a thread on swift-nio's pack).
    @Test func resolverHoldsFewResolvedNamesAtOnce() throws {
        let directory = try TemporaryDirectory()
        var builder = TestPackBuilder()
        var previous = try builder.addObject(.blob, [UInt8](repeating: 0x61, count: 100))
        let count = 3_000
        for index in 0..<count {
            // The base's last 99 bytes, then one byte more: 100 bytes each.
            let delta: [UInt8] = [100, 100, 0x91, 1, 99, 1, UInt8(truncatingIfNeeded: index)]
            previous = try builder.addOffsetDelta(baseOffset: previous, delta)
        }
        let pack = builder.bytes()
        let packPath = directory.appending("chain.pack")
        try Data(pack).write(to: URL(fileURLWithPath: packPath))
        let parser = try PackStreamParser(format: .sha1)
        try parser.append(pack[...])
        _ = try parser.finish()
        var table = parser.takeTable()
        let plan = DeltaResolutionPlan(packPath: packPath, table: &table, cacheLimitPerThread: 16 << 20)
        let resolver = try DeltaTreeResolver(plan: plan, claims: OnceFlags(count: table.count), progress: nil)
        var handed: [Int] = []
        var largestRoom = 0
        resolver.handOff = { names in
            handed.append(names.count)
            largestRoom = max(largestRoom, names.capacity)
        }
        #expect(plan.roots.count == 1)
        for next in plan.roots.indices {
            try resolver.resolveTree(
                root: plan.roots[next], type: plan.rootTypes[next], id: plan.rootIDs[next],
                range: plan.range(of: Int(plan.roots[next])), data: nil)
            largestRoom = max(largestRoom, resolver.resolved.capacity)
        }
        let rest = try resolver.takeResolved()
        #expect(handed.reduce(0, +) + rest.count == count)
        #expect(handed.count >= 2)
        #expect(handed.allSatisfy { $0 >= DeltaTreeResolver.handOffCount })
        #expect(largestRoom <= DeltaTreeResolver.handOffCount + 128)
        #expect(largestRoom * MemoryLayout<ResolvedDelta>.stride <= 96 << 10)
    }

    /// The plan takes the reference deltas out of the entry table and sorts them in place, as it
    /// does the offset deltas: it sorted a copy before, and the table's list stayed beside it
    /// through resolution (0.79 MB beside 0.66 MB on dulwich's pack with reference deltas). The
    /// pack's order, which thin-pack completion and the error for a missing base follow, is still
    /// at hand.
    @Test func planTakesTheReferenceDeltasFromTheTable() throws {
        var builder = TestPackBuilder()
        var bases: [ObjectID] = []
        for index in 0..<40 {
            let data = Array("base \(index)\n".utf8) + [UInt8](repeating: 0x62, count: 40)
            try builder.addObject(.blob, data)
            bases.append(try ObjectID.of(type: .blob, data: data[...], format: .sha1))
        }
        var expected: [(base: ObjectID, delta: Int32)] = []
        for index in 0..<200 {
            // Bases in a scattered order, so that sorting by base changes the order.
            let base = bases[(index * 17) % bases.count]
            // Never applied here: the first pass only records it.
            try builder.addReferenceDelta(base: base, [1, 1, 0x90, 1])
            expected.append((base, Int32(bases.count + index)))
        }
        let parser = try PackStreamParser(format: .sha1)
        try parser.append(builder.bytes()[...])
        _ = try parser.finish()
        var table = parser.takeTable()
        #expect(table.referenceDeltas.count == expected.count)
        let plan = DeltaResolutionPlan(packPath: "/nonexistent.pack", table: &table, cacheLimitPerThread: 1 << 20)
        #expect(table.referenceDeltas.isEmpty)
        #expect(plan.referenceChildren.count == expected.count)
        let inOrder = plan.referenceChildren.inPackOrder()
        #expect(inOrder.map(\.base) == expected.map(\.base))
        #expect(inOrder.map(\.delta) == expected.map(\.delta))
        for base in bases { #expect(plan.referenceChildren(of: base).count == 5) }
    }
}
