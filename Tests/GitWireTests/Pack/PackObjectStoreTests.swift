import GitWire
import GitWireTestSupport
import Testing

/// Loose objects, packs read through their index, and the object database, against git.
@Suite struct PackObjectStoreTests {
    @Test func looseObjectsWrittenByGitwireReadByGit() throws {
        let directory = try TemporaryDirectory()
        let repository = directory.appending("r.git")
        try git(["init", "-q", "--bare", repository])
        let store = LooseObjectStore(objectsDirectory: "\(repository)/objects", format: .sha1)
        var random = SeededRandom(seed: 7)
        let objects = [
            GitObject(type: .blob, data: []),
            GitObject(type: .blob, data: Array("hello\n".utf8)),
            GitObject(type: .blob, data: random.bytes(300_000)),
        ]
        for object in objects {
            let id = try store.write(object)
            #expect(try gitText(["cat-file", "-t", id.hex], in: repository) == object.type.name)
            #expect(try git(["cat-file", object.type.name, id.hex], in: repository).standardOutput == object.data)
            #expect(try store.write(object) == id)
        }
        let tree = GitObject(type: .tree, data: Array("100644 hello\0".utf8) + (try objects[1].id(.sha1)).bytes)
        let treeID = try store.write(tree)
        let commit = GitObject(
            type: .commit,
            data: Array("tree \(treeID)\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nmessage\n".utf8))
        let commitID = try store.write(commit)
        #expect(try gitText(["rev-parse", "\(commitID):hello"], in: repository) == objects[1].id(.sha1).hex)
        try git(["fsck", "--strict", "--no-dangling"], in: repository)
    }

    @Test func looseObjectsWrittenByGitReadByGitwire() throws {
        let directory = try TemporaryDirectory()
        let repository = directory.appending("r.git")
        try git(["init", "-q", "--bare", repository])
        let store = LooseObjectStore(objectsDirectory: "\(repository)/objects", format: .sha1)
        var random = SeededRandom(seed: 3)
        for content in [[], Array("some text\n".utf8), random.bytes(100_000)] as [[UInt8]] {
            let written = ObjectID(
                try git(["hash-object", "-w", "--stdin"], in: repository, input: content).text.trimmingSuffix())!
            #expect(try store.object(written) == GitObject(type: .blob, data: content))
            #expect(try GitObject(type: .blob, data: content).id(.sha1) == written)
        }
        #expect(try store.object(ObjectID(String(repeating: "0", count: 39) + "1")!) == nil)
    }

    @Test func corruptLooseObjectsAreRejected() throws {
        let good = try LooseObjectStore.encode(GitObject(type: .blob, data: Array("hello world\n".utf8)))
        #expect(try LooseObjectStore.decode(good[...]) == GitObject(type: .blob, data: Array("hello world\n".utf8)))
        #expect(throws: LooseObjectError.self) { try LooseObjectStore.decode(good.dropLast(3)) }
        #expect(throws: LooseObjectError.trailingGarbage) { try LooseObjectStore.decode((good + [0])[...]) }
        let cases: [(String, LooseObjectError)] = [
            ("blob 11\0hello world\n", .sizeMismatch), ("blob 13\0hello world\n", .sizeMismatch),
            ("blub 12\0hello world\n", .badHeader), ("blob 012\0hello world\n", .badHeader),
            ("blob x\0hello", .badHeader), ("blob12\0hello world\n", .badHeader),
        ]
        for (text, error) in cases {
            let bytes = try Deflater().deflateWhole(Array(text.utf8)[...])
            #expect(throws: error) { try LooseObjectStore.decode(bytes[...]) }
        }
    }

    @Test func objectDatabaseReadsEveryObjectOfAPackedRepository() throws {
        let fixture = FixtureRepository.shared
        let database = try ObjectDatabase(gitDirectory: fixture.path)
        let batch = try git(["cat-file", "--batch-all-objects", "--batch"], in: fixture.path).standardOutput
        var position = 0
        var count = 0
        while position < batch.count {
            let lineEnd = batch[position...].firstIndex(of: 10)!
            let fields = String(decoding: batch[position..<lineEnd], as: UTF8.self).split(separator: " ")
            let size = Int(fields[2])!
            let id = ObjectID(String(fields[0]))!
            let expected = GitObject(
                type: ObjectType(name: fields[1].utf8)!, data: Array(batch[(lineEnd + 1)..<(lineEnd + 1 + size)]))
            #expect(try database.object(id) == expected)
            #expect(database.contains(id))
            position = lineEnd + 1 + size + 1
            count += 1
        }
        #expect(count > 1000)
        #expect(try database.object(ObjectID(String(repeating: "f", count: 40))!) == nil)
    }

    @Test func packIndexLooksUpEveryObject() throws {
        let directory = try TemporaryDirectory()
        let pack = try FixtureRepository.shared.pack(["--no-reuse-delta"])
        _ = try gitIndex(of: pack, in: directory)
        let index = try PackIndex(path: directory.appending("git.idx"), format: .sha1)
        let listing = try git(["show-index"], in: directory.path, input: readFile(directory.appending("git.idx"))).text
        var lines = 0
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: " ")
            let id = ObjectID(String(fields[1]))!
            #expect(index.offset(of: id) == UInt64(fields[0]))
            lines += 1
        }
        #expect(lines == index.count)
        #expect(index.packChecksum == ObjectID(bytes: pack.suffix(20), format: .sha1))
        var broken = try readFile(directory.appending("git.idx"))
        try index.verifyChecksum()
        // A flipped bit in the names: the index still opens, as git opens it, and its checksum
        // check (git verify-pack's) finds it.
        broken[2000] ^= 1
        let opened = try PackIndex(bytes: broken, format: .sha1)
        #expect(throws: PackIndexError.checksumMismatch) { try opened.verifyChecksum() }
        // A fan-out that goes down is refused when the index is opened.
        var badFanOut = try readFile(directory.appending("git.idx"))
        badFanOut[8 + 4 * 10 + 3] = 0xff
        #expect(throws: PackIndexError.badFanOut(bucket: 11)) { try PackIndex(bytes: badFanOut, format: .sha1) }
    }
}

extension String {
    /// The string without a trailing newline.
    fileprivate func trimmingSuffix() -> String { hasSuffix("\n") ? String(dropLast()) : self }
}
