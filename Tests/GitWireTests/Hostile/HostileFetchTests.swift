import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Servers that misbehave while sending the pack (or just before), met by `Remote.clone` into a
/// new directory and by `Remote.fetch` into an existing bare repository. Keep-alives must be
/// tolerated; everything else must fail with a clear error and leave nothing behind: no clone
/// directory, and a fetched-into repository whose refs and object files are as they were.
enum HostileFetch: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// Empty band-1 packets before and between the pack's packets: must succeed.
    case keepAlives
    /// Keep-alives every half second for three seconds before the pack, with a 2 s timeout:
    /// they keep the connection alive, so this must succeed too.
    case slowKeepAlives
    /// One entry's zlib stream is broken (the trailer is recomputed, so only zlib is wrong).
    case brokenZlib
    /// The pack's trailing SHA-1 is wrong.
    case badTrailer
    /// The header announces one object more than the pack holds (trailer recomputed).
    case countTooHigh
    /// The header announces one object fewer than the pack holds (trailer recomputed).
    case countTooLow
    /// The header announces 2^32 - 1 objects (trailer recomputed).
    case countFarTooHigh
    /// A REF_DELTA whose base is neither in the pack nor in the local repository.
    case missingDeltaBase
    /// Band 3 (a fatal remote error) in the middle of the pack.
    case band3MidPack
    /// `ERR <message>` instead of the acknowledgments.
    case errDuringNegotiation
    /// A valid pack that lacks a blob the new refs need.
    case missingObject
    /// No pack at all: the side-band stream is just a flush.
    case noPack
    /// Half the pack, then the flush that ends the side-band stream.
    case truncatedPack
    /// The server closes the connection in the middle of the pack.
    case hangUpMidPack
    /// The server closes the connection in the middle of a pkt-line of the pack.
    case hangUpInsidePacket
    /// The server resets the connection in the middle of the pack.
    case resetMidPack
    /// The server stops sending in the middle of the pack; the remote's timeout is 2 s.
    case stallMidPack
    /// The server stops sending after its `NAK`, before the pack; the remote's timeout is 2 s.
    case stallBeforePack
    /// Besides the real refs, one whose name git refuses (`refs/heads/../escape`, at the same
    /// commit as `main`), with a valid pack: git skips the ref (`error: * Ignoring funny ref
    /// 'refs/heads/../escape' locally`, from `get_fetch_map`) and succeeds; so must gitwire,
    /// without writing the ref anywhere.
    case badRefName

    var testDescription: String { rawValue }

    /// The name of the ``badRefName`` case's ref.
    static let funnyRefName = "refs/heads/../escape"

    static let band3Message = "upload-pack: out of memory"
    static let errMessage = "upload-pack: not our ref, go away"
    static let missingBase = UncheckedSHA1.hash(Array("a base nobody has".utf8)[...])

    /// The timeout the remote gets (scaled by `testSlowness`, so that on a slow run the server's
    /// bytes still arrive before it).
    var timeout: Duration {
        switch self {
        case .stallMidPack, .stallBeforePack, .slowKeepAlives: return Duration.seconds(2).scaledForSlowRuns
        default: return Duration.seconds(10).scaledForSlowRuns
        }
    }

    /// How the server negotiates and what it sends after, for a clone or a fetch.
    func script(_ fixture: HostileFetchFixture, _ target: HostileFetchTarget) throws -> (
        HostileFetchServer.Negotiation, [HostileFetchServer.Step]
    ) {
        let pack = fixture.pack(for: target)
        let half = sideBandStream(pack, upTo: pack.count / 2)
        switch self {
        case .keepAlives: return (.nak, [.send(sideBandStream(pack, keepAlives: true))])
        case .badRefName: return (.nak, [.send(sideBandStream(pack))])
        case .slowKeepAlives:
            let keepAlive = HostileFetchServer.Step.send(Array("0005\u{1}".utf8))
            // Six pauses of a quarter of the timeout each: longer than the timeout in all.
            let pause = HostileFetchServer.Step.pause(timeout / 4)
            let waiting = Array(repeating: [keepAlive, pause], count: 6).flatMap { $0 }
            return (.nak, waiting + [.send(sideBandStream(pack))])
        case .brokenZlib: return (.nak, [.send(sideBandStream(try fixture.brokenZlib(pack)))])
        case .badTrailer:
            var bad = pack
            bad[bad.count - 1] ^= 0xff
            return (.nak, [.send(sideBandStream(bad))])
        case .countTooHigh: return (.nak, [.send(sideBandStream(withObjectCount(pack, objectCount(pack) + 1)))])
        case .countTooLow: return (.nak, [.send(sideBandStream(withObjectCount(pack, objectCount(pack) - 1)))])
        case .countFarTooHigh: return (.nak, [.send(sideBandStream(withObjectCount(pack, .max)))])
        case .missingDeltaBase:
            return (.nak, [.send(sideBandStream(try appendingReferenceDelta(to: pack, base: Self.missingBase)))])
        case .band3MidPack:
            return (.nak, [.send(half + sideBandPacket(3, Array("\(Self.band3Message)\n".utf8))), .hangUp])
        case .errDuringNegotiation: return (.err(Self.errMessage), [])
        case .missingObject: return (.nak, [.send(sideBandStream(fixture.packLackingBlob(for: target)))])
        case .noPack: return (.nak, [.send(PktLine.flush.encoded)])
        case .truncatedPack: return (.nak, [.send(half + PktLine.flush.encoded)])
        case .hangUpMidPack: return (.nak, [.send(half), .hangUp])
        case .hangUpInsidePacket: return (.nak, [.send(half + Array("0100\u{1}PACK".utf8)), .hangUp])
        case .resetMidPack: return (.nak, [.send(half), .pause(.milliseconds(200)), .reset])
        case .stallMidPack: return (.nak, [.send(half), .stall])
        case .stallBeforePack: return (.nak, [.stall])
        }
    }

    /// The kind and text of the error, or nil where the fetch must succeed.
    func expectedError(_ fixture: HostileFetchFixture, _ target: HostileFetchTarget) -> (GitWireErrorKind, String)? {
        let count = objectCount(fixture.pack(for: target))
        switch self {
        case .keepAlives, .slowKeepAlives, .badRefName: return nil
        case .brokenZlib: return (.pack, "bad zlib stream (zlib error -3: incorrect header check)")
        case .badTrailer: return (.pack, "pack checksum mismatch")
        case .countTooHigh:
            return (.pack, "object count mismatch: header says \(count + 1) objects, pack holds \(count)")
        case .countTooLow: return (.pack, "data after the end of the \(count - 1) objects the header announces")
        case .countFarTooHigh:
            return (.pack, "object count mismatch: header says \(UInt32.max) objects, pack holds \(count)")
        case .missingDeltaBase: return (.pack, "delta base missing")
        case .band3MidPack: return (.remote, "remote error: \(Self.band3Message)")
        case .errDuringNegotiation: return (.remote, "remote error: \(Self.errMessage)")
        case .missingObject:
            return (.pack, "remote did not send all necessary objects (\(fixture.omittedBlob) is missing)")
        case .noPack: return (.pack, "remote did not send all necessary objects (")
        case .truncatedPack: return (.pack, "pack truncated after")
        case .hangUpMidPack: return (.remote, "the remote end hung up unexpectedly while receiving the pack")
        case .hangUpInsidePacket: return (.protocol, "stream ended inside a pkt-line")
        case .resetMidPack: return (.connectionLost, "connection lost while receiving the pack")
        case .stallMidPack, .stallBeforePack:
            return (.timedOut, "timed out after \(timeout.secondsText) s receiving the pack")
        }
    }
}

