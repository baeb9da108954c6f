import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `SHA1` detects the public SHA-1 collision attacks on raw input, on every code path and in any
/// chunking, and hashes everything else exactly as plain SHA-1 (coreutils' `sha1sum`, an
/// implementation of its own) and `git hash-object` do.
@Suite("SHA-1 collision detection")
struct SHA1CollisionDetectionTests {
    static let collisionFiles = "\(fixturesDirectory)/sha1-collisions"

    /// The code paths this CPU can take.
    static var paths: [SHA1Paths] { SHA1Paths.allCases.filter(\.isAvailable) }

    /// Hashes `bytes` on `paths`, handing them over in pieces of `chunk` bytes.
    static func checkedHash(
        _ bytes: [UInt8], paths: SHA1Paths = .fastest, chunk: Int? = nil, reducedRound: Bool = false
    ) -> Result<ObjectID, SHA1CollisionError> {
        var sha = SHA1(paths: paths, detectReducedRoundCollisions: reducedRound)
        let step = max(chunk ?? bytes.count, 1)
        var start = 0
        while start < bytes.count {
            sha.update(bytes[start..<min(start + step, bytes.count)])
            start += step
        }
        return Result { () throws(SHA1CollisionError) in try sha.finish() }
    }

    enum AttackPair: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case shattered, shambles

        var testDescription: String { rawValue }

        var files: [String] {
            switch self {
            case .shattered: return ["shattered-1.pdf", "shattered-2.pdf"]
            case .shambles: return ["sha-mbles-1.bin", "sha-mbles-2.bin"]
            }
        }
    }

    /// Both files of each pair have the same plain SHA-1 (they are a collision), and the checked
    /// hash refuses both, on every path and chunking, with git's message; the safe hashes it
    /// reports differ from the collision and from each other.
    @Test(arguments: AttackPair.allCases)
    func detectsThePublicAttacks(_ pair: AttackPair) throws {
        let contents = try pair.files.map { try readFile("\(Self.collisionFiles)/\($0)") }
        let plain = contents.map { UncheckedSHA1.hash($0[...]) }
        #expect(contents[0] != contents[1])
        #expect(plain[0] == plain[1])
        var safeHashes: [ObjectID] = []
        for content in contents {
            var seen: Set<ObjectID> = []
            for paths in Self.paths {
                for chunk in [nil, 1, 63, 64, 65, 4096] where chunk != 1 || content.count < 10_000 {
                    switch Self.checkedHash(content, paths: paths, chunk: chunk) {
                    case .success(let id):
                        Issue.record("\(paths), chunks of \(chunk ?? content.count): not detected, hashed to \(id)")
                    case .failure(let error):
                        seen.insert(error.safeHash)
                        #expect(error.kind == .pack)
                        #expect(
                            error.description == "SHA-1 appears to be part of a collision attack: \(error.safeHash.hex)"
                        )
                    }
                }
            }
            #expect(seen.count == 1, "every path and chunking reports the same safe hash")
            safeHashes.append(contentsOf: seen)
        }
        #expect(safeHashes.count == 2 && safeHashes[0] != safeHashes[1])
        #expect(!safeHashes.contains(plain[0]))
    }

    /// A collision of reduced-round SHA-1 is reported only when asked for.
    @Test func reducedRoundCollisionsOnlyOnRequest() throws {
        let content = try readFile("\(Self.collisionFiles)/sha1_reducedsha_coll.bin")
        for paths in Self.paths {
            #expect(try Self.checkedHash(content, paths: paths).get() == UncheckedSHA1.hash(content[...]))
            guard case .failure = Self.checkedHash(content, paths: paths, reducedRound: true) else {
                Issue.record("\(paths): reduced-round collision not detected")
                continue
            }
        }
    }

    /// Edge sizes around the 55/56-byte padding limit and the block and eight-block batch
    /// boundaries, and random sizes up to several megabytes of random bytes (about one block in
    /// twenty meets some vector's conditions and takes the full check): the checked hash, on
    /// every path, and the unchecked one equal coreutils' `sha1sum`.
    @Test func ordinaryDataHashesAsPlainSHA1() throws {
        var generator = SystemRandomNumberGenerator()
        var sizes = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 511, 512, 513, 575, 576, 1023, 1024, 4097]
        sizes += (0..<6).map { _ in Int.random(in: 0..<(3 << 20), using: &generator) }
        for size in sizes {
            let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let sum = try run(["sha1sum"], input: bytes).text.prefix(40)
            let expected = try #require(ObjectID(String(sum)))
            #expect(UncheckedSHA1.hash(bytes[...]) == expected, "\(size) bytes")
            for paths in Self.paths {
                #expect(try Self.checkedHash(bytes, paths: paths).get() == expected, "\(size) bytes, \(paths)")
            }
        }
    }

    /// Every split of a buffer into two updates, and random chunkings of a larger one, give the
    /// digest of the whole.
    @Test func anySplitGivesTheSameDigest() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<1300).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let expected = UncheckedSHA1.hash(bytes[...])
        for split in 0...bytes.count {
            var sha = SHA1()
            sha.update(bytes[..<split])
            sha.update(bytes[split...])
            #expect(try sha.finish() == expected, "split at \(split)")
        }
        let large = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let largeExpected = UncheckedSHA1.hash(large[...])
        for _ in 0..<20 {
            var sha = SHA1()
            var start = 0
            while start < large.count {
                let end = min(large.count, start + Int.random(in: 0...9000, using: &generator))
                sha.update(large[start..<end])
                start = end
            }
            #expect(try sha.finish() == largeExpected)
        }
    }

    /// Object ids of random blobs of many sizes are those `git hash-object` prints for the same
    /// files (one git run for all of them).
    @Test func blobIDsMatchGit() throws {
        var generator = SystemRandomNumberGenerator()
        let directory = try TemporaryDirectory(prefix: "gitwire-sha1dc")
        var sizes = [0, 1, 43, 44, 55, 56, 63, 64, 65, 500, 501, 4096]
        sizes += (0..<5).map { _ in Int.random(in: 0..<(4 << 20), using: &generator) }
        var paths: [String] = []
        var ids: [ObjectID] = []
        for (number, size) in sizes.enumerated() {
            let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let path = directory.appending("blob-\(number)")
            try writeFile(path, bytes)
            paths.append(path)
            ids.append(try ObjectID.of(type: .blob, data: bytes[...], format: .sha1))
        }
        let printed = try git(["hash-object", "--no-filters"] + paths).text
        #expect(printed == ids.map { "\($0.hex)\n" }.joined())
    }
}
