import Foundation
import GitWireTestSupport
import Testing

@testable import GitWire
@testable import GitWirePOSIX

/// How the push reads objects cheaply: sizes from headers (a loose object's, a delta's), and the
/// delta search's readers opened again without reading the pack indexes again. Each answer is
/// compared with what git says about the same repository.
@Suite("Push reading")
struct PushReadingTests {
    /// A repository with loose objects of every kind and a pack with deltas: a file grown over
    /// 8 commits, packed, then 3 more commits left loose.
    private func makeRepository(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.appending("repository")
        try git(["init", "--quiet", "--initial-branch=main", path])
        for index in 1...11 {
            let text = (0..<(index * 40)).map { "line \($0) of a file that grows, commit \(min($0, index))\n" }.joined()
            try text.write(toFile: "\(path)/grown.txt", atomically: true, encoding: .utf8)
            try git(["add", "grown.txt"], in: path)
            try git(["commit", "--quiet", "-m", "commit \(index)"], in: path)
            if index == 8 { try git(["repack", "-adq"], in: path) }
        }
        try git(["tag", "-a", "-m", "a tag", "v1"], in: path)
        return "\(path)/.git"
    }

    /// Every object of the repository with git's type and size (`cat-file --batch-check`).
    private func gitObjects(_ gitDirectory: String) throws -> [(ObjectID, String, Int)] {
        try git(["cat-file", "--batch-all-objects", "--batch-check"], environment: ["GIT_DIR": gitDirectory]).text
            .split(separator: "\n").map { line in
                let parts = line.split(separator: " ")
                return (ObjectID(hex: Array(parts[0].utf8), format: .sha1)!, String(parts[1]), Int(parts[2])!)
            }
    }

