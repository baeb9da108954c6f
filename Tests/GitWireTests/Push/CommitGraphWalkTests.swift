import Foundation
import GitWireCore
import GitWireTestSupport
import Testing

@testable import GitWire

/// The push's walk reads commits from the repository's commit-graph (`git commit-graph write`)
/// when it has one, as git's does: the commits' trees, parents and dates must be those of the
/// commit objects (checked against `git log`), the pack the same byte for byte with and without
/// the graph, and a graph that is damaged, truncated, stale or lying must not change the pack or
/// stop the push (git falls back on a damaged file too, and dies on a lying one).
@Suite("Commit-graph walk")
struct CommitGraphWalkTests {
    /// A history with merges (one an octopus of three parents, which needs the graph's extra
    /// edge list), commits with equal dates and dates out of order, on three branches; packed.
    static func makeHistory(_ path: String, format: ObjectFormat = .sha1, commits: ClosedRange<Int> = 1...90) throws {
        if !FileManager.default.fileExists(atPath: path) {
            try git(["init", "--quiet", "--bare", "--object-format=\(format == .sha1 ? "sha1" : "sha256")", path])
        }
        var input = ""
        for commit in commits {
            input += "commit refs/heads/main\nmark :\(commit)\n"
            // Every fifth commit shares its parent's date; every seventh is dated before it.
            let time = 1_700_000_000 + (commit - (commit % 5 == 0 ? 1 : 0)) * 60 - (commit % 7 == 0 ? 600 : 0)
            input += "committer C O Mitter <committer@example.com> \(time) +0000\n"
            input += "data \("commit \(commit)\n".utf8.count)\ncommit \(commit)\n"
            if commit == commits.lowerBound && commit > 1 { input += "from refs/heads/main^0\n" }
            if commit % 30 == 10 {
                // Two side branches from here, merged at commit + 10 with main: an octopus.
                input += "M 100644 inline side/base.txt\ndata 5\nbase\n\n\n"
                for side in ["a", "b"] {
                    input += "commit refs/heads/side-\(side)\nmark :\(commit * 100 + (side == "a" ? 1 : 2))\n"
                    input += "committer C O Mitter <committer@example.com> \(time + 30) +0000\n"
                    input += "data 5\nside\nfrom :\(commit)\n"
                    input += "M 100644 inline side/\(side)-\(commit).txt\ndata 5\nside\n\n\n"
                }
                continue
            }
            // The branches by name: a second import (commits made after a graph) reaches those
            // of the first.
            if commit % 30 == 20 {
                input += "merge refs/heads/side-a\nmerge refs/heads/side-b\n"
            } else if commit % 30 == 25 {
                input += "merge refs/heads/side-a\n"
            }
            let content = "commit \(commit)\n" + String(repeating: "line of file \(commit % 9)\n", count: 12)
            input += "M 100644 inline d\(commit % 4)/f\(commit % 9).txt\ndata \(content.utf8.count)\n\(content)\n"
        }
        try git(["fast-import", "--quiet", "--force"], environment: ["GIT_DIR": path], input: Array(input.utf8))
        try git(["-C", path, "repack", "-adq"])
    }

    static let repository = Result { () throws -> (TemporaryDirectory, String) in
        let directory = try TemporaryDirectory(prefix: "gitwire-commit-graph")
        let path = directory.appending("repository.git")
        try makeHistory(path)
        try git(["-C", path, "commit-graph", "write", "--reachable", "--no-progress"])
        return (directory, path)
    }

    /// `git log --all`'s commits: id, tree, parents and committer date.
    static func gitCommits(_ path: String) throws -> [(id: String, tree: String, parents: [String], time: Int64)] {
        try gitText(["-C", path, "log", "--all", "--format=%H %T %ct %P"]).split(separator: "\n").map { line in
            let fields = line.split(separator: " ").map(String.init)
            return (fields[0], fields[1], Array(fields[3...]), Int64(fields[2])!)
        }
    }

    static func checkChain(_ chain: CommitGraphChain, against path: String, format: ObjectFormat) throws {
        let commits = try gitCommits(path)
        #expect(chain.count == commits.count)
        var generations: [ObjectID: Int64] = [:]
        for commit in commits.reversed() {
            let id = ObjectID(hex: Array(commit.id.utf8), format: format)!
            guard let found = chain.commit(id) else {
                Issue.record("\(commit.id) not in the graph")
                continue
            }
            #expect(found.tree.hex == commit.tree, "\(commit.id)")
            #expect(found.parents.map(\.hex) == commit.parents, "\(commit.id)")
            #expect(found.committerTime == commit.time, "\(commit.id)")
            generations[id] = found.generation
        }
        // A generation is more than each parent's (levels and corrected dates alike).
        for commit in commits {
            let id = ObjectID(hex: Array(commit.id.utf8), format: format)!
            for parent in chain.commit(id)?.parents ?? [] {
                #expect(generations[id]! > generations[parent]!, "\(commit.id) over \(parent)")
            }
        }
    }