/// Where the objects go.
enum HostileFetchTarget: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// `Remote.clone` into a directory that does not exist yet.
    case clone
    /// `Remote.fetch` into a bare clone made by git before the server's last commit.
    case fetch

    var testDescription: String { rawValue }
}

/// One clone or fetch from a hostile server: the server, the remote, the paths, the state of the
/// repository before a fetch, and the checks of what the operation did.
struct HostileFetchRun {
    let hostile: HostileFetch
    let target: HostileFetchTarget
    let fixture: HostileFetchFixture
    let server: HostileFetchServer
    let remote: Remote
    private let work: TemporaryDirectory
    private let clones: String
    private let before: RepositorySnapshot?

    /// Starts the server (for `connections` clients, one after the other, for at most `lifetime`)
    /// and, for a fetch, copies the local repository into place.
    init(
        _ hostile: HostileFetch, _ target: HostileFetchTarget, version: ProtocolVersion = .v0, connections: Int = 1,
        lifetime: Duration = .seconds(60)
    ) throws {
        self.hostile = hostile
        self.target = target
        fixture = try HostileFetchFixture.shared.get()
        work = try TemporaryDirectory(prefix: "gitwire-hostile")
        let (negotiation, steps) = try hostile.script(fixture, target)
        var advertisement = fixture.advertisement
        var v2Refs = fixture.v2Refs
        if hostile == .badRefName {
            // Before the flush that ends each listing.
            let line = PktLine.text("\(fixture.mainID) \(HostileFetch.funnyRefName)").encoded
            advertisement.insert(contentsOf: line, at: advertisement.count - 4)
            v2Refs.insert(contentsOf: line, at: v2Refs.count - 4)
        }
        let dialect: HostileFetchServer.Dialect
        if version == .v2 {
            dialect = .v2(capabilities: fixture.v2Capabilities, refs: v2Refs)
        } else {
            dialect = .v0(advertisement: advertisement)
        }
        server = try HostileFetchServer(
            dialect, negotiation: negotiation, then: steps, connections: connections, lifetime: lifetime)
        remote = try Remote(server.url(), timeout: hostile.timeout)
        clones = work.appending("clones")
        try FileManager.default.createDirectory(atPath: clones, withIntermediateDirectories: false)
        if target == .fetch {
            try run(["cp", "-a", fixture.localTemplate, work.appending("local.git")])
            before = try RepositorySnapshot(work.appending("local.git"))
        } else {
            before = nil
        }
    }

