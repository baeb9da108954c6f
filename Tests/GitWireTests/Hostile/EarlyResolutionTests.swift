import Foundation
import GitWire
import GitWireCoreTestSupport
import GitWireTestSupport
import Testing

/// Clones and fetches that resolve offset deltas while the pack arrives (gitwire issue #24): the
/// result is the same as without (the index byte for byte as `git index-pack` writes it, the refs,
/// `git fsck`), and a pack that turns out bad after resolution has begun fails exactly as it did
/// before, with nothing left behind. The probe makes the parser wait for the resolving thread
/// after each chunk, so the count of deltas resolved before the input ended is the same on every
/// run, and the tests can require that resolution had begun.
@Suite("resolving deltas while the pack arrives")
struct EarlyResolutionTests {
    /// What the server does to the pack.
    enum Damage: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// A reference delta on a base nobody has, appended at the end.
        case missingBase
        /// The zlib header of an entry near the end broken (trailer recomputed).
        case badZlibLate
        /// Nine tenths of the pack, then the flush.
        case cutOff
        /// The trailer's last byte flipped.
        case wrongTrailer
        /// An offset delta appended at the end whose base size is wrong: the resolving thread
        /// meets this error itself.
        case badDeltaLate

        var testDescription: String { rawValue }

        /// The error text both ways of resolving must contain.
        var expected: String {
            switch self {
            case .missingBase: return "delta base missing"
            case .badZlibLate: return "bad zlib stream"
            case .cutOff: return "pack truncated after"
            case .wrongTrailer: return "pack checksum mismatch"
            case .badDeltaLate: return "bad delta"
            }
        }

