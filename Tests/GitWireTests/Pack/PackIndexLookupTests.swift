import Foundation
import GitWireCore
import GitWireTestSupport
import Testing

@testable import GitWire

/// `PackIndex.position(of:)` searches a finer fan-out than the index's own (by the first 8 to 16
/// bits of a name, about two names a slot): every object of a pack is found at its position,
/// and a name the pack lacks is not, whether it shares the first bits, the first 8 bytes or
/// nothing with the pack's names.
@Suite struct PackIndexLookupTests {
    @Test("every object of a pack is found at its position; names it lacks are not", arguments: [1, 40, 3000])
    func findsEveryObjectOfAPack(objects: Int) throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-index-lookup")
        let path = directory.appending("repository.git")
        try git(["init", "--quiet", "--bare", path])
        let input = (0..<objects).map { "blob\ndata <<END\nobject \($0)\nEND\n" }.joined()
        // fast-import leaves fewer than `fastimport.unpackLimit` objects loose.
        try git(
            ["-c", "fastimport.unpackLimit=0", "fast-import", "--quiet"], environment: ["GIT_DIR": path],
            input: Array(input.utf8))
        let packs = try FileManager.default.contentsOfDirectory(atPath: path + "/objects/pack")
        let name = try #require(packs.first { $0.hasSuffix(".idx") })
        let index = try PackIndex(path: path + "/objects/pack/" + name, format: .sha1)
        #expect(index.count == objects)
        var present: Set<ObjectID> = []
        for position in 0..<index.count {
            let id = index.id(at: position)
            present.insert(id)
            #expect(index.position(of: id) == position)
        }
        var generator = SystemRandomNumberGenerator()
        var absent: [ObjectID] = []
        for id in present {
            var bytes = id.bytes
            bytes[19] ^= 0x01  // the same first 8 bytes
            absent.append(ObjectID(bytes: bytes, format: .sha1)!)
            bytes = id.bytes
            bytes[2] ^= 0x80  // the same first byte and fan-out bucket
            absent.append(ObjectID(bytes: bytes, format: .sha1)!)
            let random = (0..<20).map { _ in UInt8.random(in: 0...255, using: &generator) }
            absent.append(ObjectID(bytes: random, format: .sha1)!)
        }
        absent += [ObjectID.zero(.sha1), ObjectID(bytes: [UInt8](repeating: 0xff, count: 20), format: .sha1)!]
        for id in absent where !present.contains(id) {
            #expect(index.position(of: id) == nil)
        }
        #expect(index.position(of: ObjectID.zero(.sha256)) == nil)
    }
}
