import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A repository of its own for fetch tests (they add commits), served by its own git daemon.
final class FetchTestServer: @unchecked Sendable {
    let directory: TemporaryDirectory
    let daemon: GitDaemon
    /// The served bare repository.
    let path: String
    private var nextCommit = 1

    init() throws {
        directory = try TemporaryDirectory(prefix: "gitwire-fetch")
        path = directory.appending("served.git")
        try git(["init", "--quiet", "--bare", "--initial-branch=main", path])
        try git(["config", "pack.threads", "1"], in: path)
        daemon = try GitDaemon(basePath: directory.path)
    }

    var url: String { daemon.url("served.git") }

    /// Adds `count` commits to `branch` (created from `from`, or continuing itself), each
    /// changing a file that grows, so deltas appear.
    func addCommits(_ count: Int, branch: String = "main", from: String? = nil) throws {
        var input = ""
        for index in 0..<count {
            let number = nextCommit
            nextCommit += 1
            let content =
                "commit \(number) on \(branch)\n"
                + String(repeating: "shared line \(number % 9)\n", count: number % 40 + 5)
            input += "blob\nmark :\(index * 2 + 1)\ndata \(content.utf8.count)\n\(content)\n"
            input += "commit refs/heads/\(branch)\nmark :\(index * 2 + 2)\n"
            input += "committer C O Mitter <committer@example.com> \(1_700_000_000 + number * 60) +0000\n"
            let message = "commit \(number)\n"
            input += "data \(message.utf8.count)\n\(message)"
            if index == 0 {
                if let from {
                    input += "from \(from)\n"
                } else if try branchExists(branch) {
                    input += "from refs/heads/\(branch)^0\n"
                }
            } else {
                input += "from :\(index * 2)\n"
            }
            input += "M 100644 :\(index * 2 + 1) dir\(number % 3)/file-\(number % 7).txt\n\n"
        }
        try git(["fast-import", "--quiet"], in: path, input: Array(input.utf8))
    }

    private func branchExists(_ branch: String) throws -> Bool {
        try git(["rev-parse", "--verify", "--quiet", "refs/heads/\(branch)"], in: path, check: false).status == 0
    }

    /// An annotated tag on `target`.
    func tag(_ name: String, _ target: String) throws {
        try git(["tag", "-a", "-m", "tag \(name)", name, target], in: path)
    }
}

/// The commits of a local repository as git lists them.
func commitGraph(ofRepository path: String) throws -> TableCommitGraph {
    var graph = TableCommitGraph()
    let text = try gitText(["log", "--all", "--format=%H %ct %P"], in: path)
    for line in text.split(separator: "\n") {
        let fields = line.split(separator: " ").map(String.init)
        guard let id = ObjectID(fields[0]), let time = Int64(fields[1]) else { throw FetchTestProblem("bad log line") }
        graph.commits[id] = CommitSummary(parents: fields.dropFirst(2).compactMap(ObjectID.init), committerTime: time)
    }
    return graph
}

/// The ids `git rev-list --objects <arguments>` prints.
func revListObjects(_ arguments: [String], in path: String) throws -> Set<ObjectID> {
    let text = try gitText(["rev-list", "--objects"] + arguments, in: path)
    return Set(text.split(separator: "\n").compactMap { ObjectID(String($0.prefix(40))) })
}

/// Every ref's object id, as a clone of everything wants them.
@Sendable func everyRef(_ listing: RefListing) -> [ObjectID] {
    listing.refs.sorted { $0.nameBytes.lexicographicallyPrecedes($1.nameBytes) }.compactMap(\.objectID)
}

/// Fetches over git:// from real `git daemon` and `git-upload-pack`, and checks the packs
/// against what git itself has and receives.
@Suite struct FetchLiveTests {
    static func fetch(
        _ url: String, _ options: FetchOptions, localTips: [ObjectID] = [], graph: any CommitGraph = EmptyCommitGraph(),
        selectWants: @escaping @Sendable (RefListing) -> [ObjectID] = everyRef
    ) throws -> (FetchOutcome, FetchEvents) {
        let remote = try Remote(url, timeout: .seconds(60))
        var events = FetchEvents()
        let exchange = FetchExchange(options: options, localTips: localTips, graph: graph, selectWants: selectWants)
        let outcome = try remote.runBlocking(exchange, protocolVersion: options.protocolVersion, traceIdentity: "fetch")
        {
            events.add($0)
        }
        return (outcome, events)
    }

    @Test(arguments: [ProtocolVersion.v0, .v2])
    func cloneFetchesEveryObject(version: ProtocolVersion) throws {
        let repositories = TestRepositories.shared
        let (outcome, events) = try Self.fetch(
            repositories.daemon.url("small.git"), FetchOptions(protocolVersion: version, progress: true))
        #expect(outcome.listing.protocolVersion == version)
        #expect(outcome.receivedPack)
        #expect(!events.progress.isEmpty)
        let directory = try TemporaryDirectory()
        let pack = try IndexedPack(events.pack, in: directory, name: "clone")
        #expect(pack.ids == (try revListObjects(["--all"], in: repositories.path("small.git"))))
        #expect(pack.result.objectCount == events.totalFromProgress)
    }