        func stream(_ fixture: EarlyResolutionFixture) throws -> [UInt8] {
            let pack = fixture.pack
            switch self {
            case .missingBase:
                var builder = TestPackBuilder()
                let base = UncheckedSHA1.hash(Array("a base nobody has".utf8)[...])
                try builder.addReferenceDelta(
                    base: base, makeDelta(baseSize: 12, resultSize: 5, [5] + Array("hello".utf8)))
                return sideBandStream(appending(Array(builder.bytes().dropFirst(12).dropLast(20)), to: pack))
            case .badZlibLate:
                let offset = fixture.lateEntryOffset
                var headerEnd = offset
                while pack[headerEnd] & 0x80 != 0 { headerEnd += 1 }
                // An offset delta's header is followed by its base distance.
                if pack[offset] >> 4 & 7 == 6 {
                    headerEnd += 1
                    while pack[headerEnd] & 0x80 != 0 { headerEnd += 1 }
                }
                var broken = Array(pack.dropLast(20))
                broken[headerEnd + 1] = 0xff
                broken[headerEnd + 2] = 0xff
                return sideBandStream(withTrailer(broken))
            case .cutOff:
                return sideBandStream(pack, upTo: pack.count * 9 / 10) + PktLine.flush.encoded
            case .wrongTrailer:
                var bad = pack
                bad[bad.count - 1] ^= 0xff
                return sideBandStream(bad)
            case .badDeltaLate:
                // Based on the pack's first entry, whatever its size: the delta says 1 byte.
                let delta = makeDelta(baseSize: 1, resultSize: 5, [5] + Array("hello".utf8))
                let offset = pack.count - 20
                let entry =
                    PackEncoding.entryHeader(typeNumber: 6, size: UInt64(delta.count))
                    + PackEncoding.baseDistance(offset - 12) + (try Deflater().deflateWhole(delta[...]))
                return sideBandStream(appending(entry, to: pack))
            }
        }
    }

    /// `entry` appended to `pack`, the count and trailer updated.
    static func appending(_ entry: [UInt8], to pack: [UInt8]) -> [UInt8] {
        var body = Array(pack.dropLast(20)) + entry
        body.replaceSubrange(0..<12, with: PackHeader(objectCount: objectCount(pack) + 1).bytes)
        return withTrailer(body)
    }

    static func options(early: Bool, probe: EarlyResolutionProbe? = nil) -> RepositoryFetchOptions {
        var index = PackIndexOptions(threads: 2)
        index.resolvesWhileReceiving = early
        index.earlyResolutionProbe = probe
        return RepositoryFetchOptions(index: index)
    }

    /// A clone resolving early gives the refs of the server, a pack that `git fsck` accepts and an
    /// index byte for byte as `git index-pack` makes from the same pack; most deltas were
    /// resolved before the input ended, and their results were used.
    @Test func cloneIsAsWithout() throws {
        let fixture = try EarlyResolutionFixture.shared.get()
        let server = try HostileFetchServer(
            .v0(advertisement: fixture.advertisement), then: [.send(sideBandStream(fixture.pack))])
        let work = try TemporaryDirectory(prefix: "gitwire-early")
        let path = work.appending("copy.git")
        let probe = EarlyResolutionProbe()
        try Remote(server.url()).cloneBlocking(into: path, options: Self.options(early: true, probe: probe))
        _ = server.finish()
        let resolved = try #require(probe.resolvedAtEndOfInput)
        #expect(resolved >= fixture.deltaCount / 2, "\(resolved) of \(fixture.deltaCount) deltas resolved early")
        #expect(probe.resultsUsed >= fixture.deltaCount / 2)
        #expect(!probe.resolverFailed)
        try git(["fsck", "--full", "--no-dangling"], in: path)
        #expect(try gitText(["for-each-ref"], in: path) == gitText(["for-each-ref"], in: fixture.server))
        let packs = try FileManager.default.contentsOfDirectory(atPath: "\(path)/objects/pack").filter {
            $0.hasSuffix(".pack")
        }
        let pack = "\(path)/objects/pack/\(try #require(packs.first))"
        let gitIndex = work.appending("git.idx")
        try git(["index-pack", "-o", gitIndex, pack])
        #expect(
            FileManager.default.contents(atPath: gitIndex)
                == FileManager.default.contents(atPath: String(pack.dropLast(5)) + ".idx"))
        #expect(try leftovers(in: path).isEmpty)
    }

    /// The parsing thread never waits for the resolving thread: with the thread held back before
    /// its first entry and room for one batch in its queue, the next batch finds the queue full,
    /// the thread is stopped, and the pack (fed in small chunks, so there are many batches) is
    /// indexed at the end, byte for byte as `git index-pack` does. The thread is let go only when
    /// the indexer finishes, or by a watchdog after a minute (scaled for slow runs): a parser
    /// that waited for room in the queue would still finish then, but the test would fail.
    @Test func parserDoesNotWaitForResolver() throws {
        let fixture = try EarlyResolutionFixture.shared.get()
        let work = try TemporaryDirectory(prefix: "gitwire-early")
        let probe = EarlyResolutionProbe(waitsAfterEachChunk: false, holdsResolver: true, queueCapacity: 1)
        let watchdog = Watchdog(probe, after: Double(scaledForSlowRuns(seconds: 60)))
        var options = PackIndexOptions(threads: 2)
        options.resolvesWhileReceiving = true
        options.earlyResolutionProbe = probe
        let path = work.appending("streamed.pack")
        let indexer = try PackIndexer(destination: .file(path), options: options)
        let pack = fixture.pack
        for start in stride(from: 0, to: pack.count, by: 256) {
            try indexer.append(pack[start..<min(start + 256, pack.count)])
        }
        _ = try indexer.finish()
        #expect(!watchdog.fired, "the parser waited for the held resolving thread")
        #expect(probe.queueFullAfter == 1)
        #expect(probe.resultsUsed == 0)
        let gitIndex = work.appending("git.idx")
        try git(["index-pack", "-o", gitIndex, path])
        #expect(
            FileManager.default.contents(atPath: gitIndex)
                == FileManager.default.contents(atPath: String(path.dropLast(5)) + ".idx"))
    }

    /// Lets a held resolving thread go after a delay, noting that it had to.
    final class Watchdog: @unchecked Sendable {
        // @unchecked: `didFire` is only touched under `lock`.
        private let lock = NSLock()
        private var didFire = false

        init(_ probe: EarlyResolutionProbe, after seconds: Double) {
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
                lock.withLock { didFire = true }
                probe.releaseResolver()
            }
        }

        var fired: Bool { lock.withLock { didFire } }
    }

    /// A fetch resolving early brings the refs and objects as git's fetch would.
    @Test func fetchIsAsWithout() throws {
        let fixture = try EarlyResolutionFixture.shared.get()
        let server = try HostileFetchServer(
            .v0(advertisement: fixture.advertisement), then: [.send(sideBandStream(fixture.newPack))])
        let work = try TemporaryDirectory(prefix: "gitwire-early")
        let path = work.appending("local.git")
        try run(["cp", "-a", fixture.localTemplate, path])
        let probe = EarlyResolutionProbe()
        try Remote(server.url()).fetchBlocking(into: path, options: Self.options(early: true, probe: probe))
        _ = server.finish()
        #expect(try #require(probe.resolvedAtEndOfInput) > 0)
        try git(["fsck", "--full", "--no-dangling"], in: path)
        #expect(try gitText(["for-each-ref"], in: path) == gitText(["for-each-ref"], in: fixture.server))
        #expect(try leftovers(in: path).isEmpty)
    }

    /// Each damaged pack, cloned with and without early resolution: the same error, git's too
    /// refuses it, resolution had begun before the input ended, and nothing is left.
    @Test(arguments: Damage.allCases)
    func damagedPackFailsAsBefore(_ damage: Damage) throws {
        let fixture = try EarlyResolutionFixture.shared.get()
        let stream = try damage.stream(fixture)
        let server = try HostileFetchServer(
            .v0(advertisement: fixture.advertisement), then: [.send(stream)], connections: 3)
        let work = try TemporaryDirectory(prefix: "gitwire-early")
        let remote = try Remote(server.url())
        let probe = EarlyResolutionProbe()
        let early = Result {
            try remote.cloneBlocking(
                into: work.appending("early.git"), options: Self.options(early: true, probe: probe))
        }
        let today = Result {
            try remote.cloneBlocking(into: work.appending("today.git"), options: Self.options(early: false))
        }
        let gitOutput = try git(["clone", "--bare", "--quiet", server.url(), work.appending("git.git")], check: false)
        _ = server.finish()

        guard case .failure(let earlyError) = early, case .failure(let todayError) = today else {
            Issue.record("a damaged pack was accepted: \(early), \(today)")
            return
        }
        #expect("\(earlyError)" == "\(todayError)")
        #expect("\(earlyError)".contains(damage.expected), "\(earlyError)")
        #expect((earlyError as? any GitWireError)?.kind == .pack, "\(earlyError)")
        #expect(gitOutput.status == 128, "\(gitOutput.errorText)")
        let resolved = try #require(probe.resolvedAtEndOfInput, "resolution began before the input ended")
        #expect(resolved >= fixture.deltaCount / 2, "\(resolved) of \(fixture.deltaCount) deltas resolved early")
        #expect(probe.resolverFailed == (damage == .badDeltaLate))
        // Only a pack whose first pass succeeds uses the early results; the final resolution
        // then fails as it did.
        if damage != .missingBase { #expect(probe.resultsUsed == 0) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).sorted() == [])
    }

    /// A fetch of a pack whose trailer is wrong fails as before and leaves the repository clean.
    @Test func damagedFetchLeavesNothing() throws {
        let fixture = try EarlyResolutionFixture.shared.get()
        var bad = fixture.newPack
        bad[bad.count - 1] ^= 0xff
        let server = try HostileFetchServer(
            .v0(advertisement: fixture.advertisement), then: [.send(sideBandStream(bad))])
        let work = try TemporaryDirectory(prefix: "gitwire-early")
        let path = work.appending("local.git")
        try run(["cp", "-a", fixture.localTemplate, path])
        let refsBefore = try gitText(["for-each-ref"], in: path)
        let probe = EarlyResolutionProbe()
        #expect(throws: (any Error).self) {
            try Remote(server.url()).fetchBlocking(into: path, options: Self.options(early: true, probe: probe))
        }
        _ = server.finish()
        #expect(try #require(probe.resolvedAtEndOfInput) > 0)
        #expect(try gitText(["for-each-ref"], in: path) == refsBefore)
        #expect(try leftovers(in: path).isEmpty)
    }
}