    /// The repository to clone into (it does not exist yet) or fetch into.
    var path: String { target == .clone ? "\(clones)/copy.git" : work.appending("local.git") }

    /// Checks the result of the operation, which took `elapsed`: success with the server's refs
    /// and a sound repository, or the expected error and nothing left behind. `elapsed` is nil
    /// where it may include time the test waited for a thread of the concurrency pool (which
    /// blocking tests running alongside may hold for seconds).
    func verify(_ result: Result<FetchResult, any Error>, elapsed: Duration?) throws {
        let connections = server.finish()
        try #require(connections.count == 1)
        #expect(connections[0].clientClosed, "the client closes the connection")
        #expect(!connections[0].wants.isEmpty)

        if hostile == .badRefName {
            for escaped in ["\(path)/escape", "\(path)/refs/escape", "\(work.path)/escape"] {
                #expect(!FileManager.default.fileExists(atPath: escaped), "the bad ref was written at \(escaped)")
            }
        }
        guard let (kind, text) = hostile.expectedError(fixture, target) else {
            guard case .success(let fetched) = result else {
                Issue.record("failed where git succeeds: \(result)")
                try verifyNothingLeft()
                return
            }
            try git(["fsck", "--full", "--no-dangling"], in: path)
            #expect(
                try gitText(["for-each-ref"], in: path) == gitText(["for-each-ref"], in: fixture.server),
                "the refs are the server's")
            #expect(fetched.pack != nil)
            return
        }
        #expect(throws: (any Error).self) { try result.get() }
        guard case .failure(let error) = result else { return }
        let wireError = try #require(error as? any GitWireError, "\(type(of: error)): \(error)")
        #expect(wireError.kind == kind, "\(error)")
        #expect("\(error)".contains(text), "\(error)")

        try verifyNothingLeft()
        if hostile == .stallMidPack || hostile == .stallBeforePack {
            // The server saw the client give up after about the timeout, not at its own end.
            let stalled = try #require(connections[0].stalledFor)
            let timeout = hostile.timeout
            #expect(stalled >= timeout * 0.95 && stalled < timeout * 5, "the client gave up after \(stalled)")
            if let elapsed {
                #expect(elapsed >= timeout * 0.95 && elapsed < timeout * 5, "gave up after \(elapsed)")
            }
        }
    }

    /// Checks that a failed clone left no directory, or that a failed fetch left the repository
    /// as it was.
    func verifyNothingLeft() throws {
        switch target {
        case .clone:
            #expect(!FileManager.default.fileExists(atPath: path), "the clone's directory is removed")
            #expect(try FileManager.default.contentsOfDirectory(atPath: clones).isEmpty)
        case .fetch:
            let after = try RepositorySnapshot(path)
            #expect(after == before, "the repository is as it was")
            let left = try leftovers(in: path)
            #expect(left.isEmpty, "\(left)")
            try git(["fsck", "--full", "--no-dangling"], in: path)
        }
    }
}

