import GitWire
import GitWireReplay
import GitWireTestSupport
import Testing

/// Objects of `base` limited to `ids`: a repository that holds only some of them.
final class LimitedObjectSource: ObjectSource {
    let base: any ObjectSource
    let ids: Set<ObjectID>

    init(_ base: any ObjectSource, ids: Set<ObjectID>) {
        self.base = base
        self.ids = ids
    }

    func object(_ id: ObjectID) throws -> GitObject? { ids.contains(id) ? try base.object(id) : nil }
}

/// git's own `clone` and `fetch` sessions, recorded from git daemon, replayed through
/// ``FetchExchange``: gitwire must send exactly the bytes git sent, and the pack must index. The
/// same for the sessions of a SHA-256 repository (`sha256/fetch/`): there too gitwire sends
/// what git sent (no `object-format` in v0's wants, `object-format=sha256` in v2's commands).
@Suite struct FetchReplayTests {
    /// The pack the clone fixture of `version` received (decoded by the test support, not by
    /// gitwire), indexed; `folder` is `""` or `"sha256/fetch/"`.
    static func clonePack(_ version: Int, folder: String = "", in directory: TemporaryDirectory) throws -> IndexedPack {
        let fixture = try FetchFixture("\(folder)v\(version)-clone")
        let decoded = try DecodedFetch(fixture.session)
        return try IndexedPack(decoded.pack, in: directory, name: "clone-v\(version)", format: fixture.format)
    }

    /// What the client sent about the object format: no `object-format` in a v0 request (git
    /// sends none), `object-format=<format>` in each v2 command when the server is SHA-256 or
    /// names its format.
    static func expectObjectFormatLines(_ fixture: FetchFixture) throws {
        let lines = try DecodedFetch(fixture.session).clientPackets.compactMap(\.text).filter {
            $0.contains("object-format")
        }
        if fixture.protocolVersion == .v2 {
            #expect(!lines.isEmpty && lines.allSatisfy { $0 == "object-format=\(fixture.format.name)" })
        } else {
            #expect(lines.isEmpty)
        }
    }

    @Test(arguments: [
        ("v0-clone", ReplayChunking.whole), ("v2-clone", .whole), ("v0-clone", .oneByte),
        ("v2-clone", .sizes([1, 5, 4096, 3])), ("sha256/fetch/v0-clone", .whole), ("sha256/fetch/v2-clone", .whole),
        ("sha256/fetch/v0-clone", .sizes([1, 5, 4096, 3])), ("sha256/fetch/v2-clone", .oneByte),
    ])
    func cloneIsByteIdentical(name: String, chunking: ReplayChunking) throws {
        let fixture = try FetchFixture(name)
        try Self.expectObjectFormatLines(fixture)
        let options = FetchOptions(
            protocolVersion: fixture.protocolVersion, includeTag: false, progress: true,
            agent: try fixture.clientAgent(),
            refPrefixes: fixture.protocolVersion == .v2 ? ["HEAD", "refs/heads/", "refs/tags/"] : [])
        let exchange = FetchExchange(
            options: options, localTips: [], graph: EmptyCommitGraph(), selectWants: cloneWants)
        let (outcome, events) = try fixture.replay(exchange, chunking: chunking)

        #expect(events.refs == outcome.listing.refs)
        #expect(outcome.listing.refs.map(\.name) == ["HEAD", "refs/heads/main", "refs/tags/v1"])
        #expect(outcome.wants == cloneWants(outcome.listing))
        #expect(outcome.commonCommits.isEmpty)
        #expect(outcome.statistics.havesSent == 0)
        #expect(outcome.receivedPack)
        #expect(outcome.packByteCount == events.pack.count)
        #expect(events.pack.starts(with: Array("PACK".utf8)))
        // Progress arrives raw, as the server wrote it, and its total is the pack's object count.
        let total = try #require(events.totalFromProgress)
        #expect(String(decoding: events.progress, as: UTF8.self).contains("Enumerating objects: \(total), done.\n"))

        #expect(outcome.listing.objectFormat == fixture.format)
        #expect(outcome.wants.allSatisfy { $0.format == fixture.format })
        let directory = try TemporaryDirectory()
        let pack = try IndexedPack(events.pack, in: directory, name: "fetched", format: fixture.format)
        #expect(pack.result.objectCount == total)
        #expect(pack.result.objectsAdded == 0)
        // Everything the refs reach is there.
        let tips = outcome.listing.refs.compactMap(\.objectID)
        #expect(try reachableObjects(from: tips, in: pack.reader) == pack.ids)
    }

