import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// SHA-256 hashing and packs (issue 22): the digest is coreutils' `sha256sum`'s on every code
/// path, `hash-object` names objects as git does in a SHA-256 repository, and `index-pack
/// --object-format=sha256` writes the `.idx` `git index-pack --object-format=sha256` writes.
@Suite("SHA-256 hashing and packs")
struct SHA256PackTests {
    static let repositories = SHA256Repositories.shared

    @Test(arguments: SHA256Paths.allCases)
    func digestsAreSha256sums(_ paths: SHA256Paths) throws {
        var generator = SystemRandomNumberGenerator()
        let directory = try TemporaryDirectory()
        var sizes = [0, 1, 3, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4096, 65_537]
        sizes += (0..<8).map { _ in Int.random(in: 0..<300_000, using: &generator) }
        for size in sizes {
            let data = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try writeFile(directory.appending("data"), data)
            let expected = String(try run(["sha256sum", directory.appending("data")]).text.prefix(64))
            var whole = SHA256(paths: paths)
            whole.update(data)
            #expect(whole.finish().hex == expected, "\(size) bytes")
            // In pieces of every small size and some odd ones: the same digest.
            for piece in [1, 7, 63, 64, 65, 1000] where size < 70_000 || piece >= 63 {
                var pieces = SHA256(paths: paths)
                var start = 0
                while start < data.count {
                    pieces.update(data[start..<min(data.count, start + piece)])
                    start += piece
                }
                #expect(pieces.finish().hex == expected, "\(size) bytes in pieces of \(piece)")
            }
        }
        #expect(SHA256.hash([][...]).hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// Batches name objects as one by one does, and as git does.
    @Test func batchesNameObjectsAsGitDoes() throws {
        var batch = ObjectHashBatch(format: .sha256)
        var objects: [GitObject] = []
        for index in 0..<40 {
            let data = Array(String(repeating: "object \(index) ", count: index * 7).utf8)
            let type = [ObjectType.blob, .tree, .commit, .tag][index % 4]
            objects.append(GitObject(type: type, data: data))
            batch.append(type: type, data: data)
        }
        let named = try batch.hashAll().map { try $0.get() }
        #expect(named == (try objects.map { try $0.id(.sha256) }))
        let directory = try TemporaryDirectory()
        try git(["init", "-q", "--object-format=sha256", directory.path])
        for (object, id) in zip(objects.prefix(8), named) {
            let theirs = try git(
                ["hash-object", "--literally", "-t", object.type.name, "--stdin"], in: directory.path,
                input: object.data)
            #expect(theirs.text == "\(id.hex)\n")
        }
    }

    /// `hash-object`: in a SHA-256 repository (or with `--object-format=sha256`) the ids git's
    /// `hash-object` prints there; `-w` writes objects git reads back.
    @Test func hashObjectNamesAsGitDoesInASHA256Repository() throws {
        let directory = try TemporaryDirectory()
        try git(["init", "-q", "--object-format=sha256", directory.path])
        var generator = SystemRandomNumberGenerator()
        var names: [String] = []
        for size in [0, 55, 1000, 70_000] {
            let name = "file-\(size)"
            try writeFile(
                directory.appending(name), (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
            names.append(name)
        }
        let input = Array("from standard input\n".utf8)
        for arguments in [names, ["--stdin"] + names.prefix(1), ["-w", "--stdin"] + names] {
            let expected = try git(["hash-object"] + arguments, in: directory.path, input: input)
            let actual = try run(
                [gitwireExecutable, "hash-object"] + arguments, in: directory.path, input: input, check: false)
            #expect(actual.status == 0, "\(actual.errorText)")
            #expect(actual.text == expected.text, "\(arguments)")
            #expect(actual.text.split(separator: "\n").allSatisfy { $0.count == 64 })
        }
        // Outside any repository, --object-format says which; git's own ids in a SHA-256 one.
        let outside = try TemporaryDirectory()
        try writeFile(outside.appending("f"), Array("hello\n".utf8))
        let sha256 = try run([gitwireExecutable, "hash-object", "--object-format=sha256", "f"], in: outside.path)
        try writeFile(directory.appending("f"), Array("hello\n".utf8))
        #expect(sha256.text == (try git(["hash-object", "f"], in: directory.path)).text)
        let sha1 = try run(
            [gitwireExecutable, "hash-object", "f"], in: outside.path,
            environment: ["GIT_CEILING_DIRECTORIES": outside.path])
        #expect(sha1.text == "ce013625030ba8dba906f756967f9e9ca394464a\n")
        // Objects written with -w are read by git, and a format other than the repository's is refused.
        let written = try run([gitwireExecutable, "hash-object", "-w", "f"], in: directory.path)
        #expect(try git(["cat-file", "-p", String(written.text.dropLast())], in: directory.path).text == "hello\n")
        let refused = try run(
            [gitwireExecutable, "hash-object", "-w", "--object-format=sha1", "f"], in: directory.path, check: false)
        #expect(refused.status == 128)
        let unknown = try run(
            [gitwireExecutable, "hash-object", "--object-format=sha3", "f"], in: directory.path, check: false)
        #expect(unknown.status == 128)
        #expect(unknown.errorText == "fatal: unknown hash algorithm 'sha3'\n")
    }

    enum Source: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case offsetDeltas, referenceDeltas, noDeltas
        var testDescription: String { rawValue }

        func pack() throws -> [UInt8] {
            let path = SHA256PackTests.repositories.path("many.git")
            let options: [String]
            switch self {
            case .offsetDeltas: options = ["--delta-base-offset"]
            case .referenceDeltas: options = []
            case .noDeltas: options = ["--window=0"]
            }
            return try git(
                ["pack-objects", "--all", "--revs", "--stdout", "-q", "--threads=1"] + options, in: path, input: []
            ).standardOutput
        }
    }

    @Test(arguments: Source.allCases, [1, 2])
    func indexPackWritesGitsIndex(_ source: Source, threads: Int) throws {
        let pack = try source.pack()
        let directory = try TemporaryDirectory()
        try writeFile(directory.appending("git.pack"), pack)
        try writeFile(directory.appending("ours.pack"), pack)
        let expected = try git(
            ["index-pack", "--object-format=sha256", "--threads=\(threads)", "git.pack"], in: directory.path)
        let actual = try gitwire(
            ["index-pack", "--object-format=sha256", "--threads=\(threads)", "ours.pack"], in: directory.path)
        #expect(actual.status == 0, "\(actual.errorText)")
        #expect(actual.text == expected.text)
        #expect(actual.text.count == 65)
        #expect(try readFile(directory.appending("ours.idx")) == readFile(directory.appending("git.idx")))
        // The index reads back, and every object of the pack with it.
        let reader = try PackReader(packPath: directory.appending("ours.pack"), format: .sha256)
        #expect(reader.index.count > 1000)
        for position in stride(from: 0, to: reader.index.count, by: 97) {
            let id = reader.index.id(at: position)
            #expect(try reader.object(id)?.id(.sha256) == id)
        }
        // Read as SHA-1, the same pack is refused, not misread.
        let misread = try gitwire(["index-pack", "-o", "sha1.idx", "ours.pack"], in: directory.path)
        #expect(misread.status == 128)
        #expect(!FileManager.default.fileExists(atPath: directory.appending("sha1.idx")))
    }

    /// A thin pack completed from a SHA-256 repository (`--stdin --fix-thin`, the format from the
    /// repository's `config`) is the pack and index git's `index-pack --fix-thin` makes there.
    @Test func thinPackCompletion() throws {
        let source = Self.repositories.path("many.git")
        let base = try gitText(["rev-parse", "main~20"], in: source)
        let thin = try git(
            ["pack-objects", "--revs", "--thin", "--stdout", "-q", "--threads=1", "--delta-base-offset"], in: source,
            input: Array("main\n^\(base)\n".utf8)
        ).standardOutput
        let directory = try TemporaryDirectory()
        let theirs = directory.appending("theirs.git")
        let ours = directory.appending("ours.git")
        for path in [theirs, ours] {
            try git([
                "clone", "-q", "--bare", "--no-local", "--single-branch", "--no-tags", "--branch=main", source, path,
            ])
            try git(["update-ref", "refs/heads/main", base], in: path)
            try git(["repack", "-q", "-ad"], in: path)
            try git(["reflog", "expire", "--expire=now", "--all"], in: path)
            try git(["prune", "--expire=now"], in: path)
        }
        let expected = try git(["index-pack", "--stdin", "--fix-thin"], in: theirs, input: thin)
        let actual = try run(
            [gitwireExecutable, "index-pack", "--stdin", "--fix-thin", "--repository=\(ours)"], input: thin,
            check: false)
        #expect(actual.status == 0, "\(actual.errorText)")
        #expect(actual.text == expected.text)
        let name = String(actual.text.dropFirst(5).dropLast())
        for suffix in [".pack", ".idx"] {
            #expect(
                try readFile("\(ours)/objects/pack/pack-\(name)\(suffix)")
                    == readFile("\(theirs)/objects/pack/pack-\(name)\(suffix)"), "\(suffix)")
        }
        // --object-format goes with a pack file, not with --stdin (as git says).
        let both = try run(
            [gitwireExecutable, "index-pack", "--stdin", "--object-format=sha256", "--repository=\(ours)"], input: thin,
            check: false)
        #expect(both.status == 128)
        #expect(both.errorText == "fatal: options '--object-format' and '--stdin' cannot be used together\n")
    }

    /// A damaged SHA-256 pack fails as git's index-pack fails it, and leaves nothing behind.
    @Test func aDamagedPackIsRefused() throws {
        var pack = try Source.offsetDeltas.pack()
        pack[pack.count - 5] ^= 0x40
        let directory = try TemporaryDirectory()
        try writeFile(directory.appending("bad.pack"), pack)
        let expected = try git(["index-pack", "--object-format=sha256", "bad.pack"], in: directory.path, check: false)
        let actual = try gitwire(["index-pack", "--object-format=sha256", "bad.pack"], in: directory.path)
        #expect(expected.status == 128)
        #expect(actual.status == 128)
        #expect(actual.errorText.hasPrefix("fatal: "))
        #expect(try fileNames(in: directory) == ["bad.pack"])
        let unknown = try gitwire(["index-pack", "--object-format=sha3", "bad.pack"], in: directory.path)
        let gits = try git(["index-pack", "--object-format=sha3", "bad.pack"], in: directory.path, check: false)
        #expect(unknown.status == gits.status)
        #expect(unknown.errorText == gits.errorText)
    }
}
