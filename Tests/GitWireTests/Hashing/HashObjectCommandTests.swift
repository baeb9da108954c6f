import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `gitwire hash-object` prints what `git hash-object` prints, with the same exit status, for the
/// options it supports.
@Suite("hash-object command")
struct HashObjectCommandTests {
    /// Runs the same arguments (and standard input) through git and gitwire in `directory`.
    func expectSame(_ arguments: [String], input: [UInt8] = [], in directory: String) throws {
        let expected = try git(["hash-object"] + arguments, in: directory, input: input, check: false)
        let actual = try run(
            [gitwireExecutable, "hash-object"] + arguments, in: directory, input: input, check: false)
        #expect(actual.status == expected.status, "\(arguments): \(actual.errorText)")
        #expect(actual.text == expected.text, "\(arguments)")
        #expect(actual.errorText == expected.errorText, "\(arguments)")
    }

    @Test func filesAndStandardInput() throws {
        var generator = SystemRandomNumberGenerator()
        let directory = try TemporaryDirectory(prefix: "gitwire-hash-object")
        var names: [String] = []
        for size in [0, 55, 56, 64, 1000, 100_000] {
            let name = "file-\(size)"
            try writeFile(
                directory.appending(name), (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
            names.append(name)
        }
        let input = Array("hello from standard input\n".utf8)
        try expectSame(names, in: directory.path)
        try expectSame(["--stdin"], input: input, in: directory.path)
        try expectSame(["--stdin"] + names.prefix(2), input: input, in: directory.path)
        try expectSame(["--no-filters", "-t", "blob"] + names.suffix(2), in: directory.path)
        try expectSame([], in: directory.path)
        try expectSame(["--literally", "-t", "nonsense", names[3]], in: directory.path)
        try expectSame(["--stdin", "--literally", "-t", "commit"], input: input, in: directory.path)
    }

    @Test func failuresLikeGit() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-hash-object")
        try writeFile(directory.appending("present"), Array("x".utf8))
        try expectSame(["missing"], in: directory.path)
        try expectSame(["present", "missing"], in: directory.path)
        try expectSame(["-t", "nonsense", "present"], in: directory.path)
    }

    /// The attack files are ordinary blobs to both (the object header moves the attack blocks),
    /// and their ids agree.
    @Test func attackFilesAreBlobsToBoth() throws {
        let folder = SHA1CollisionDetectionTests.collisionFiles
        try expectSame(
            ["shattered-1.pdf", "shattered-2.pdf", "sha-mbles-1.bin", "sha-mbles-2.bin"], in: folder)
    }

    /// `-w` writes loose objects that git reads back, with the names git gives them.
    @Test func writesLooseObjects() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-hash-object")
        let repository = directory.appending("repo")
        try git(["init", "-q", repository])
        let content = Array((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try writeFile(directory.appending("data"), content)
        let expected = try git(["hash-object", directory.appending("data")]).text
        let written = try run(
            [gitwireExecutable, "hash-object", "-w", directory.appending("data")], in: repository, check: false)
        #expect(written.status == 0, "\(written.errorText)")
        #expect(written.text == expected)
        let id = String(expected.dropLast())
        #expect(try git(["cat-file", "-t", id], in: repository).text == "blob\n")
        #expect(try git(["cat-file", "blob", id], in: repository).standardOutput == content)
        #expect(try git(["fsck", "--full"], in: repository, check: false).status == 0)
        let outside = try run([gitwireExecutable, "hash-object", "-w", "data"], in: directory.path, check: false)
        let gitOutside = try git(["hash-object", "-w", "data"], in: directory.path, check: false)
        #expect(outside.status == gitOutside.status)
        #expect(outside.errorText == gitOutside.errorText)
    }
}
