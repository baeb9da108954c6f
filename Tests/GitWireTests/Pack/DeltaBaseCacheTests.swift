import Foundation
import GitWireTestSupport
import Testing

@testable import GitWire

/// The delta base cache: least recently used dropped first within its bound, and packs read
/// through it give git's objects whatever the bound.
@Suite struct DeltaBaseCacheTests {
    @Test func cacheDropsTheLeastRecentlyUsedAsAListWould() {
        var random = SeededRandom(seed: 11)
        for limit in [0, 1, 700, 5000] {
            var cache = DeltaBaseCache<Int>(limit: limit)
            // The model: (key, size), most recently used last.
            var model: [(key: Int, size: Int)] = []
            for _ in 0..<4000 {
                let key = Int(random.next() % 40)
                if random.next() % 2 == 0 {
                    let found = cache.object(at: key)
                    if let place = model.firstIndex(where: { $0.key == key }) {
                        #expect(found?.data.count == model[place].size)
                        #expect(found?.data.first == UInt8(truncatingIfNeeded: key))
                        model.append(model.remove(at: place))
                    } else {
                        #expect(found == nil)
                    }
                } else {
                    let size = Int(random.next() % (random.next() % 8 == 0 ? 6000 : 400)) + 1
                    let object = GitObject(
                        type: .tree, data: [UInt8](repeating: UInt8(truncatingIfNeeded: key), count: size))
                    cache.insert(object, at: key)
                    if let place = model.firstIndex(where: { $0.key == key }) {
                        model.append(model.remove(at: place))
                    } else if size <= limit {
                        while model.reduce(0, { $0 + $1.size }) + size > limit { model.removeFirst() }
                        model.append((key, size))
                    }
                }
                #expect(cache.count == model.count)
                #expect(cache.size == model.reduce(0) { $0 + $1.size })
                #expect(cache.size <= limit)
            }
        }
    }

    @Test func packReadThroughAnyCacheBoundGivesGitsObjects() throws {
        let directory = try TemporaryDirectory()
        // Deep chains: every tree and text blob a delta on a delta.
        let pack = try FixtureRepository.shared.pack(["--no-reuse-delta", "--window=50", "--depth=50"])
        _ = try gitIndex(of: pack, in: directory)
        let packPath = directory.appending("git.pack")
        let verify = try gitText(["verify-pack", "-v", packPath], in: directory.path)
        let depths = verify.split(separator: "\n").compactMap { line -> Int? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count == 7 ? Int(fields[5]) : nil
        }
        #expect(depths.max() ?? 0 >= 10)
        let batch = try git(["cat-file", "--batch-all-objects", "--batch"], in: FixtureRepository.shared.path)
            .standardOutput
        var expected: [(ObjectID, GitObject)] = []
        var position = 0
        while position < batch.count {
            let lineEnd = batch[position...].firstIndex(of: 10)!
            let fields = String(decoding: batch[position..<lineEnd], as: UTF8.self).split(separator: " ")
            let size = Int(fields[2])!
            expected.append(
                (
                    ObjectID(String(fields[0]))!,
                    GitObject(
                        type: ObjectType(name: fields[1].utf8)!,
                        data: Array(batch[(lineEnd + 1)..<(lineEnd + 1 + size)]))
                ))
            position = lineEnd + 1 + size + 1
        }
        var random = SeededRandom(seed: 5)
        for limit in [0, 3000, 200_000, PackBaseCache.defaultLimit] {
            let cache = PackBaseCache(limit: limit)
            let reader = try PackReader(packPath: packPath, indexPath: nil, format: .sha1, baseCache: cache)
            #expect(reader.index.count == expected.count)
            // In pack order, then twice at random, so that hits, misses and evictions mix.
            var order = Array(expected.indices)
            for round in 0..<3 {
                if round > 0 {
                    for place in order.indices.dropLast() {
                        order.swapAt(place, place + Int(random.next() % UInt64(order.count - place)))
                    }
                }
                for place in order {
                    let (id, object) = expected[place]
                    #expect(try reader.object(id) == object)
                }
                #expect(cache.cache.size <= limit)
            }
            #expect(limit == 0 ? cache.cache.count == 0 : cache.cache.count > 0)
        }
    }
}

/// The radix sort of pack offsets, against the standard library's sort.
@Suite struct OffsetSortTests {
    @Test func sortsAsTheStandardLibraryDoes() {
        var random = SeededRandom(seed: 19)
        for count in [0, 1, 2, 64, 65, 1000, 70_000] {
            for bits: UInt64 in [8, 16, 17, 32, 33, 48, 63, 64] {
                let mask = bits == 64 ? UInt64.max : (1 << bits) - 1
                let values = (0..<count).map { _ in random.next() & mask }
                #expect(OffsetSort.sorted(values) == values.sorted())
            }
        }
    }
}
