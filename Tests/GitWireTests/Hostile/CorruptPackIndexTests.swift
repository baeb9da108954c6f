import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A damaged `.idx` in the user's own repository (opened without its checksum, as git opens
/// it): offsets past the pack's end or inside its header are refused with an error when the
/// pack is opened, never a crash, and a push from such a repository fails before anything is
/// sent, as git's does.
@Suite struct CorruptPackIndexTests {
    /// A repository of a few commits, all in one pack; its `.idx` path and object count.
    static func packedRepository(_ directory: TemporaryDirectory) throws -> (repository: String, index: String) {
        let repository = directory.appending("local")
        try git(["init", "--quiet", "--initial-branch=main", repository])
        for index in 1...4 {
            try "file \(index)\n".write(toFile: "\(repository)/f\(index)", atomically: true, encoding: .utf8)
            try git(["add", "."], in: repository)
            try git(
                ["commit", "--quiet", "-m", "c\(index)"], in: repository,
                environment: ["GIT_COMMITTER_DATE": "\(1_700_000_000 + index) +0000"])
        }
        try git(["repack", "-adq"], in: repository)
        let packs = try FileManager.default.contentsOfDirectory(atPath: "\(repository)/.git/objects/pack")
        let index = packs.first { $0.hasSuffix(".idx") }!
        return (repository, "\(repository)/.git/objects/pack/\(index)")
    }

    /// The index bytes with the 4-byte offset word of entry `position` set to `word`, and
    /// `largeOffsets` (8 bytes each) put before the trailer.
    static func damaged(_ bytes: [UInt8], position: Int, word: UInt32, largeOffsets: [UInt64] = []) -> [UInt8] {
        var bytes = bytes
        let count =
            Int(bytes[8 + 255 * 4]) << 24 | Int(bytes[8 + 255 * 4 + 1]) << 16 | Int(bytes[8 + 255 * 4 + 2]) << 8
            | Int(bytes[8 + 255 * 4 + 3])
        let at = 8 + 1024 + count * 20 + count * 4 + position * 4
        for shift in 0..<4 { bytes[at + shift] = UInt8(truncatingIfNeeded: word >> (24 - 8 * shift)) }
        let table = largeOffsets.flatMap { value in (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }
        bytes.insert(contentsOf: table, at: bytes.count - 40)
        return bytes
    }

    static let damages: [(String, UInt32, [UInt64])] = [
        ("past the end", 0x7fff_fff0, []),
        ("inside the header", 5, []),
        ("a large offset past the end", 0x8000_0000, [1 << 40]),
        ("a large offset beyond Int64", 0x8000_0000, [UInt64.max - 3]),
    ]

    @Test("a pack index whose offsets point outside the pack is refused when the pack is opened", arguments: 0..<4)
    func openingRefuses(_ damage: Int) throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-corrupt-idx")
        let (repository, index) = try Self.packedRepository(directory)
        let (name, word, large) = Self.damages[damage]
        let original = try readFile(index)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: index)
        try Data(Self.damaged(original, position: 1, word: word, largeOffsets: large)).write(
            to: URL(fileURLWithPath: index))
        let pack = String(index.dropLast(4)) + ".pack"
        #expect(throws: PackIndexError.self, "\(name)") { try PackReader(packPath: pack, format: .sha1) }

        // A push from the repository: git dies reading the object (`offset beyond end of
        // packfile`, or a bad object); gitwire fails before sending, with a fatal error.
        let served = directory.appending("served.git")
        try git(["init", "--quiet", "--bare", served])
        let output = try gitwire(["push", served, "main"], in: repository)
        #expect(output.status == 128, "\(name): \(output.errorText)")
        #expect(output.errorText.hasPrefix("fatal: "), "\(name): \(output.errorText)")
        #expect(output.errorText.contains("pack index"), "\(name): \(output.errorText)")
        let fromGit = try git(["push", served, "main"], in: repository, check: false)
        #expect(fromGit.status != 0, "\(name): \(fromGit.errorText)")
        #expect(try git(["for-each-ref"], in: served).text == "")
    }

    /// git's load_idx allows at most one large offset per object but the first: a larger table
    /// ("wrong index file size") is refused, a huge one before the file is read whole.
    @Test("a pack index with more large offsets than objects is refused, as git refuses it", arguments: [1, 1 << 21])
    func largeOffsetTableBounded(_ extra: Int) throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-corrupt-idx")
        let (repository, index) = try Self.packedRepository(directory)
        let original = try readFile(index)
        let count = try PackIndex(bytes: original, format: .sha1).count
        // count - 1 large offsets is the most an index may hold: that many is accepted.
        let most = Self.damaged(
            original, position: 0, word: 0x8000_0000, largeOffsets: Array(repeating: 12, count: count - 1))
        #expect(try PackIndex(bytes: most, format: .sha1).offset(at: 0) == 12)
        let damaged = Self.damaged(
            original, position: 0, word: 0x8000_0000, largeOffsets: Array(repeating: 12, count: count - 1 + extra))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: index)
        try Data(damaged).write(to: URL(fileURLWithPath: index))
        #expect(throws: PackIndexError.badSize(damaged.count, objects: count)) {
            try PackIndex(path: index, format: .sha1)
        }
        #expect(throws: PackIndexError.badSize(damaged.count, objects: count)) {
            try PackIndex(bytes: damaged, format: .sha1)
        }
        let fromGit = try git(["cat-file", "-p", "HEAD"], in: repository, check: false)
        #expect(fromGit.errorText.contains("wrong index v2 file size"), "\(fromGit.errorText)")
        let served = directory.appending("served.git")
        try git(["init", "--quiet", "--bare", served])
        let output = try gitwire(["push", served, "main"], in: repository)
        #expect(output.status == 128, "\(output.errorText)")
        #expect(
            output.errorText.contains("pack index size \(damaged.count) does not fit \(count) objects"),
            "\(output.errorText)")
    }
}
