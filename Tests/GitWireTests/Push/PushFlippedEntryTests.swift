import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A bit flipped on disk inside a stored entry that a push copies as it is (its index, its CRC-32
/// and the pack's checksum untouched, as a failing disk leaves them). git's pack-objects checks
/// the CRC-32 of reused entries only when it writes a pack file, not for a push (`--stdout`): it
/// sends the damaged bytes and the server's index-pack refuses them. gitwire checks every reused
/// entry against its CRC-32 as it copies it and stops with the object's name and its pack; the
/// server takes nothing from either.
@Suite(.serialized) struct PushFlippedEntryTests {
    /// Flips one bit in the middle of the compressed data of the largest blob stored whole in the
    /// one pack of the repository at `gitDirectory`; prints the blob's id.
    static let flip = #"""
        import glob, subprocess, sys
        pack = glob.glob(sys.argv[1] + "/objects/pack/*.pack")[0]
        listing = subprocess.run(["git", "verify-pack", "-v", pack[:-5] + ".idx"],
                                 capture_output=True, text=True, check=True).stdout
        whole = [line.split() for line in listing.splitlines()]
        whole = [(int(w[3]), int(w[4]), w[0]) for w in whole if len(w) == 5 and w[1] == "blob"]
        length, offset, oid = max(whole)
        data = bytearray(open(pack, "rb").read())
        data[offset + length // 2] ^= 0x10
        open(pack, "wb").write(data)
        print(oid)
        """#

    /// A work tree whose history (text files growing over eight commits) is in one pack with a
    /// bit flipped in a blob, an empty bare `served.git` beside it, and the blob's id.
    static func flippedRepository() throws -> (TemporaryDirectory, local: String, served: String, blob: String) {
        let directory = try TemporaryDirectory(prefix: "gitwire-flipped")
        let local = directory.appending("local")
        try git(["init", "--quiet", "--initial-branch=main", local])
        for index in 1...8 {
            let text = (1...(index * 300)).map { "line \($0) of commit \(index * $0 % 97)\n" }.joined()
            try text.write(toFile: "\(local)/f\(index % 3).txt", atomically: true, encoding: .utf8)
            try git(["add", "."], in: local)
            try git(["commit", "--quiet", "-m", "commit \(index)"], in: local)
        }
        try git(["repack", "-adq"], in: local)
        let blob = try run(["python3", "-c", flip, "\(local)/.git"]).text.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let served = directory.appending("served.git")
        try git(["init", "--quiet", "--bare", served])
        return (directory, local, served, blob)
    }

    @Test("a push of a stored entry with a flipped bit stops at its CRC-32; git's is refused by the server")
    func push() throws {
        let (directory, local, served, blob) = try Self.flippedRepository()
        defer { withExtendedLifetime(directory) {} }
        let theirs = try git(["push", "file://\(served)", "main"], in: local, check: false)
        #expect(theirs.status != 0)
        #expect(theirs.errorText.contains("unpack"), "git: \(theirs.errorText)")
        let ours = try gitwire(
            ["push", "file://\(served)", "main"], in: local, environment: reproducibleGitEnvironment)
        #expect(ours.status == 128, "gitwire: \(ours.errorText)")
        #expect(
            PushDamagedPackTests.corruptLine(ours.errorText) == "fatal: packed object \(blob) (stored in …) is corrupt",
            "gitwire: \(ours.errorText)")
        #expect(try git(["for-each-ref"], in: served).text == "")
    }

    @Test("pack-objects --stdout refuses the flipped entry; git's copies it as it is")
    func packObjects() throws {
        let (directory, local, _, blob) = try Self.flippedRepository()
        defer { withExtendedLifetime(directory) {} }
        let input = Array("main\n".utf8)
        let theirs = try git(["pack-objects", "--stdout", "--revs", "-q"], in: local, input: input, check: false)
        #expect(theirs.status == 0)
        // What git sent is refused where it is indexed.
        let check = try TemporaryDirectory(prefix: "gitwire-flipped-check")
        try git(["init", "--quiet", "--bare", check.path])
        #expect(
            try git(["index-pack", "--stdin"], in: check.path, input: theirs.standardOutput, check: false).status != 0)
        let ours = try run(
            [gitwireExecutable, "pack-objects", "--stdout", "--revs", "-q"], in: local,
            environment: reproducibleGitEnvironment, input: input, check: false)
        #expect(ours.status == 128)
        #expect(
            PushDamagedPackTests.corruptLine(ours.errorText) == "fatal: packed object \(blob) (stored in …) is corrupt")
    }

    @Test("PackWriter checks each reused entry against its index's CRC-32")
    func library() throws {
        let (directory, local, _, blob) = try Self.flippedRepository()
        defer { withExtendedLifetime(directory) {} }
        let repository = try Repository(gitDirectory: "\(local)/.git")
        let head = try #require(try repository.resolveRevision("main"))
        let error = try #require(throws: PushPackError.self) {
            let writer = try PackWriter(database: repository.objects, include: [head], exclude: [])
            while try writer.read() != nil {}
        }
        guard case .corruptPacked(let id, let path) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(id.hex == blob)
        #expect(path.hasSuffix(".pack"))
    }
}