    @Test(arguments: [
        "v0-shallow-clone", "v2-shallow-clone", "sha256/fetch/v0-shallow-clone", "sha256/fetch/v2-shallow-clone",
    ])
    func shallowCloneIsByteIdentical(name: String) throws {
        let fixture = try FetchFixture(name)
        try Self.expectObjectFormatLines(fixture)
        let options = FetchOptions(
            protocolVersion: fixture.protocolVersion, depth: 1, agent: try fixture.clientAgent(),
            refPrefixes: fixture.protocolVersion == .v2 ? ["HEAD", "refs/heads/", "refs/tags/"] : [])
        let exchange = FetchExchange(
            options: options, localTips: [], graph: EmptyCommitGraph(), selectWants: singleBranchWants)
        let (outcome, events) = try fixture.replay(exchange)

        let head = try #require(outcome.listing.refs.first { $0.name == "HEAD" }?.objectID)
        #expect(outcome.wants == [head, head])
        #expect(events.shallow == [head])
        #expect(outcome.shallow == [head])
        #expect(outcome.unshallow.isEmpty && events.unshallow.isEmpty)
        #expect(events.progress.isEmpty)

        // The pack holds exactly the tip commit and its tree: checked against the full clone.
        let directory = try TemporaryDirectory()
        let folder = name.hasPrefix("sha256/") ? "sha256/fetch/" : ""
        let full = try Self.clonePack(fixture.protocolVersion == .v2 ? 2 : 0, folder: folder, in: directory)
        let pack = try IndexedPack(events.pack, in: directory, name: "shallow", format: fixture.format)
        #expect(pack.ids == (try reachableObjects(from: [head], in: full.reader, depth: 1)))
        #expect(pack.result.objectCount < full.result.objectCount)
    }

    /// The incremental fetch fixtures were recorded from a bare clone whose `main` had been set
    /// back 15 commits and pruned: the local repository held `main~15` and its 24 ancestors.
    /// That repository is rebuilt here from the clone fixture's pack, and gitwire's negotiator
    /// must choose git's haves from it, in git's order, batched as git batched them.
    @Test(arguments: [
        "v0-incremental-fetch", "v2-incremental-fetch", "sha256/fetch/v0-incremental-fetch",
        "sha256/fetch/v2-incremental-fetch",
    ])
    func incrementalFetchIsByteIdentical(name: String) throws {
        let fixture = try FetchFixture(name)
        try Self.expectObjectFormatLines(fixture)
        let version = fixture.protocolVersion == .v2 ? 2 : 0
        let directory = try TemporaryDirectory()
        let folder = name.hasPrefix("sha256/") ? "sha256/fetch/" : ""
        let full = try Self.clonePack(version, folder: folder, in: directory)
        let fullGraph = try full.commitGraph()

        // main~15 in the full history: follow first parents from the newest commit.
        let newest = try #require(fullGraph.commits.max { $0.value.committerTime < $1.value.committerTime }?.key)
        var oldTip = newest
        for _ in 0..<15 { oldTip = try #require(fullGraph.commits[oldTip]?.parents.first) }
        let localGraph = fullGraph.reachable(from: [oldTip])
        #expect(localGraph.commits.count == 25)

        let options = FetchOptions(
            protocolVersion: fixture.protocolVersion, agent: try fixture.clientAgent(),
            refPrefixes: fixture.protocolVersion == .v2 ? ["refs/heads/", "refs/tags/", "refs/tags/"] : [],
            objectFormat: fixture.format)
        let exchange = FetchExchange(
            options: options, localTips: [oldTip], graph: localGraph, selectWants: branchesAndTagsWants)
        let (outcome, events) = try fixture.replay(exchange)

        #expect(outcome.wants == branchesAndTagsWants(outcome.listing))
        #expect(outcome.wants.contains(newest))
        // Haves are the local commits, newest first, the old tip leading.
        #expect(outcome.commonCommits.first == oldTip)
        #expect(Set(outcome.commonCommits).isSubset(of: Set(localGraph.commits.keys)))
        if version == 0 {
            // Two batches (16, then the 9 left) went out before the first answer was read.
            #expect(outcome.statistics.havesSent == 25)
            #expect(outcome.statistics.rounds == 1)
        } else {
            // One request of 16 haves; the server was ready after it.
            #expect(outcome.statistics.havesSent == 16)
            #expect(outcome.statistics.rounds == 1)
            #expect(outcome.commonCommits.count == 16)
        }

        // A thin pack: what the new refs reach minus what the local repository has, completed
        // from the local objects.
        let localObjects = try reachableObjects(from: [oldTip], in: full.reader)
        let remoteObjects = try reachableObjects(from: outcome.wants, in: full.reader)
        let pack = try IndexedPack(
            events.pack, in: directory, name: "incremental", bases: LimitedObjectSource(full.reader, ids: localObjects),
            format: fixture.format)
        #expect(pack.result.objectCount - pack.result.objectsAdded == remoteObjects.subtracting(localObjects).count)
        #expect(pack.ids.isSuperset(of: remoteObjects.subtracting(localObjects)))
        #expect(pack.ids.isSubset(of: remoteObjects))
    }
}