    @Test("a loose object's header gives git's type and size without inflating the rest")
    func looseHeaders() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-push-reading")
        let gitDirectory = try makeRepository(directory)
        let database = try ObjectDatabase(gitDirectory: gitDirectory)
        var loose = 0
        for (id, type, size) in try gitObjects(gitDirectory) {
            guard let header = try database.loose.header(id) else { continue }
            loose += 1
            #expect(header.type.name == type && header.size == size, "\(id.hex)")
        }
        #expect(loose >= 10)
        #expect(
            try database.loose.header(ObjectID(hex: Array(String(repeating: "1", count: 40).utf8), format: .sha1)!)
                == nil)
    }

    @Test("a loose object whose stream is not zlib is an error naming its file")
    func corruptLooseHeader() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-push-reading")
        let gitDirectory = try makeRepository(directory)
        let database = try ObjectDatabase(gitDirectory: gitDirectory)
        let id = try #require(try gitObjects(gitDirectory).first { (try? database.loose.header($0.0)) != nil }?.0)
        let path = database.loose.path(of: id)
        try FileManager.default.removeItem(atPath: path)
        try Array("not a zlib stream at all".utf8).withUnsafeBytes {
            try Data($0).write(to: URL(fileURLWithPath: path))
        }
        #expect(throws: LooseObjectFileError.self) { try database.loose.header(id) }
    }

    @Test("a delta's result size, read from the start of its data, is git's size of the object")
    func deltaSizes() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-push-reading")
        let gitDirectory = try makeRepository(directory)
        let database = try ObjectDatabase(gitDirectory: gitDirectory)
        let sizes = Dictionary(try gitObjects(gitDirectory).map { ($0.0, $0.2) }, uniquingKeysWith: { a, _ in a })
        let pack = try #require(database.packs.first)
        let inflater = try Inflater()
        var deltas = 0
        for position in 0..<pack.index.count {
            let id = pack.index.id(at: position)
            let entry = try #require(try pack.entry(of: id))
            if case .object = entry.header.kind { continue }
            deltas += 1
            let start = entry.range.lowerBound + UInt64(entry.header.length)
            let compressed = try pack.file.read(
                at: Int64(start), count: Int(min(entry.range.upperBound - start, 1024)))
            let prefix = try inflater.inflatePrefix(compressed[...], count: 20)
            #expect(PackWriter.deltaResultSize(prefix) == sizes[id], "\(id.hex)")
        }
        #expect(deltas > 0)
        #expect(PackWriter.deltaResultSize([0x80]) == nil)
        #expect(PackWriter.deltaResultSize([0x05, 0x80, 0x01]) == 128)
    }

    @Test("a database opened again reads every object as the first does, sharing its indexes")
    func reopenedDatabase() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-push-reading")
        let gitDirectory = try makeRepository(directory)
        let database = try ObjectDatabase(gitDirectory: gitDirectory)
        let again = try database.reopened()
        #expect(again.packs.count == database.packs.count && !again.packs.isEmpty)
        for (id, type, size) in try gitObjects(gitDirectory) {
            let object = try #require(try again.object(id))
            #expect(object.type.name == type && object.data.count == size)
            #expect(object == (try database.object(id)))
        }
    }

    /// A reopened database shares the descriptors its packs were first opened (and checked)
    /// with, as git keeps its packs open: a pack replaced on disk since (a repack) is not read.
    @Test("a pack replaced on disk after the first opening is not read when opened again")
    func reopenedPackChanged() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-push-reading")
        let gitDirectory = try makeRepository(directory)
        let database = try ObjectDatabase(gitDirectory: gitDirectory)
        let packPath = try #require(database.packs.first?.packPath)
        let objects = try gitObjects(gitDirectory)
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: packPath)))
        bytes[bytes.count - 1] ^= 0xff
        try FileManager.default.removeItem(atPath: packPath)
        try Data(bytes).write(to: URL(fileURLWithPath: packPath))
        let again = try database.reopened()
        for (id, type, size) in objects {
            let object = try #require(try again.object(id))
            #expect(object.type.name == type && object.data.count == size)
        }
    }

    @Test("the planning's map of names answers as Dictionary does, through growth, replaced values and collisions")
    func objectIDMap() {
        var generator = SystemRandomNumberGenerator()
        var map = ObjectIDMap<Int>()
        var reference: [ObjectID: Int] = [:]
        // Names sharing their first eight bytes land in one run of slots; names sharing the high
        // half of their second word too have the same tag, so only the names tell them apart.
        let shared = UInt64.random(in: .min ... .max, using: &generator)
        for round in 0..<20_000 {
            let w0 = round % 5 == 0 ? shared : UInt64.random(in: 0...3_000, using: &generator)
            let id = ObjectID(words: w0, UInt64(round % 7) << 32, UInt64(round % 200) << 32, 0, format: .sha1)
            if round % 3 == 0 {
                #expect(map.insertIfAbsent(id, round) == (reference[id] == nil))
                if reference[id] == nil { reference[id] = round }
            } else {
                map[id] = round
                reference[id] = round
            }
            #expect(map[id] == reference[id])
        }
        map[.zero(.sha1)] = -1
        reference[.zero(.sha1)] = -1
        #expect(map.count == reference.count)
        for (id, value) in reference { #expect(map[id] == value) }
        for round in 0..<2_000 {
            let id = ObjectID(words: UInt64(round), 1 << 32, 0, 0, format: .sha256)
            #expect(map[id] == reference[id])
        }
    }

    @Test("the walk's table of names answers as Set does, through growth, collisions and zero names")
    func objectIDTable() {
        var generator = SystemRandomNumberGenerator()
        var table = ObjectIDTable()
        var reference: Set<ObjectID> = []
        // Names sharing their first eight bytes land in one run of slots.
        let shared = UInt64.random(in: .min ... .max, using: &generator)
        for round in 0..<20_000 {
            let w0 = round % 7 == 0 ? shared : UInt64.random(in: 0...5_000, using: &generator)
            let id = ObjectID(
                words: w0, UInt64(round % 300), UInt64(round % 3) << 32, 0, format: round % 11 == 0 ? .sha256 : .sha1)
            #expect(table.insert(id).inserted == reference.insert(id).inserted)
        }
        for zero in [ObjectID.zero(.sha1), .zero(.sha256), .zero(.sha1)] {
            #expect(table.contains(zero) == reference.contains(zero))
            #expect(table.insert(zero).inserted == reference.insert(zero).inserted)
        }
        #expect(table.count == reference.count)
        for round in 0..<5_000 {
            let id = ObjectID(words: UInt64(round), UInt64(round % 300), 0, 0, format: .sha1)
            #expect(table.contains(id) == reference.contains(id))
        }
        for id in reference { #expect(table.contains(id)) }
    }
}
