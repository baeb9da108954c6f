import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `fetch.writeCommitGraph` and `fetch --write-commit-graph` against git's: after each of a
/// series of fetches, the same files under `objects/info/commit-graphs/` byte for byte (layers
/// named by their checksums, the chain file), which `git commit-graph verify` accepts; the
/// history has merges, an octopus merge (`EDGE`), commits dated before their parents
/// (corrected dates) and one far enough before to need `GDO2`. gitwire wrote no commit-graph.
@Suite("fetch writes a commit-graph")
struct FetchCommitGraphTests {
    func commit(_ message: String, date: Int64, in path: String, merging branches: [String] = []) throws {
        let environment = ["GIT_COMMITTER_DATE": "\(date) +0000", "GIT_AUTHOR_DATE": "\(date) +0000"]
        if branches.isEmpty {
            try git(["commit", "-q", "--allow-empty", "-m", message], in: path, environment: environment)
        } else {
            try git(["merge", "-q", "--no-ff", "-m", message] + branches, in: path, environment: environment)
        }
    }

    /// The files under `objects/info/commit-graphs` of `gitDirectory`, with their bytes.
    func graphFiles(_ gitDirectory: String) throws -> [String: Data] {
        let directory = "\(gitDirectory)/objects/info/commit-graphs"
        var files: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name)"))
            let mode = try FileManager.default.attributesOfItem(atPath: "\(directory)/\(name)")[.posixPermissions]
            files[name + " mode"] = Data("\(mode ?? 0)".utf8)
        }
        return files
    }

    @Test func writesTheSplitCommitGraphGitWrites() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-commitgraph")
        let upstream = directory.appending("up")
        try git(["init", "-q", "-b", "main", upstream])
        try commit("root", date: 1_700_000_000, in: upstream)
        try commit("two", date: 1_700_000_100, in: upstream)
        for side in ["git", "ours"] {
            try git(["clone", "-q", "--no-checkout", upstream, directory.appending(side)])
        }
        // Each round adds history upstream, then both sides fetch (the first with nothing new:
        // the graph of everything there).
        let rounds: [(String, [String])] = [
            ("nothing new", ["-c", "fetch.writeCommitGraph=true", "fetch", "-q"]),
            ("a merge, a skewed date", ["-c", "fetch.writeCommitGraph=true", "fetch", "-q"]),
            ("an octopus", ["fetch", "-q", "--write-commit-graph"]),
            ("a far older commit", ["-c", "fetch.writeCommitGraph=true", "fetch", "-q", "origin"]),
            ("a long line", ["-c", "fetch.writeCommitGraph=true", "fetch", "-q"]),
            ("off", ["-c", "fetch.writeCommitGraph=true", "fetch", "-q", "--no-write-commit-graph"]),
        ]
        for (round, (what, command)) in rounds.enumerated() {
            switch round {
            case 1:
                try git(["checkout", "-q", "-b", "side", "main~1"], in: upstream)
                try commit("side", date: 1_700_000_050, in: upstream)
                try git(["checkout", "-q", "main"], in: upstream)
                try commit("merge", date: 1_700_000_200, in: upstream, merging: ["side"])
                try commit("skewed", date: 1_600_000_000, in: upstream)
            case 2:
                for branch in ["o1", "o2", "o3"] {
                    try git(["checkout", "-q", "-b", branch, "main"], in: upstream)
                    try commit(branch, date: 1_700_001_000, in: upstream)
                }
                try git(["checkout", "-q", "main"], in: upstream)
                try commit("octopus", date: 1_700_002_000, in: upstream, merging: ["o1", "o2", "o3"])
                try git(["tag", "-a", "-m", "tagged", "t1", "o1"], in: upstream)
            case 3:
                try commit("future", date: 4_000_000_000, in: upstream)
                try commit("past", date: 1_000_000_000, in: upstream)
            case 4:
                for index in 0..<12 { try commit("line \(index)", date: 1_700_003_000 + Int64(index), in: upstream) }
            default:
                try commit("more", date: 1_700_004_000, in: upstream)
            }
            let theirs = try git(command, in: directory.appending("git"), check: false)
            let ours = try gitwire(command, in: directory.appending("ours"), environment: reproducibleGitEnvironment)
            #expect(ours.status == theirs.status, "\(what): \(ours.errorText)")
            #expect(ours.errorText == theirs.errorText, "\(what)")
            let (ourFiles, theirFiles) = (
                try graphFiles(directory.appending("ours/.git")), try graphFiles(directory.appending("git/.git"))
            )
            #expect(ourFiles.keys.sorted() == theirFiles.keys.sorted(), "\(what)")
            for key in theirFiles.keys.sorted() { #expect(ourFiles[key] == theirFiles[key], "\(what): \(key)") }
            let verify = try git(["commit-graph", "verify"], in: directory.appending("ours"), check: false)
            #expect(verify.status == 0, "\(what): \(verify.errorText)")
        }
    }

    /// A repository whose graph is one file (`git commit-graph write --reachable`, written
    /// before the fetch, beside a stale chain when `staleChain`): git's fetch turns it into a
    /// chain, keeping the file as the base layer (renamed into `commit-graphs/`) when it holds
    /// more than twice the new commits, else taking its commits into the new layer and deleting
    /// it; the stale chain's layers are removed. gitwire wrote nothing there.
    @Test(arguments: [(10, 2, false), (2, 10, false), (10, 2, true)])
    func turnsAOneFileGraphIntoAChain(before: Int, new: Int, staleChain: Bool) throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-commitgraph-one")
        let upstream = directory.appending("up")
        try git(["init", "-q", "-b", "main", upstream])
        for index in 0..<before { try commit("old \(index)", date: 1_700_000_000 + Int64(index), in: upstream) }
        for side in ["git", "ours"] {
            let path = directory.appending(side)
            try git(["clone", "-q", "--no-checkout", upstream, path])
            let graphs = "\(path)/.git/objects/info/commit-graphs"
            if staleChain {  // git's own write of one file removes the chain: kept aside meanwhile
                try git(["-c", "fetch.writeCommitGraph=true", "fetch", "-q"], in: path)
                try FileManager.default.moveItem(atPath: graphs, toPath: "\(path)/aside")
            }
            try git(["commit-graph", "write", "--reachable"], in: path)
            if staleChain {
                try? FileManager.default.removeItem(atPath: graphs)
                try FileManager.default.moveItem(atPath: "\(path)/aside", toPath: graphs)
            }
        }
        for index in 0..<new { try commit("new \(index)", date: 1_700_001_000 + Int64(index), in: upstream) }
        let command = ["-c", "fetch.writeCommitGraph=true", "fetch", "-q"]
        let theirs = try git(command, in: directory.appending("git"), check: false)
        let ours = try gitwire(command, in: directory.appending("ours"), environment: reproducibleGitEnvironment)
        #expect(ours.status == theirs.status, "\(ours.errorText)")
        #expect(ours.errorText == theirs.errorText)
        let (ourFiles, theirFiles) = (
            try graphFiles(directory.appending("ours/.git")), try graphFiles(directory.appending("git/.git"))
        )
        #expect(!theirFiles.isEmpty)
        #expect(ourFiles.keys.sorted() == theirFiles.keys.sorted())
        for key in theirFiles.keys.sorted() { #expect(ourFiles[key] == theirFiles[key], "\(key)") }
        for side in ["git", "ours"] {
            #expect(
                !FileManager.default.fileExists(atPath: directory.appending("\(side)/.git/objects/info/commit-graph")))
        }
        let verify = try git(["commit-graph", "verify"], in: directory.appending("ours"), check: false)
        #expect(verify.status == 0, "\(verify.errorText)")
    }
}