/// A server repository whose history makes many offset deltas (one file rewritten a little in
/// each of 150 commits), its pack as `git pack-objects` makes it, a bare clone made before its last
/// 30 commits and the pack a fetch from there receives.
final class EarlyResolutionFixture: Sendable {
    static let shared = Result { try EarlyResolutionFixture() }

    private let directory: TemporaryDirectory
    let server: String
    let localTemplate: String
    let advertisement: [UInt8]
    let pack: [UInt8]
    let newPack: [UInt8]
    /// The number of deltas in ``pack``.
    let deltaCount: Int
    /// The offset of an entry past nine tenths of the deltas.
    let lateEntryOffset: Int

    private init() throws {
        directory = try TemporaryDirectory(prefix: "gitwire-early-fixture")
        server = directory.appending("server.git")
        localTemplate = directory.appending("local-template.git")
        try git(["init", "--quiet", "--bare", "--initial-branch=main", server])
        func history(_ range: ClosedRange<Int>, from parent: String?) -> String {
            var input = ""
            for index in range {
                var lines: [String] = []
                for line in 0..<200 { lines.append("line \(line) of the file, \(line % 7 == index % 7 ? index : 0)") }
                let content = lines.joined(separator: "\n") + "\n"
                input += "blob\nmark :\(index * 2)\ndata \(content.utf8.count)\n\(content)\n"
                input += "commit refs/heads/main\nmark :\(index * 2 + 1)\n"
                input += "author A U Thor <author@example.com> \(1_700_000_000 + index) +0000\n"
                input += "committer C O Mitter <committer@example.com> \(1_700_000_000 + index) +0000\n"
                input += "data 7\ncommit\n"
                if index > range.lowerBound {
                    input += "from :\(index * 2 - 1)\n"
                } else if let parent {
                    input += "from \(parent)\n"
                }
                input += "M 100644 :\(index * 2) file.txt\n\n"
            }
            return input
        }
        try git(["fast-import", "--quiet"], in: server, input: Array(history(1...120, from: nil).utf8))
        try git(["clone", "--quiet", "--bare", "--no-local", server, localTemplate])
        let oldMain = try gitText(["rev-parse", "main"], in: server)
        try git(["fast-import", "--quiet"], in: server, input: Array(history(121...150, from: oldMain).utf8))
        let lines = try gitText(["show-ref", "--head"], in: server).split(separator: "\n").map(String.init)
        guard var first = lines.first, first.hasSuffix(" HEAD") else { throw FetchTestProblem("no HEAD") }
        first += "\0multi_ack_detailed side-band-64k ofs-delta"
        advertisement = ([first] + lines.dropFirst()).flatMap { PktLine.text($0).encoded } + PktLine.flush.encoded
        let packObjects = ["pack-objects", "--quiet", "--stdout", "--delta-base-offset"]
        pack = try git(packObjects + ["--revs", "--all"], in: server).standardOutput
        newPack = try git(packObjects + ["--revs"], in: server, input: Array("main\n^\(oldMain)\n".utf8)).standardOutput

        let scratch = directory.appending("listing")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        let path = "\(scratch)/p.pack"
        try Data(pack).write(to: URL(fileURLWithPath: path))
        try git(["index-pack", path])
        let listing = try gitText(["verify-pack", "-v", "\(scratch)/p.idx"])
        // Deltas: "<id> <type> <size> <packed size> <offset> <depth> <base>".
        let deltaOffsets = listing.split(separator: "\n").compactMap { line -> Int? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count == 7 ? Int(fields[4]) : nil
        }.sorted()
        deltaCount = deltaOffsets.count
        guard deltaCount >= 100 else { throw FetchTestProblem("only \(deltaCount) deltas") }
        lateEntryOffset = deltaOffsets[deltaCount * 19 / 20]
    }
}
