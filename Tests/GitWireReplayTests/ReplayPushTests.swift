import Foundation
import GitWire
import GitWireReplay
import GitWireTestSupport
import Testing

/// A push session of `Fixtures/push/sessions` (captured by `Tools/capture-push-fixtures.sh`):
/// gitwire's own (`<transport>-v<N>-<case>`, `<transport>` `daemon` or `http`) or real git's through `record-proxy`
/// (`git-<transport>-v<N>-<case>`), with what git printed for the same push (`.expected`).
struct PushSessionFixture: CustomTestStringConvertible, Sendable {
    let path: String
    let session: Session

    var name: String { URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent }
    var testDescription: String { name }
    /// Whether real git made the recording.
    var isGit: Bool { name.hasPrefix("git-") }
    /// `<transport>-v<N>-<case>`: the name of the gitwire session and of the `.expected` file.
    var caseName: String { isGit ? String(name.dropFirst(4)) : name }

    init(path: String) throws {
        self.path = path
        session = try Session(contentsOfFile: path)
    }

    static let directory = "\(fixturesDirectory)/push/sessions"
    static let all: [PushSessionFixture] = sessionFixtures(in: "push/sessions").compactMap {
        try? PushSessionFixture(path: $0)
    }
    static var gitwire: [PushSessionFixture] { all.filter { !$0.isGit } }
    static var git: [PushSessionFixture] { all.filter(\.isGit) }

    /// The arguments of the recorded `gitwire push` command, after `push`.
    func pushArguments() throws -> [String] {
        guard let command = session.command?.split(separator: " ").map(String.init), command.count >= 3,
            command[0] == "gitwire", command[1] == "push"
        else { throw FixtureProblem("\(path): no push command in the header") }
        return Array(command.dropFirst(2))
    }

    /// What git printed for this push at capture time.
    func expected() throws -> GitExpectation { try GitExpectation(path: "\(Self.directory)/\(caseName).expected") }

    /// The client's packets before the pack: the commands, their flush, the push options and
    /// theirs; and the bytes after them (the pack, if any).
    func commandsAndPack() throws -> (packets: [PktLine], pack: [UInt8], probes: Int) {
        let client = session.bytes(from: .client)
        var decoder = PktLineDecoder()
        decoder.append(client)
        var packets: [PktLine] = []
        var consumed = 0
        var flushesNeeded = 1
        var sawCommand = false
        var probes = 0
        while let packet = try decoder.next() {
            consumed += packet.encoded.count
            // Over smart HTTP, a lone flush before any command is git's probe request (sent
            // before a body larger than http.postBuffer).
            if packet == .flush && !sawCommand && session.transport == "http" {
                probes += 1
                continue
            }
            packets.append(packet)
            // The first command carries the capabilities (after a NUL; a git:// request line
            // before it has NULs too, but no capabilities).
            if !sawCommand, let payload = packet.payload, payload.count > 82, payload[82...].contains(0) {
                sawCommand = true
                if String(decoding: payload, as: UTF8.self).contains(" push-options") { flushesNeeded = 2 }
            }
            if packet == .flush {
                flushesNeeded -= 1
                if flushesNeeded == 0 { break }
            }
        }
        return (packets, Array(client.dropFirst(consumed)), probes)
    }

    /// The commands sent (`<old> <new> <name>`), parsed back.
    func commands() throws -> [PushCommand] {
        try commandsAndPack().packets.compactMap { packet -> PushCommand? in
            guard let payload = packet.payload else { return nil }
            let line = payload.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)[0]
            let words = line.split(separator: 0x20)
            guard words.count == 3, let old = ObjectID(hex: words[0], format: .sha1),
                let new = ObjectID(hex: words[1], format: .sha1)
            else { return nil }
            return PushCommand(name: String(decoding: words[2], as: UTF8.self), old: old, new: new)
        }
    }
}

/// The repository the sessions were pushed from, made again by the capture's own script
/// (`Tools/make-push-repository.sh`: fixed names and dates, so the same object ids), once.
private let pushingRepository: Result<(TemporaryDirectory, String), any Error> = Result {
    let directory = try TemporaryDirectory()
    let path = directory.appending("local")
    try run(["bash", "\(fixturesDirectory)/../Tools/make-push-repository.sh", path])
    return (directory, path)
}