@Suite("hostile servers during clone and fetch")
struct HostileFetchTests {
    /// The cases run through the run-loop and `async` forms as well.
    static let otherFormCases: [HostileFetch] = [
        .keepAlives, .brokenZlib, .countTooHigh, .band3MidPack, .errDuringNegotiation, .missingObject, .resetMidPack,
        .stallMidPack,
    ]

    @Test(arguments: HostileFetch.allCases, HostileFetchTarget.allCases)
    func blocking(_ hostile: HostileFetch, _ target: HostileFetchTarget) throws {
        let run = try HostileFetchRun(hostile, target)
        let started = ContinuousClock.now
        let result = Result {
            target == .clone
                ? try run.remote.cloneBlocking(into: run.path) : try run.remote.fetchBlocking(into: run.path)
        }
        try run.verify(result, elapsed: .now - started)
    }

    /// The same servers speaking protocol v2 (`packfile` section), through the blocking form.
    @Test(arguments: HostileFetch.allCases, HostileFetchTarget.allCases)
    func blockingV2(_ hostile: HostileFetch, _ target: HostileFetchTarget) throws {
        let run = try HostileFetchRun(hostile, target, version: .v2)
        let started = ContinuousClock.now
        let result = Result {
            target == .clone
                ? try run.remote.cloneBlocking(into: run.path) : try run.remote.fetchBlocking(into: run.path)
        }
        try run.verify(result, elapsed: .now - started)
    }

    @Test(arguments: otherFormCases, HostileFetchTarget.allCases)
    func onARunLoop(_ hostile: HostileFetch, _ target: HostileFetchTarget) throws {
        let run = try HostileFetchRun(hostile, target)
        let loop = try EpollRunLoop()
        var result: Result<FetchResult, any Error>?
        let completion = { (outcome: Result<FetchResult, any Error>) in
            result = outcome
            loop.stop()
        }
        let started = ContinuousClock.now
        switch target {
        case .clone: run.remote.clone(into: run.path, in: loop, completion: completion)
        case .fetch: run.remote.fetch(into: run.path, in: loop, completion: completion)
        }
        loop.run(until: .now + Duration.seconds(60).scaledForSlowRuns)
        let elapsed = ContinuousClock.now - started
        try run.verify(try #require(result, "the completion was called"), elapsed: elapsed)
    }

    @Test(.onTestThreads, arguments: otherFormCases, HostileFetchTarget.allCases)
    func async(_ hostile: HostileFetch, _ target: HostileFetchTarget) async throws {
        let run = try HostileFetchRun(hostile, target)
        let result: Result<FetchResult, any Error>
        do {
            switch target {
            case .clone: result = .success(try await run.remote.clone(into: run.path))
            case .fetch: result = .success(try await run.remote.fetch(into: run.path))
            }
        } catch {
            result = .failure(error)
        }
        try run.verify(result, elapsed: nil)
    }

    /// Cancelling an `async` clone or fetch while the server has sent half the pack stops at once
    /// and leaves nothing behind. (The task may wait long for a thread of the concurrency pool when
    /// blocking tests hold them all: hence the server's long lifetime.)
    @Test(.onTestThreads, arguments: HostileFetchTarget.allCases)
    func cancellingMidPackLeavesNothing(_ target: HostileFetchTarget) async throws {
        let run = try HostileFetchRun(.stallMidPack, target, lifetime: .seconds(180))
        // A timeout far beyond the cancellation, so that only the cancellation can end it, however
        // busy the machine.
        var remote = run.remote
        remote.timeout = Duration.seconds(170).scaledForSlowRuns
        let path = run.path
        let task = Task(executorPreference: TestThreads.shared) {
            target == .clone ? try await remote.clone(into: path) : try await remote.fetch(into: path)
        }
        #expect(await run.server.stallBegins(within: .seconds(170)))
        try await Task.sleep(for: .milliseconds(200))  // the half pack is in the indexer by now
        task.cancel()
        let result = await task.result
        #expect(throws: CancelledError.self) { try result.get() }
        let connections = run.server.finish()
        #expect(
            connections.first?.stalledFor.map { $0 < Duration.seconds(60).scaledForSlowRuns } == true,
            "the connection was closed at once")
        try run.verifyNothingLeft()
    }