    /// A fetch after the remote moved on, from the state a first fetch left: the pack must be
    /// thin, complete with the first pack's objects, and no bigger than what `git fetch` gets in
    /// the same situation.
    @Test(arguments: [ProtocolVersion.v0, .v2])
    func incrementalFetchGetsNoMoreThanGit(version: ProtocolVersion) throws {
        let server = try FetchTestServer()
        try server.addCommits(60)
        try server.addCommits(10, branch: "topic", from: "refs/heads/main~20")
        try server.tag("v1", "main~5")
        // git's own clone of the same first state, for comparison.
        let gitClone = server.directory.appending("git-clone.git")
        try git(["clone", "--quiet", "--bare", server.url, gitClone])

        let directory = try TemporaryDirectory()
        let (first, firstEvents) = try Self.fetch(server.url, FetchOptions(protocolVersion: version))
        let firstPack = try IndexedPack(firstEvents.pack, in: directory, name: "first")
        let localTips = first.listing.refs.compactMap { $0.peeled ?? $0.objectID }

        try server.addCommits(25)
        try server.addCommits(5, branch: "topic")
        try server.addCommits(3, branch: "new-branch", from: "refs/heads/main~2")
        try server.tag("v2", "main~1")

        // As `git fetch` with refspecs for branches and tags: refs already at the id the first
        // fetch saw are up to date and not asked for (git leaves them out before it negotiates).
        let known = Dictionary(first.listing.refs.map { ($0.name, $0.objectID) }) { a, _ in a }
        let (second, secondEvents) = try Self.fetch(
            server.url, FetchOptions(protocolVersion: version), localTips: localTips,
            graph: try firstPack.commitGraph()
        ) { listing in
            listing.refs.filter { ($0.name.hasPrefix("refs/heads/") || $0.name.hasPrefix("refs/tags/")) }
                .filter { known[$0.name] != $0.objectID }
                .sorted { $0.nameBytes.lexicographicallyPrecedes($1.nameBytes) }.compactMap(\.objectID)
        }
        #expect(second.statistics.havesSent > 0)
        #expect(!second.commonCommits.isEmpty)
        let pack = try IndexedPack(secondEvents.pack, in: directory, name: "second", bases: firstPack.reader)
        #expect(pack.result.objectsAdded > 0)  // thin: deltas against objects we had
        let received = pack.result.objectCount - pack.result.objectsAdded
        let needed = try revListObjects(["--all", "--not"] + localTips.map(\.hex), in: server.path)
            .subtracting(firstPack.ids)
        #expect(needed.subtracting(pack.ids).isEmpty)
        // All objects are now here.
        #expect(pack.ids.union(firstPack.ids) == (try revListObjects(["--all"], in: server.path)))

        // What git fetch receives from the same state.
        let output = try git(
            [
                "-c", "protocol.version=\(version.rawValue)", "fetch", "--progress", "origin",
                "+refs/heads/*:refs/heads/*",
                "+refs/tags/*:refs/tags/*",
            ], in: gitClone)
        let gitTotal = try #require(
            output.errorText.range(of: "Total ").flatMap {
                Int(output.errorText[$0.upperBound...].prefix { $0.isNumber })
            })
        #expect(received <= gitTotal)
    }

    @Test(arguments: [ProtocolVersion.v0, .v2])
    func deepenReportsShallowCommits(version: ProtocolVersion) throws {
        let server = try FetchTestServer()
        try server.addCommits(30)
        try server.addCommits(4, branch: "side", from: "refs/heads/main~3")
        let main = try #require(ObjectID(try gitText(["rev-parse", "main"], in: server.path)))
        let side = try #require(ObjectID(try gitText(["rev-parse", "side"], in: server.path)))

        let (outcome, events) = try Self.fetch(
            server.url, FetchOptions(protocolVersion: version, depth: 1, includeTag: false))
        #expect(Set(outcome.wants) == [main, side])
        #expect(Set(events.shallow) == [main, side])
        #expect(outcome.shallow == events.shallow)
        let directory = try TemporaryDirectory()
        let pack = try IndexedPack(events.pack, in: directory, name: "shallow")
        #expect(pack.ids == (try revListObjects(["--no-walk", "main", "side"], in: server.path)))

        // Deepening that shallow repository by 2 more commits on main.
        let shallowGraph = try pack.commitGraph()
        let (deeper, deeperEvents) = try Self.fetch(
            server.url,
            FetchOptions(
                protocolVersion: version, depth: 2, deepenRelative: true, includeTag: false, localShallow: [main]),
            localTips: [main], graph: shallowGraph,
            selectWants: { listing in
                listing.refs.filter { $0.name == "refs/heads/main" }.compactMap(\.objectID)
            })
        let mainGrandparent = try #require(ObjectID(try gitText(["rev-parse", "main~2"], in: server.path)))
        #expect(deeper.shallow == [mainGrandparent])
        #expect(deeperEvents.unshallow == [main])
        let deeperPack = try IndexedPack(deeperEvents.pack, in: directory, name: "deeper", bases: pack.reader)
        // With what the shallow repository had, everything of the two new commits is here.
        #expect(
            deeperPack.ids.union(pack.ids).isSuperset(
                of: try revListObjects(["--no-walk", "main~1", "main~2"], in: server.path)))
    }

    @Test(arguments: [ProtocolVersion.v0, .v2])
    func nothingToFetchEndsCleanly(version: ProtocolVersion) throws {
        let server = try FetchTestServer()
        try server.addCommits(5)
        let graph = try commitGraph(ofRepository: server.path)
        let tip = try #require(ObjectID(try gitText(["rev-parse", "main"], in: server.path)))
        let (outcome, events) = try Self.fetch(
            server.url, FetchOptions(protocolVersion: version), localTips: [tip], graph: graph)
        #expect(outcome.wants.isEmpty)
        #expect(!outcome.receivedPack && events.pack.isEmpty)
    }
}