/// git's environment for the replayed push: no system or user configuration.
private let hermetic = [
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": "/nonexistent", "LC_ALL": "C",
]

/// Push sessions recorded from real servers (`git daemon --enable=receive-pack`, `git
/// http-backend`), played back with no network through `gitwire push`: gitwire must send exactly
/// the recorded bytes (request, commands, capabilities, push options and the pack; `PackWriter`'s
/// output depends only on its input and options, see `PackWriterDeterminismTests`) and print
/// exactly what real `git push` printed for the same push at capture time. Real git's own
/// sessions, whose pack is git's `pack-objects`' choice of deltas and compression, are held to
/// the same commands and capabilities and to a pack of exactly the objects gitwire sends.
@Suite("Replay push sessions")
struct ReplayPushTests {
    static let cases = [
        "new-branch-empty", "fast-forward-thin", "delete", "atomic-rejected", "pre-receive-declines", "push-options",
        "large-probe",
    ]

    @Test func everyCaseIsRecorded() {
        let names = Set(PushSessionFixture.all.map(\.name))
        for transport in ["daemon", "http"] {
            for version in [0, 1] {
                for name in Self.cases where transport == "http" || name != "large-probe" {
                    #expect(names.contains("\(transport)-v\(version)-\(name)"))
                    #expect(names.contains("git-\(transport)-v\(version)-\(name)"))
                    #expect(
                        FileManager.default.fileExists(
                            atPath: "\(PushSessionFixture.directory)/\(transport)-v\(version)-\(name).expected"))
                }
            }
        }
        for fixture in PushSessionFixture.all {
            #expect(fixture.session.service == "git-receive-pack", "\(fixture.name)")
        }
    }

    /// Runs `gitwire push --replay=<session>` with the recorded arguments in the pushing repository.
    static func replay(_ path: String, arguments: [String]) throws -> ProcessOutput {
        let repository = try pushingRepository.get().1
        return try gitwire(["push", "--replay=\(path)"] + arguments, in: repository, environment: hermetic)
    }

    @Test(arguments: PushSessionFixture.gitwire)
    func replayedPushSendsTheRecordedBytesAndPrintsWhatGitPrinted(_ fixture: PushSessionFixture) throws {
        let expected = try fixture.expected()
        let output = try Self.replay(fixture.path, arguments: try fixture.pushArguments())
        // git 2.39 passes the server's control characters through (the pre-receive case sends an
        // escape sequence); gitwire masks them, as PushLiveTests expects too.
        let gitError = expected.standardError.map {
            ($0 < 0x20 && $0 != 0x0a && $0 != 0x09) || $0 == 0x7f ? UInt8(ascii: "?") : $0
        }
        #expect(
            String(decoding: output.standardError, as: UTF8.self) == String(decoding: gitError, as: UTF8.self))
        #expect(
            String(decoding: output.standardOutput, as: UTF8.self)
                == String(decoding: expected.standardOutput, as: UTF8.self))
        #expect(output.status == expected.status)
    }

    /// A recorded byte changed, in the commands or in the pack: the replayed push fails (the
    /// client no longer sends what was recorded), so the test above cannot pass by accident.
    @Test(arguments: ["commands", "pack"])
    func aChangedRecordedByteFails(_ part: String) throws {
        let fixture = try #require(PushSessionFixture.gitwire.first { $0.name == "daemon-v0-fast-forward-thin" })
        var lines = try String(contentsOfFile: fixture.path, encoding: .utf8).components(separatedBy: "\n")
        let index: Int
        if part == "commands" {
            // The first command's capabilities (the client's; the server's advertisement has
            // no space after its NUL).
            index = try #require(lines.firstIndex { $0.contains(#"\0 report-status-v2"#) })
            lines[index] = lines[index].replacingOccurrences(of: "report-status-v2", with: "report-status-V2")
        } else {
            // The pack goes out raw after the commands' flush: a byte of it, in the middle.
            let raw = lines.indices.filter { lines[$0].hasPrefix("  raw ") }
            index = try #require(raw.dropFirst(raw.count / 2).first)
            var characters = Array(lines[index])
            let position = characters.count / 2
            characters[position] = characters[position] == "A" ? "B" : "A"
            lines[index] = String(characters)
        }
        let directory = try TemporaryDirectory()
        let altered = directory.appending("altered.session")
        try lines.joined(separator: "\n").write(toFile: altered, atomically: true, encoding: .utf8)
        let output = try Self.replay(altered, arguments: try fixture.pushArguments())
        let expected = try fixture.expected()
        #expect(output.status == 128)
        #expect(output.standardError != expected.standardError)
        #expect(String(decoding: output.standardError, as: UTF8.self).contains("fatal: replay mismatch"))
    }

    /// git's recorded commands equal gitwire's (agent aside): the same updates, capabilities in
    /// the same order, the same push options.
    @Test(arguments: PushSessionFixture.git)
    func gitSendsTheCommandsGitwireSends(_ fixture: PushSessionFixture) throws {
        let ours = try #require(PushSessionFixture.gitwire.first { $0.name == fixture.caseName })
        func normalized(_ packets: [PktLine]) -> [String] {
            packets.map { packet in
                guard let payload = packet.payload else { return "\(packet)" }
                return String(decoding: payload, as: UTF8.self).replacing(/agent=[^ \n]*/, with: "agent=…")
            }
        }
        let theirs = try fixture.commandsAndPack()
        #expect(normalized(theirs.packets) == normalized(try ours.commandsAndPack().packets))
        // git's probe request, recorded by record-proxy, before a pack larger than http.postBuffer
        // (131072 in the pushing repository) and only then.
        #expect(theirs.probes == (fixture.name.hasSuffix("large-probe") ? 1 : 0))
        // gitwire's recording (`--record`) sends the probe as the live push does.
        #expect(try ours.commandsAndPack().probes == theirs.probes)
    }

    /// Each recorded pack, git's and gitwire's, holds exactly the objects `git rev-list --objects
    /// <new>... --not <old>...` names in the pushing repository (thin packs completed from it).
    @Test(arguments: PushSessionFixture.all)
    func thePackHoldsTheObjectsGitWouldSend(_ fixture: PushSessionFixture) throws {
        let repository = try pushingRepository.get().1
        let commands = try fixture.commands()
        let pack = try fixture.commandsAndPack().pack
        let news = commands.filter { !$0.isDeletion }.map(\.new.hex)
        guard !news.isEmpty else {
            #expect(pack.isEmpty)
            return
        }
        // What the server has: the old values and every ref it advertised (git's negative
        // revisions for a push; all of them are commits of the pushing repository here).
        var decoder = PktLineDecoder()
        decoder.append(fixture.session.bytes(from: .server))
        var advertised: [String] = []
        while let packet = try decoder.next(), let payload = packet.payload {
            let id = String(decoding: payload.prefix(40), as: UTF8.self)
            if let parsed = ObjectID(id), !parsed.isZero { advertised.append("^\(id)") }
        }
        let olds = commands.filter { !$0.old.isZero }.map { "^\($0.old.hex)" } + advertised
        let listed = try gitText(["-C", repository, "rev-list", "--objects"] + news + olds)
        let wanted = Set(listed.split(separator: "\n").map { String($0.prefix(40)) })
        let header = try #require(try PackHeader.parse(pack[...]))
        #expect(Int(header.objectCount) == wanted.count)
        let directory = try TemporaryDirectory()
        let indexer = try PackIndexer(destination: .directory(directory.path), options: PackIndexOptions(threads: 1))
        try indexer.append(pack)
        let result = try indexer.finish(externalBases: try ObjectDatabase(gitDirectory: "\(repository)/.git"))
        let index = try PackIndex(path: result.indexPath, format: .sha1)
        let indexed = Set((0..<index.count).map { index.id(at: $0).hex })
        #expect(wanted.isSubset(of: indexed))
        #expect(result.objectCount - result.objectsAdded == wanted.count)
    }
}