    /// Real git meets each server as gitwire does: it takes the keep-alives and fails on
    /// everything else (git has no timeout, so the stalls are left out). Where gitwire's fetch
    /// exits 128, git's exits 1 when only the connectivity check failed
    /// (`error: <url> did not send all necessary objects`).
    @Test(
        arguments: HostileFetch.allCases.filter { $0 != .stallMidPack && $0 != .stallBeforePack },
        HostileFetchTarget.allCases)
    func gitAgrees(_ hostile: HostileFetch, _ target: HostileFetchTarget) throws {
        let run = try HostileFetchRun(hostile, target)
        let output: ProcessOutput
        switch target {
        case .clone:
            output = try git(["clone", "--bare", "--quiet", run.server.url(), run.path], check: false)
        case .fetch:
            output = try git(
                ["fetch", "--quiet", run.server.url(), "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"],
                in: run.path, check: false)
        }
        _ = run.server.finish()
        if hostile.expectedError(run.fixture, target) == nil {
            #expect(output.status == 0, "\(output.errorText)")
        } else {
            #expect(output.status == (target == .fetch && hostile == .missingObject ? 1 : 128), "\(output.errorText)")
        }
    }

    /// An `ERR` during the negotiation reads exactly as git shows it, for clone and fetch.
    @Test(arguments: HostileFetchTarget.allCases)
    func errorLineIsGits(_ target: HostileFetchTarget) throws {
        let run = try HostileFetchRun(.errDuringNegotiation, target, connections: 2)
        let url = run.server.url()
        let gitOutput: ProcessOutput
        let ours: ProcessOutput
        switch target {
        case .clone:
            gitOutput = try git(["clone", "--bare", url, run.path], check: false)
            ours = try gitwire(["clone", "--bare", "--timeout=10", url, run.path])
            #expect(!FileManager.default.fileExists(atPath: run.path))
        case .fetch:
            let refspecs = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]
            gitOutput = try git(["fetch", url] + refspecs, in: run.path, check: false)
            ours = try gitwire(["fetch", "--timeout=10", url, run.path] + refspecs)
        }
        _ = run.server.finish()
        #expect(gitOutput.status == 128)
        #expect(ours.status == 128)
        #expect(ours.errorText == gitOutput.errorText)
        #expect(ours.errorText.hasSuffix("fatal: remote error: \(HostileFetch.errMessage)\n"), "\(ours.errorText)")
    }

    /// `gitwire clone --bare` prints git's `fatal: ` line, exits 128 and leaves no directory.
    @Test(arguments: [HostileFetch.badTrailer, .band3MidPack, .hangUpMidPack, .stallMidPack])
    func cloneCommandFailsAsGitDoes(_ hostile: HostileFetch) throws {
        let fixture = try HostileFetchFixture.shared.get()
        let work = try TemporaryDirectory(prefix: "gitwire-hostile")
        let (negotiation, steps) = try hostile.script(fixture, .clone)
        let server = try HostileFetchServer(
            .v0(advertisement: fixture.advertisement), negotiation: negotiation, then: steps)
        let target = work.appending("copy.git")
        let output = try gitwire([
            "clone", "--bare", "--timeout=\(hostile.timeout.components.seconds)", server.url(), target,
        ])
        _ = server.finish()
        let (_, text) = try #require(hostile.expectedError(fixture, .clone))
        #expect(output.status == 128)
        #expect(output.standardOutput.isEmpty)
        let lines = output.errorText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "Cloning into bare repository '\(target)'...", "\(output.errorText)")
        let fatal = lines.dropLast().last ?? ""
        if hostile == .band3MidPack {
            // git 2.39.5 shows side-band 3 as the server's line, then its index-pack stops
            // early and never names the pack it kept.
            #expect(
                output.errorText.hasSuffix(
                    "remote: \(HostileFetch.band3Message)\n\nfatal: early EOF\nfatal: fetch-pack: invalid index-pack output\n"
                ),
                "\(output.errorText)")
        } else {
            #expect(fatal.hasPrefix("fatal: ") && fatal.contains(text), "\(output.errorText)")
        }
        #expect(output.errorText.hasSuffix("\n"))
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    /// `gitwire fetch` from a server whose pack lacks an object: `fatal: `, 128 (as its help says;
    /// git's fetch says `error: <url> did not send all necessary objects` and exits 1), nothing
    /// changed.
    @Test func fetchCommandFailsWithFatal() throws {
        let fixture = try HostileFetchFixture.shared.get()
        let work = try TemporaryDirectory(prefix: "gitwire-hostile")
        let (negotiation, steps) = try HostileFetch.missingObject.script(fixture, .fetch)
        let server = try HostileFetchServer(
            .v0(advertisement: fixture.advertisement), negotiation: negotiation, then: steps)
        let local = work.appending("local.git")
        try run(["cp", "-a", fixture.localTemplate, local])
        let before = try RepositorySnapshot(local)
        let output = try gitwire(
            ["fetch", "--timeout=10", server.url(), local, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"])
        _ = server.finish()
        let (_, text) = try #require(HostileFetch.missingObject.expectedError(fixture, .fetch))
        #expect(output.status == 128)
        // What the server said on band 2 comes first, as git shows it.
        var lines = output.errorText.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.popLast() == "")
        #expect(lines.popLast().map(String.init) == "fatal: \(text)", "\(output.errorText)")
        #expect(lines.allSatisfy { $0.hasPrefix("remote: ") }, "\(output.errorText)")
        #expect(try RepositorySnapshot(local) == before)
        let left = try leftovers(in: local)
        #expect(left.isEmpty, "\(left)")
    }
}

