import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `gitwire index-pack` prints what `git index-pack` prints and writes the same `.idx`, for packs
/// made by `git pack-objects` and `git repack`.
@Suite("index-pack command")
struct IndexPackCommandTests {
    enum Source: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case offsetDeltas, referenceDeltas, noDeltas, repacked

        var testDescription: String { rawValue }

        func pack() throws -> [UInt8] {
            let fixture = FixtureRepository.shared
            switch self {
            case .offsetDeltas: return try fixture.pack(["--delta-base-offset"], revisions: ["v60"])
            case .referenceDeltas: return try fixture.pack([], revisions: ["v60"])
            case .noDeltas: return try fixture.pack(["--window=0"], revisions: ["v20"])
            case .repacked:
                let directory = try TemporaryDirectory(prefix: "gitwire-repack")
                let copy = directory.appending("copy.git")
                try git(["clone", "-q", "--bare", "--no-local", TestRepositories.shared.path("small.git"), copy])
                try git(["repack", "-q", "-adf"], in: copy)
                let packs = try fileNames(inDirectory: "\(copy)/objects/pack").filter { $0.hasSuffix(".pack") }
                try #require(packs.count == 1)
                return try readFile("\(copy)/objects/pack/\(packs[0])")
            }
        }
    }

    @Test(arguments: Source.allCases)
    func printsTheChecksumAndWritesGitsIndex(_ source: Source) throws {
        let pack = try source.pack()
        let directory = try TemporaryDirectory()
        try writeFile(directory.appending("git.pack"), pack)
        try writeFile(directory.appending("ours.pack"), pack)
        let expected = try git(["index-pack", "git.pack"], in: directory.path)
        let actual = try gitwire(["index-pack", "ours.pack"], in: directory.path)
        #expect(actual.status == 0, "\(actual.errorText)")
        #expect(actual.text == expected.text)
        #expect(actual.text == "\(ObjectID(bytes: pack.suffix(20), format: .sha1)!.hex)\n")
        #expect(actual.standardError.isEmpty)
        #expect(try readFile(directory.appending("ours.idx")) == readFile(directory.appending("git.idx")))
    }

    @Test func anIndexFileNamedWithDashO() throws {
        let pack = try Source.offsetDeltas.pack()
        let directory = try TemporaryDirectory()
        try writeFile(directory.appending("a.pack"), pack)
        let expected = try git(["index-pack", "-o", "git.idx", "a.pack"], in: directory.path)
        let actual = try gitwire(["index-pack", "-o", "ours.idx", "a.pack"], in: directory.path)
        #expect(actual.text == expected.text)
        #expect(try readFile(directory.appending("ours.idx")) == readFile(directory.appending("git.idx")))
        #expect(try fileNames(in: directory) == ["a.pack", "git.idx", "ours.idx"])
    }

    /// `--stdin` writes the pack it reads to the named file and prints `pack\t<checksum>`, as git
    /// does (git needs a repository for it; gitwire does not).
    @Test(arguments: Source.allCases)
    func standardInputIsWrittenToThePackFile(_ source: Source) throws {
        let pack = try source.pack()
        let repository = try TemporaryDirectory()
        try git(["init", "-q", "--bare", repository.path])
        let expected = try git(["index-pack", "--stdin", "received.pack"], in: repository.path, input: pack)
        let directory = try TemporaryDirectory()
        let actual = try run(
            [gitwireExecutable, "index-pack", "--stdin", "received.pack"], in: directory.path, input: pack,
            check: false)
        #expect(actual.status == 0, "\(actual.errorText)")
        #expect(actual.text == expected.text)
        #expect(actual.text.hasPrefix("pack\t"))
        #expect(try readFile(directory.appending("received.pack")) == pack)
        #expect(try readFile(directory.appending("received.idx")) == readFile(repository.appending("received.idx")))
        #expect(try fileNames(in: directory) == ["received.idx", "received.pack"])
    }

    /// Broken packs: status 128 and `fatal: ` as git, and nothing left behind (with `--stdin`, not
    /// even the pack).
    @Test(arguments: ["truncated", "corrupt object", "bad checksum", "not a pack", "empty"])
    func brokenPacksLeaveNothingBehind(_ damage: String) throws {
        var pack = try Source.offsetDeltas.pack()
        switch damage {
        case "truncated": pack = Array(pack.prefix(pack.count / 2))
        case "corrupt object": pack[pack.count / 2] ^= 0xff
        case "bad checksum": pack[pack.count - 1] ^= 1
        case "not a pack": pack = Array("this is not a pack at all, though it is long enough".utf8)
        default: pack = []
        }
        let directory = try TemporaryDirectory()
        try writeFile(directory.appending("git.pack"), pack)
        try writeFile(directory.appending("broken.pack"), pack)
        let expected = try git(["index-pack", "git.pack"], in: directory.path, check: false)
        #expect(expected.status == 128)
        #expect(expected.errorText.contains("fatal: "))
        let actual = try gitwire(["index-pack", "broken.pack"], in: directory.path)
        #expect(actual.status == 128)
        #expect(actual.errorText.hasPrefix("fatal: "), "\(actual.errorText)")
        #expect(actual.standardOutput.isEmpty)
        #expect(try fileNames(in: directory) == ["broken.pack", "git.pack"])

        let receiving = try TemporaryDirectory()
        let streamed = try run(
            [gitwireExecutable, "index-pack", "--stdin", "in.pack"], in: receiving.path, input: pack, check: false)
        #expect(streamed.status == 128)
        #expect(streamed.errorText.hasPrefix("fatal: "))
        #expect(try fileNames(in: receiving) == [], "no pack, index or temporary file left")
    }

    @Test func aPackFileNameMustEndInDotPack() throws {
        let directory = try TemporaryDirectory()
        try writeFile(directory.appending("a.notpack"), try Source.noDeltas.pack())
        let expected = try git(["index-pack", "a.notpack"], in: directory.path, check: false)
        let actual = try gitwire(["index-pack", "a.notpack"], in: directory.path)
        #expect(actual.status == 128)
        #expect(actual.status == expected.status)
        #expect(actual.errorText == expected.errorText)
    }

    /// A pack file that cannot be opened is git's `could not open '<file>' for reading: <why>`.
    @Test(arguments: ["missing.pack", "no/such/dir.pack"])
    func aPackFileThatCannotBeOpenedIsGitsError(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let expected = try git(["index-pack", name], in: directory.path, check: false)
        let actual = try gitwire(["index-pack", name], in: directory.path)
        #expect(actual.status == 128)
        #expect(actual.status == expected.status)
        #expect(actual.errorText == expected.errorText)
    }

    /// The lines of `-v` progress: each redrawn line, split at carriage returns and newlines.
    static func progressLines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: true) { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
    }

    /// `-v` shows progress on standard error with git's labels and format, ending each phase
    /// with git's final line; counts in between depend on timing and threads.
    @Test(arguments: [false, true])
    func progressHasGitsShape(stdin: Bool) throws {
        let pack = try Source.offsetDeltas.pack()
        let repository = try TemporaryDirectory()
        try git(["init", "-q", "--bare", repository.path])
        try writeFile(repository.appending("git.pack"), pack)
        let directory = try TemporaryDirectory()
        try writeFile(directory.appending("ours.pack"), pack)
        let expected: ProcessOutput
        let actual: ProcessOutput
        if stdin {
            expected = try git(["index-pack", "-v", "--stdin", "in.pack"], in: repository.path, input: pack)
            actual = try run(
                [gitwireExecutable, "index-pack", "-v", "--stdin", "in.pack"], in: directory.path, input: pack)
        } else {
            expected = try git(["index-pack", "-v", "git.pack"], in: repository.path)
            actual = try gitwire(["index-pack", "-v", "ours.pack"], in: directory.path)
        }
        #expect(actual.standardOutput == expected.standardOutput)
        let ours = Self.progressLines(actual.errorText)
        let theirs = Self.progressLines(expected.errorText)
        let label = stdin ? "Receiving objects" : "Indexing objects"
        func labels(_ lines: [Substring]) -> [Substring] {
            lines.map { $0.prefix { $0 != ":" } }.reduce(into: []) { if $0.last != $1 { $0.append($1) } }
        }
        #expect(labels(ours) == [Substring(label), "Resolving deltas"])
        #expect(labels(ours) == labels(theirs))
        // index-pack shows the resolving phase at zero before its first delta.
        let firstResolving = ours.first { $0.hasPrefix("Resolving deltas:") }
        #expect(firstResolving == theirs.first { $0.hasPrefix("Resolving deltas:") })
        #expect(firstResolving?.hasPrefix("Resolving deltas:   0% (0/") == true)
        for line in ours {
            let match = line.wholeMatch(
                of: /(Receiving objects|Indexing objects|Resolving deltas): +(\d+)% \((\d+)\/(\d+)\)(, done\.)?/)
            let parts = try #require(match, "\(line)")
            let (percent, done, total) = (Int(parts.2)!, Int(parts.3)!, Int(parts.4)!)
            #expect(percent == done * 100 / total, "\(line)")
        }
        // The final line of each phase: git adds throughput to "Receiving objects" (",
        // <size> | <rate>, done."), which gitwire leaves out.
        let finals = ours.filter { $0.hasSuffix(", done.") }
        #expect(finals.count == 2)
        let gitFinals = theirs.filter { $0.hasSuffix(", done.") }
        #expect(finals.last == gitFinals.last)
        if !stdin { #expect(finals == gitFinals) }
        #expect(finals.first?.hasPrefix(gitFinals.first?.prefix { $0 != "," } ?? "-") == true)
        #expect(actual.errorText.hasSuffix("\n"))
    }
}
