import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `ObjectHashBatch` (objects named sixteen at a time with AVX-512) gives every object the name
/// `git hash-object` gives it, in batches of every shape, and finds the public collision attacks
/// wherever they sit in a batch, with the safe hash the one-at-a-time path reports.
@Suite("Batched object naming")
struct ObjectHashBatchTests {
    static var paths: [SHA1Paths] { SHA1Paths.allCases.filter(\.isAvailable) }

    /// Random blobs of many sizes (around the block and padding boundaries, and large ones that
    /// outlast the other lanes), in batches of 1 to 100 objects (either side of the seven busy
    /// lanes below which the rest go to the streaming path): each name is the one git prints
    /// for the same file (one `git hash-object` run for all of them), on every code path.
    @Test func namesAsGitDoes() throws {
        var generator = SystemRandomNumberGenerator()
        var sizes = Array(0...130) + [500, 501, 4095, 4096, 4097, 65_536]
        sizes += (0..<40).map { _ in Int.random(in: 0..<40_000, using: &generator) }
        sizes += (0..<3).map { _ in Int.random(in: 200_000..<1_500_000, using: &generator) }
        sizes.shuffle(using: &generator)
        let blobs = sizes.map { size in (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let directory = try TemporaryDirectory(prefix: "gitwire-hash-batch")
        var files: [String] = []
        for (number, blob) in blobs.enumerated() {
            files.append(directory.appending("blob-\(number)"))
            try writeFile(files[number], blob)
        }
        let printed = try git(["hash-object", "--no-filters"] + files).text.split(separator: "\n").map(String.init)
        let expected = try printed.map { try #require(ObjectID($0)) }
        #expect(expected.count == blobs.count)
        for paths in Self.paths {
            for batchSize in [1, 3, 4, 5, 6, 7, 8, 16, 17, 33, 100] {
                var names: [ObjectID] = []
                var start = 0
                while start < blobs.count {
                    var batch = ObjectHashBatch()
                    for blob in blobs[start..<min(start + batchSize, blobs.count)] {
                        batch.append(type: .blob, data: blob)
                    }
                    #expect(batch.count == min(batchSize, blobs.count - start))
                    names += try batch.hashAll(paths: paths).map { try $0.get() }
                    #expect(batch.count == 0 && batch.bytes == 0)
                    start += batchSize
                }
                #expect(names == expected, "\(paths), batches of \(batchSize)")
            }
        }
        // Other types name with their own header, as one at a time does.
        var batch = ObjectHashBatch()
        for type in [ObjectType.commit, .tree, .tag] { batch.append(type: type, data: blobs[0]) }
        let named = try batch.hashAll().map { try $0.get() }
        #expect(
            named
                == [ObjectType.commit, .tree, .tag].map {
                    try! ObjectID.of(type: $0, data: blobs[0][...], format: .sha1)
                })
    }

    /// Each attack file, raw, among random data of about its size (so it shares the vector lanes)
    /// at the start, middle and end of a batch: refused with the safe hash the streaming path
    /// reports, while everything else in the batch still gets its plain SHA-1.
    @Test(arguments: SHA1CollisionDetectionTests.AttackPair.allCases)
    func findsTheAttacksInABatch(_ pair: SHA1CollisionDetectionTests.AttackPair) throws {
        var generator = SystemRandomNumberGenerator()
        for file in pair.files {
            let attack = try readFile("\(SHA1CollisionDetectionTests.collisionFiles)/\(file)")
            var streamingSHA = SHA1()
            streamingSHA.update(attack)
            let safeHash: ObjectID
            do {
                _ = try streamingSHA.finish()
                Issue.record("\(file): the streaming path did not detect the attack")
                continue
            } catch { safeHash = error.safeHash }
            let others = (0..<24).map { _ in
                (0..<Int.random(in: attack.count / 2...attack.count * 2, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            }
            for position in [0, 12, 24] {
                for paths in Self.paths {
                    var batch = ObjectHashBatch()
                    var contents = others
                    contents.insert(attack, at: position)
                    for content in contents { batch.append(raw: content) }
                    let results = batch.hashAll(paths: paths)
                    for (index, result) in results.enumerated() {
                        if index == position {
                            #expect(result == .failure(SHA1CollisionError(safeHash: safeHash)), "\(file), \(paths)")
                        } else {
                            #expect(result == .success(UncheckedSHA1.hash(contents[index][...])), "\(paths)")
                        }
                    }
                }
            }
        }
    }

    /// Batches of two to six objects and the last lanes of a larger batch are hashed two at a
    /// time on the SHA extensions, each message with its own checks: an attack file paired with
    /// a longer, a shorter and an equally long message, at every position of such a batch, is
    /// refused with the streaming path's safe hash, and the message beside it keeps its plain
    /// name. After an object header the file is no attack, and is named as the streaming path
    /// names it.
    @Test(arguments: SHA1CollisionDetectionTests.AttackPair.allCases)
    func findsTheAttacksInPairs(_ pair: SHA1CollisionDetectionTests.AttackPair) throws {
        var generator = SystemRandomNumberGenerator()
        let attack = try readFile("\(SHA1CollisionDetectionTests.collisionFiles)/\(pair.files[0])")
        let lengths = [attack.count, attack.count - 1, attack.count + 1, attack.count / 3, attack.count * 2 + 100, 10]
        let others = lengths.map { length in
            (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        func streamed(_ type: ObjectType?, _ data: [UInt8]) -> Result<ObjectID, SHA1CollisionError> {
            var sha = SHA1()
            if let type { sha.update(type.header(size: data.count)) }
            sha.update(data)
            do { return .success(try sha.finish()) } catch { return .failure(error) }
        }
        for paths in Self.paths {
            for size in [2, 3, 5, 6, 8, 17] {
                for position in 0..<min(size, 6) {
                    for type in [nil, ObjectType.blob] {
                        var contents = (0..<size - 1).map { others[$0 % others.count] }
                        contents.insert(attack, at: size >= 8 ? size - 1 - position : position)
                        var batch = ObjectHashBatch()
                        for content in contents {
                            if let type { batch.append(type: type, data: content) } else { batch.append(raw: content) }
                        }
                        let results = batch.hashAll(paths: paths)
                        let expected = contents.map { streamed(type, $0) }
                        #expect(results == expected, "\(paths), \(size) objects, attack at \(position)")
                        // Raw, the file is the attack; after a header it is other data.
                        #expect(results.filter { (try? $0.get()) == nil }.count == (type == nil ? 1 : 0))
                    }
                }
            }
        }
    }
}