// MARK: - Repositories and packs

/// The server's repository (a real one, with a last commit the local clone lacks), a bare clone
/// made by git before that commit, the advertisement a v0 server sends for it, and the packs a
/// real `git pack-objects` makes: everything (for a clone) and what the last commit added (for a
/// fetch). Built once per test process.
final class HostileFetchFixture: Sendable {
    static let shared = Result { try HostileFetchFixture() }

    private let directory: TemporaryDirectory
    /// The server's repository, after its last commit.
    let server: String
    /// A bare clone of the server made before its last commit; copy it, never change it.
    let localTemplate: String
    /// The ref advertisement: `HEAD` with `multi_ack_detailed side-band-64k ofs-delta`, the
    /// branches and tags, peeled tags, flush.
    let advertisement: [UInt8]
    /// Where the server's `main` points.
    let mainID: String
    /// The protocol v2 capability advertisement, as git 2.39's upload-pack sends it.
    let v2Capabilities: [UInt8]
    /// The v2 `ls-refs` answer: `HEAD` with its `symref-target`, the branches and tags, `peeled`.
    let v2Refs: [UInt8]
    /// Every object of the server.
    let fullPack: [UInt8]
    /// What the last commit added.
    let newPack: [UInt8]
    /// The blob the last commit added, left out of ``fullPackLackingBlob`` and ``newPackLackingBlob``.
    let omittedBlob: String
    let fullPackLackingBlob: [UInt8]
    let newPackLackingBlob: [UInt8]

    private init() throws {
        directory = try TemporaryDirectory(prefix: "gitwire-hostile-fixture")
        server = directory.appending("server.git")
        localTemplate = directory.appending("local-template.git")
        try git(["init", "--quiet", "--bare", "--initial-branch=main", server])
        try git(["fast-import", "--quiet"], in: server, input: Array(Self.history().utf8))
        try git(["clone", "--quiet", "--bare", "--no-local", server, localTemplate])
        let oldMain = try gitText(["rev-parse", "main"], in: server)

        // The server's new commit: a new file, so the fetch needs a new commit, tree and blob.
        let content = "a file only the server has\n" + String(repeating: "new line\n", count: 40)
        var input = "blob\nmark :1\ndata \(content.utf8.count)\n\(content)\n"
        input += "commit refs/heads/main\nmark :2\n"
        input += "author A U Thor <author@example.com> 1700009999 +0000\n"
        input += "committer C O Mitter <committer@example.com> 1700009999 +0000\n"
        input += "data 11\nnew commit\nfrom \(oldMain)\nM 100644 :1 new-file.txt\n\n"
        try git(["fast-import", "--quiet"], in: server, input: Array(input.utf8))
        let newMain = try gitText(["rev-parse", "main"], in: server)
        mainID = newMain
        let blob = try gitText(["rev-parse", "main:new-file.txt"], in: server)
        omittedBlob = blob

        var lines = try gitText(["show-ref", "--head", "--dereference"], in: server).split(separator: "\n")
            .map(String.init)
        guard lines.first?.hasSuffix(" HEAD") == true else { throw FetchTestProblem("no HEAD in \(lines)") }
        lines[0] += "\0multi_ack_detailed side-band-64k ofs-delta"
        advertisement = lines.flatMap { PktLine.text($0).encoded } + PktLine.flush.encoded
        let capabilities = [
            "version 2", "agent=git/2.39.5", "ls-refs=unborn", "fetch=shallow wait-for-done", "server-option",
            "object-format=sha1",
        ]
        v2Capabilities = capabilities.flatMap { PktLine.text($0).encoded } + PktLine.flush.encoded
        var v2Lines: [String] = []
        for line in lines.map({ String($0.prefix { $0 != "\0" }) }) {
            if line.hasSuffix(" HEAD") {
                v2Lines.append(line + " symref-target:refs/heads/main")
            } else if line.hasSuffix("^{}") {
                v2Lines[v2Lines.count - 1] += " peeled:" + line.prefix(40)
            } else {
                v2Lines.append(line)
            }
        }
        v2Refs = v2Lines.flatMap { PktLine.text($0).encoded } + PktLine.flush.encoded

        let packObjects = ["pack-objects", "--quiet", "--stdout", "--delta-base-offset"]
        fullPack = try git(packObjects + ["--revs", "--all"], in: server).standardOutput
        newPack = try git(packObjects + ["--revs"], in: server, input: Array("\(newMain)\n^\(oldMain)\n".utf8))
            .standardOutput
        let allObjects = try gitText(["rev-list", "--objects", "--all"], in: server)
        let newObjects = try gitText(["rev-list", "--objects", newMain, "^\(oldMain)"], in: server)
        func without(_ list: String) -> [UInt8] {
            let kept = list.split(separator: "\n").filter { !$0.hasPrefix(blob) }
            return Array(kept.joined(separator: "\n").utf8) + [0x0a]
        }
        fullPackLackingBlob = try git(packObjects, in: server, input: without(allObjects)).standardOutput
        newPackLackingBlob = try git(packObjects, in: server, input: without(newObjects)).standardOutput
        guard objectCount(newPack) >= 3 && objectCount(fullPack) > 20 else { throw FetchTestProblem("packs too small") }
    }