/// Fetches over stateless RPC (the way smart HTTP runs): each request of the exchange goes to a
/// fresh `git upload-pack --stateless-rpc`, which remembers nothing between requests.
@Suite struct FetchStatelessTests {
    static func fetchStateless(
        _ exchange: FetchExchange, repository: String, version: ProtocolVersion
    ) throws -> (FetchOutcome, FetchEvents, requests: Int) {
        let environment = version == .v2 ? ["GIT_PROTOCOL": "version=2"] : [:]
        var codec = ExchangeCodec(exchange)
        var events = FetchEvents()
        _ = try codec.opening(greeting: [], context: ExchangeContext(connectionPersists: false))
        let advertisement = try git(
            ["upload-pack", "--stateless-rpc", "--advertise-refs", repository], environment: environment)
        var request = try codec.receive(advertisement.standardOutput) { events.add($0) }
        var requests = 0
        while codec.output == nil {
            guard !request.isEmpty, requests < 40 else { throw FetchTestProblem("the exchange stalled") }
            requests += 1
            let response = try git(
                ["upload-pack", "--stateless-rpc", repository], environment: environment, input: request)
            request = try codec.receive(response.standardOutput) { events.add($0) }
        }
        return (try #require(codec.output), events, requests)
    }

    /// The local repository has 60 commits of its own on top of an old state of the remote, so
    /// the negotiation takes several rounds before it reaches common history.
    @Test(arguments: [ProtocolVersion.v0, .v2])
    func negotiatesOverSeveralStatelessRequests(version: ProtocolVersion) throws {
        let server = try FetchTestServer()
        try server.addCommits(30)
        try server.addCommits(60, branch: "local-only", from: "refs/heads/main~10")
        let localGraph = try commitGraph(ofRepository: server.path)
        let localTip = try #require(ObjectID(try gitText(["rev-parse", "local-only"], in: server.path)))
        let base = try #require(ObjectID(try gitText(["rev-parse", "main~10"], in: server.path)))
        let oldMain = try #require(ObjectID(try gitText(["rev-parse", "main"], in: server.path)))
        // The server forgets the local-only commits, then moves on.
        try git(["update-ref", "-d", "refs/heads/local-only"], in: server.path)
        try git(["reflog", "expire", "--expire=now", "--all"], in: server.path)
        try git(["gc", "--quiet", "--prune=now"], in: server.path)
        try server.addCommits(15)
        let newMain = try #require(ObjectID(try gitText(["rev-parse", "main"], in: server.path)))

        let exchange = FetchExchange(
            options: FetchOptions(protocolVersion: version), localTips: [localTip],
            graph: localGraph.reachable(from: [localTip])
        ) { listing in listing.refs.filter { $0.name == "refs/heads/main" }.compactMap(\.objectID) }
        let (outcome, events, requests) = try Self.fetchStateless(exchange, repository: server.path, version: version)

        #expect(outcome.wants == [newMain])
        #expect(outcome.commonCommits.contains(base))
        #expect(!outcome.commonCommits.contains(localTip))
        #expect(outcome.statistics.rounds >= 3)
        #expect(requests >= 3)
        #expect(!outcome.commonCommits.contains(oldMain))  // the local side never had it
        let directory = try TemporaryDirectory()
        let pack = try IndexedPack(
            events.pack, in: directory, name: "stateless", bases: try ObjectDatabase(gitDirectory: server.path))
        let needed = try revListObjects(["main", "--not", base.hex], in: server.path)
        #expect(needed.subtracting(pack.ids).isEmpty)
    }
}