    @Test("the graph says what the commits say: one file, a split chain with an octopus merge, SHA-256")
    func parserAgainstGit() throws {
        let (directory, path) = try Self.repository.get()
        let objects = "\(path)/objects"
        let single = try #require(CommitGraphChain.load(objectsDirectory: objects, alternates: [], format: .sha1))
        #expect(single.layers.count == 1)
        #expect(single.usesCorrectedDates)
        try Self.checkChain(single, against: path, format: .sha1)

        let split = directory.appending("split-\(UInt32.random(in: 0 ... .max)).git")
        try git(["init", "--quiet", "--bare", split])
        try Self.makeHistory(split, commits: 1...45)
        try git(["-C", split, "commit-graph", "write", "--reachable", "--split", "--no-progress"])
        try Self.makeHistory(split, commits: 46...90)
        try git(["-C", split, "commit-graph", "write", "--reachable", "--split=no-merge", "--no-progress"])
        let chain = try #require(
            CommitGraphChain.load(objectsDirectory: "\(split)/objects", alternates: [], format: .sha1))
        #expect(chain.layers.count == 2)
        try Self.checkChain(chain, against: split, format: .sha1)

        // Topological levels only (commitGraph.generationVersion=1): no corrected dates.
        let levels = directory.appending("levels-\(UInt32.random(in: 0 ... .max)).git")
        try git(["clone", "--quiet", "--bare", "--no-local", path, levels])
        try git([
            "-C", levels, "-c", "commitGraph.generationVersion=1", "commit-graph", "write", "--reachable",
            "--no-progress",
        ])
        let levelChain = try #require(
            CommitGraphChain.load(objectsDirectory: "\(levels)/objects", alternates: [], format: .sha1))
        #expect(!levelChain.usesCorrectedDates)
        try Self.checkChain(levelChain, against: levels, format: .sha1)

        let sha256 = directory.appending("sha256-\(UInt32.random(in: 0 ... .max)).git")
        try Self.makeHistory(sha256, format: .sha256, commits: 1...40)
        try git(["-C", sha256, "commit-graph", "write", "--reachable", "--no-progress"])
        let wide = try #require(
            CommitGraphChain.load(objectsDirectory: "\(sha256)/objects", alternates: [], format: .sha256))
        try Self.checkChain(wide, against: sha256, format: .sha256)
        // A graph of the other hash is not read.
        #expect(CommitGraphChain.load(objectsDirectory: "\(sha256)/objects", alternates: [], format: .sha1) == nil)
    }

    /// The pack of `include` less `exclude`, and how many commit objects its walk read.
    static func pack(
        _ path: String, include: [String], exclude: [String] = [], thin: Bool = false, commitGraph: Bool
    ) throws -> (bytes: [UInt8], commitsRead: Int) {
        let database = try ObjectDatabase(gitDirectory: path)
        let ids = { (hexes: [String]) in hexes.map { ObjectID(hex: Array($0.utf8), format: database.format)! } }
        let walk = try ObjectWalk(
            database: database, include: ids(include), exclude: ids(exclude), thin: thin, commitGraph: commitGraph)
        var options = PackWriter.Options(thin: thin, threads: 2)
        options.commitGraph = commitGraph
        let writer = try PackWriter(
            database: try ObjectDatabase(gitDirectory: path), include: ids(include), exclude: ids(exclude),
            options: options)
        var bytes: [UInt8] = []
        while let chunk = try writer.read() { bytes += chunk }
        return (bytes, walk.commitObjectsRead)
    }

    static func tips(_ path: String) throws -> [String: String] {
        var tips: [String: String] = [:]
        for name in ["main", "main~7", "main~31", "main~50", "side-a", "side-b"] {
            tips[name] = try gitText(["-C", path, "rev-parse", name])
        }
        return tips
    }

    @Test("the same pack byte for byte with and without the graph; no commit object read with it")
    func samePack() throws {
        let (_, path) = try Self.repository.get()
        let tips = try Self.tips(path)
        let cases: [([String], [String], Bool)] = [
            (["main"], [], false), (["main", "side-a", "side-b"], [], false), (["main"], ["main~31"], true),
            (["main"], ["main~7", "side-a"], false), (["main~7"], ["main~50"], true),
        ]
        for (include, exclude, thin) in cases {
            let with = try Self.pack(
                path, include: include.map { tips[$0]! }, exclude: exclude.map { tips[$0]! }, thin: thin,
                commitGraph: true)
            let without = try Self.pack(
                path, include: include.map { tips[$0]! }, exclude: exclude.map { tips[$0]! }, thin: thin,
                commitGraph: false)
            #expect(with.bytes.count > 1000)
            let same = with.bytes == without.bytes
            #expect(same, "\(include) ^\(exclude) thin \(thin)")
            #expect(with.commitsRead == 0, "\(include) ^\(exclude)")
            #expect(without.commitsRead > 10, "\(include) ^\(exclude)")
        }
    }

    @Test("a stale graph: the commits it lacks are read, the pack is the same")
    func staleGraph() throws {
        let (directory, source) = try Self.repository.get()
        let path = directory.appending("stale-\(UInt32.random(in: 0 ... .max)).git")
        try git(["init", "--quiet", "--bare", path])
        try Self.makeHistory(path, commits: 1...60)
        try git(["-C", path, "commit-graph", "write", "--reachable", "--no-progress"])
        try Self.makeHistory(path, commits: 61...90)
        #expect(try gitText(["-C", path, "rev-parse", "main"]) == gitText(["-C", source, "rev-parse", "main"]))
        let main = try gitText(["-C", path, "rev-parse", "main"])
        let with = try Self.pack(path, include: [main], commitGraph: true)
        let without = try Self.pack(path, include: [main], commitGraph: false)
        #expect(with.bytes == without.bytes)
        // The commits made after the graph: all the graph does not list.
        let graph = try #require(try ObjectDatabase(gitDirectory: path).commitGraph())
        let all = try gitText(["-C", path, "rev-list", "--count", "main"])
        #expect(with.commitsRead == Int(all)! - graph.count)
        #expect(with.commitsRead > 30)
    }

    /// Copies of the repository with its graph damaged in each way, each with the ways git 2.39
    /// handles it.
    static func damage(_ bytes: [UInt8]) -> [(String, [UInt8])] {
        var flipped = bytes
        flipped[bytes.count / 2] ^= 0x10
        var wrongHash = bytes
        wrongHash[5] = 2
        return [
            ("empty", []), ("cut to its header", Array(bytes.prefix(8))),
            ("cut in half", Array(bytes.prefix(bytes.count / 2))),
            ("one byte short", Array(bytes.dropLast())), ("a bit flipped", flipped),
            ("SHA-256 hash version", wrongHash),
            ("one byte more", bytes + [0]),
        ]
    }

    @Test("a damaged or truncated graph is not used: the same pack as without it, as git's (git falls back too)")
    func damagedGraph() throws {
        let (directory, source) = try Self.repository.get()
        let graph = try Array(Data(contentsOf: URL(fileURLWithPath: "\(source)/objects/info/commit-graph")))
        let main = try gitText(["-C", source, "rev-parse", "main"])
        let expected = try Self.pack(source, include: [main], commitGraph: false).bytes
        for (name, bytes) in Self.damage(graph) {
            let path = directory.appending("damaged-\(UInt32.random(in: 0 ... .max)).git")
            try git(["clone", "--quiet", "--bare", "--no-local", source, path])
            try Data(bytes).write(to: URL(fileURLWithPath: "\(path)/objects/info/commit-graph"))
            let result = try Self.pack(path, include: [main], commitGraph: true)
            #expect(result.bytes == expected, "\(name)")
            #expect(result.commitsRead > 50, "\(name): the graph was used")
            // git's pack-objects reads the same repository to the end (for all but the flipped bit, which git
            // does not detect: it may use what the flipped byte says).
            if name != "a bit flipped" {
                let gits = try git(
                    ["-C", path, "pack-objects", "--revs", "--stdout", "-q"], input: Array("main\n".utf8), check: false)
                #expect(gits.status == 0, "\(name): \(gits.standardError)")
            }
        }
    }

    @Test("a split chain with a layer missing or not matching: the layers below it are used, as git uses them")
    func brokenChain() throws {
        let (directory, source) = try Self.repository.get()
        let path = directory.appending("chain-\(UInt32.random(in: 0 ... .max)).git")
        try git(["init", "--quiet", "--bare", path])
        try Self.makeHistory(path, commits: 1...45)
        try git(["-C", path, "commit-graph", "write", "--reachable", "--split", "--no-progress"])
        try Self.makeHistory(path, commits: 46...90)
        try git(["-C", path, "commit-graph", "write", "--reachable", "--split=no-merge", "--no-progress"])
        let chainFile = "\(path)/objects/info/commit-graphs/commit-graph-chain"
        let names = try String(contentsOfFile: chainFile, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(names.count == 2)
        let main = try gitText(["-C", path, "rev-parse", "main"])
        let expected = try Self.pack(path, include: [main], commitGraph: false).bytes
        #expect(try Self.pack(path, include: [main], commitGraph: true).commitsRead == 0)
        #expect(try gitText(["-C", source, "rev-parse", "main"]) == main)
        let top = "\(path)/objects/info/commit-graphs/graph-\(names[1]).graph"
        let topBytes = try Data(contentsOf: URL(fileURLWithPath: top))
        // The top layer gone: the base layer serves the first 45 commits (and their side commits).
        try FileManager.default.removeItem(atPath: top)
        let baseOnly = try Self.pack(path, include: [main], commitGraph: true)
        #expect(baseOnly.bytes == expected)
        let base = try #require(try ObjectDatabase(gitDirectory: path).commitGraph())
        #expect(base.layers.count == 1)
        let all = try gitText(["-C", path, "rev-list", "--count", "main"])
        #expect(baseOnly.commitsRead == Int(all)! - base.count)
        #expect(baseOnly.commitsRead > 40)
        // The chain's lines swapped: the first layer named has base graphs, so none is used.
        try topBytes.write(to: URL(fileURLWithPath: top))
        try Data("\(names[1])\n\(names[0])\n".utf8).write(to: URL(fileURLWithPath: chainFile))
        let swapped = try Self.pack(path, include: [main], commitGraph: true)
        #expect(swapped.bytes == expected)
        #expect(swapped.commitsRead > 80)
    }

    /// The graph with the record of the commit at `position` given `parent` as its first parent
    /// word, and its checksum made right again.
    static func lying(_ bytes: [UInt8], position: Int, parent: UInt32) -> [UInt8] {
        var bytes = bytes
        var data = 0
        for index in 0..<Int(bytes[6]) {
            let entry = 8 + index * 12
            if bytes[entry..<(entry + 4)].elementsEqual("CDAT".utf8) {
                data = bytes[(entry + 4)..<(entry + 12)].reduce(0) { $0 << 8 | Int($1) }
            }
        }
        let word = data + position * 36 + 20
        for index in 0..<4 { bytes[word + index] = UInt8(truncatingIfNeeded: parent >> (24 - 8 * UInt32(index))) }
        let body = bytes.dropLast(20)
        return Array(body) + UncheckedSHA1.hash(body).bytes
    }

    @Test("a graph that names a parent past its commits: that commit is read instead (git dies on it)")
    func lyingParent() throws {
        let (directory, source) = try Self.repository.get()
        let graph = try Array(Data(contentsOf: URL(fileURLWithPath: "\(source)/objects/info/commit-graph")))
        let main = try gitText(["-C", source, "rev-parse", "main"])
        let expected = try Self.pack(source, include: [main], commitGraph: false).bytes
        let path = directory.appending("lying-\(UInt32.random(in: 0 ... .max)).git")
        try git(["clone", "--quiet", "--bare", "--no-local", source, path])
        let count = try Self.gitCommits(source).count
        try Data(Self.lying(graph, position: 3, parent: 0x6000_0000)).write(
            to: URL(fileURLWithPath: "\(path)/objects/info/commit-graph"))
        let result = try Self.pack(path, include: [main], commitGraph: true)
        #expect(result.bytes == expected)
        #expect(result.commitsRead == 1)
        #expect(count > 90)
        let gits = try git(
            ["-C", path, "pack-objects", "--revs", "--stdout", "-q"], input: Array("main\n".utf8), check: false)
        #expect(gits.status == 128)
        #expect(String(decoding: gits.standardError, as: UTF8.self).hasPrefix("fatal: invalid parent position"))
    }

    @Test("core.commitGraph=false, a shallow repository and info/grafts: no graph read, as git reads none")
    func graphOff() throws {
        let (directory, source) = try Self.repository.get()
        let path = directory.appending("off-\(UInt32.random(in: 0 ... .max)).git")
        try git(["clone", "--quiet", "--bare", "--no-local", source, path])
        try git(["-C", path, "commit-graph", "write", "--reachable", "--no-progress"])
        let repository = try Repository(gitDirectory: path)
        #expect(repository.commitGraphEnabled)
        #expect(repository.objects.commitGraph() != nil)
        try git(["-C", path, "config", "core.commitGraph", "false"])
        #expect(!(try Repository(gitDirectory: path)).commitGraphEnabled)
        try git(["-C", path, "config", "--unset", "core.commitGraph"])
        let main = try gitText(["-C", path, "rev-parse", "main"])
        // git reads an empty `shallow` file as shallow, and `info/grafts` only if it grafts.
        for (file, text) in [("shallow", ""), ("info/grafts", "\(main)\n")] {
            try FileManager.default.createDirectory(atPath: "\(path)/info", withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(path)/\(file)"))
            #expect(try ObjectDatabase(gitDirectory: path).commitGraph() == nil, "\(file)")
            #expect(try Self.pack(path, include: [main], commitGraph: true).commitsRead > 80)
            try FileManager.default.removeItem(atPath: "\(path)/\(file)")
        }
    }
}