    /// Twenty commits on `main` changing a few files (so the pack has deltas), a branch and an
    /// annotated tag, as fast-import input with fixed dates.
    private static func history() -> String {
        var input = ""
        for index in 1...20 {
            let content =
                "version \(index)\n" + String(repeating: "line of text \(index % 5)\n", count: 30 + index)
            input += "blob\nmark :\(index * 2)\ndata \(content.utf8.count)\n\(content)\n"
            input += "commit refs/heads/main\nmark :\(index * 2 + 1)\n"
            input += "author A U Thor <author@example.com> \(1_700_000_000 + index) +0000\n"
            input += "committer C O Mitter <committer@example.com> \(1_700_000_000 + index) +0000\n"
            let message = "commit \(index)\n"
            input += "data \(message.utf8.count)\n\(message)"
            if index > 1 { input += "from :\(index * 2 - 1)\n" }
            input += "M 100644 :\(index * 2) file-\(index % 4).txt\n\n"
        }
        input += "reset refs/heads/feature\nfrom :11\n\n"
        let message = "version one\n"
        input += "tag v1\nfrom :21\ntagger C O Mitter <committer@example.com> 1700100000 +0000\n"
        input += "data \(message.utf8.count)\n\(message)\n"
        return input
    }

    /// The pack a well-behaved server sends for `target`.
    func pack(for target: HostileFetchTarget) -> [UInt8] { target == .clone ? fullPack : newPack }

    /// The pack for `target` without ``omittedBlob``.
    func packLackingBlob(for target: HostileFetchTarget) -> [UInt8] {
        target == .clone ? fullPackLackingBlob : newPackLackingBlob
    }

    /// `pack` with the zlib header of a whole object in its middle broken, and the trailer
    /// recomputed, so that only the zlib stream is wrong.
    func brokenZlib(_ pack: [UInt8]) throws -> [UInt8] {
        let scratch = try TemporaryDirectory(prefix: "gitwire-hostile-pack")
        let path = scratch.appending("p.pack")
        try Data(pack).write(to: URL(fileURLWithPath: path))
        try git(["index-pack", path])
        let listing = try gitText(["verify-pack", "-v", scratch.appending("p.idx")])
        // "<id> <type> <size> <packed size> <offset>" for whole objects (deltas have two more).
        let wholeOffsets = listing.split(separator: "\n").compactMap { line -> Int? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 5, ["commit", "tree", "blob", "tag"].contains(fields[1]) else { return nil }
            return Int(fields[4])
        }.sorted()
        guard wholeOffsets.count >= 2 else { throw FetchTestProblem("no whole object past the first") }
        let offset = wholeOffsets[wholeOffsets.count / 2]
        var headerEnd = offset
        while pack[headerEnd] & 0x80 != 0 { headerEnd += 1 }
        var broken = Array(pack.dropLast(20))
        broken[headerEnd + 1] = 0xff  // CMF and FLG: 0xffff is no multiple of 31
        broken[headerEnd + 2] = 0xff
        return withTrailer(broken)
    }
}

// MARK: - Pack surgery

/// The object count in a pack's header.
func objectCount(_ pack: [UInt8]) -> UInt32 {
    pack[8..<12].reduce(0) { $0 << 8 | UInt32($1) }
}

/// `pack` with its trailer (whatever the last 20 bytes are) replaced by the SHA-1 of the rest.
func withTrailer(_ packWithoutTrailer: [UInt8]) -> [UInt8] {
    var pack = packWithoutTrailer
    UncheckedSHA1.hash(pack[...]).append(to: &pack)
    return pack
}

/// `pack` with `count` in its header and a trailer that matches.
private func withObjectCount(_ pack: [UInt8], _ count: UInt32) -> [UInt8] {
    var body = Array(pack.dropLast(20))
    body.replaceSubrange(0..<12, with: PackHeader(objectCount: count).bytes)
    return withTrailer(body)
}

/// `pack` with a REF_DELTA against `base` appended (count and trailer updated).
private func appendingReferenceDelta(to pack: [UInt8], base: ObjectID) throws -> [UInt8] {
    var builder = TestPackBuilder()
    try builder.addReferenceDelta(base: base, makeDelta(baseSize: 12, resultSize: 5, [5] + Array("hello".utf8)))
    let entry = builder.bytes().dropFirst(12).dropLast(20)
    var body = Array(pack.dropLast(20)) + entry
    body.replaceSubrange(0..<12, with: PackHeader(objectCount: objectCount(pack) + 1).bytes)
    return withTrailer(body)
}

/// The side-band stream of `pack` (cut at `upTo` bytes, with no flush, when given): progress,
/// then the pack in about eight packets, then a flush. With `keepAlives`, an empty band-1 packet
/// comes first, between every two packets and before the flush.
func sideBandStream(_ pack: [UInt8], upTo end: Int? = nil, keepAlives: Bool = false) -> [UInt8] {
    let keepAlive = keepAlives ? Array("0005\u{1}".utf8) : []
    var stream = keepAlive + sideBandPacket(2, Array("Enumerating objects: \(objectCount(pack)), done.\n".utf8))
    let chunk = max(16, pack.count / 8)
    var start = 0
    let stop = end ?? pack.count
    while start < stop {
        let next = min(start + chunk, stop)
        stream += keepAlive + sideBandPacket(1, pack[start..<next])
        start = next
    }
    return end == nil ? stream + keepAlive + PktLine.flush.encoded : stream
}

// MARK: - Repository state

/// What a fetch must leave as it was when it fails: refs, `packed-refs`, `shallow`, `HEAD`,
/// `config` and the names and sizes of the files under `objects/`.
private struct RepositorySnapshot: Equatable {
    var refs: String
    var packedRefs: Data?
    var shallow: Data?
    var head: Data?
    var config: Data?
    var objectFiles: [String]

    init(_ gitDirectory: String) throws {
        refs = try gitText(["for-each-ref"], in: gitDirectory)
        packedRefs = FileManager.default.contents(atPath: "\(gitDirectory)/packed-refs")
        shallow = FileManager.default.contents(atPath: "\(gitDirectory)/shallow")
        head = FileManager.default.contents(atPath: "\(gitDirectory)/HEAD")
        config = FileManager.default.contents(atPath: "\(gitDirectory)/config")
        let objects = "\(gitDirectory)/objects"
        objectFiles = try FileManager.default.subpathsOfDirectory(atPath: objects).sorted().map { name in
            let attributes = try FileManager.default.attributesOfItem(atPath: "\(objects)/\(name)")
            return "\(name) \(attributes[.size] as? Int ?? -1)"
        }
    }
}

/// Temporary and lock files anywhere in the repository: `tmp_pack_*`, `tmp_idx_*`, `*.lock`.
func leftovers(in gitDirectory: String) throws -> [String] {
    try FileManager.default.subpathsOfDirectory(atPath: gitDirectory).filter { path in
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasPrefix("tmp_") || name.hasSuffix(".lock") || name.hasPrefix(".promisor-")
    }
}
