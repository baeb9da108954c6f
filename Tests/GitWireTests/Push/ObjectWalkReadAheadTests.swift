import Foundation
import GitWireCore
import GitWireTestSupport
import Testing

@testable import GitWire

/// The push's walk reads trees on a second thread for large pushes (`ObjectWalk`'s read-ahead):
/// the objects it lists, their order and their path hashes (which decide the pack's bytes) must be
/// those of the walk on one thread, and a tree that cannot be read must fail it the same way.
@Suite("Object walk read-ahead")
struct ObjectWalkReadAheadTests {
    /// A bare repository of 240 commits made by `git fast-import`: nested directories edited,
    /// added, renamed and deleted, two directories with the same contents in every commit (one
    /// tree named twice in its parent), packed by `git repack -adf` so that most trees are deltas.
    static let repository = Result { () throws -> (TemporaryDirectory, String, [String]) in
        let directory = try TemporaryDirectory(prefix: "gitwire-walk-read-ahead")
        let path = directory.appending("repository.git")
        try git(["init", "--quiet", "--bare", path])
        var input = ""
        for commit in 1...240 {
            input += "commit refs/heads/main\nmark :\(commit)\n"
            input += "committer C O Mitter <committer@example.com> \(1_700_000_000 + commit * 60) +0000\n"
            let message = "commit \(commit)\n"
            input += "data \(message.utf8.count)\n\(message)"
            for step in 0..<4 {
                let file = (commit * 7 + step * 13) % 90
                let content = "commit \(commit) step \(step)\n" + String(repeating: "line of file \(file)\n", count: 20)
                input +=
                    "M 100644 inline d\(file % 6)/s\(file % 4)/f\(file).txt\ndata \(content.utf8.count)\n\(content)\n"
            }
            let same = "shared \(commit / 3)\n"
            for copy in ["same-a", "same-b"] {
                input += "M 100644 inline \(copy)/x/inner.txt\ndata \(same.utf8.count)\n\(same)\n"
            }
            // A file written first, so that the directory renamed or deleted is there.
            if commit % 17 == 0 {
                input += "M 100644 inline d\(commit % 6)/keep.txt\ndata 5\nkeep\n\n"
                input += "R d\(commit % 6) moved\(commit)\n"
            }
            if commit % 23 == 0 {
                input += "M 100644 inline d\((commit + 1) % 6)/s1/keep.txt\ndata 5\nkeep\n\n"
                input += "D d\((commit + 1) % 6)/s1\n"
            }
            input += "\n"
        }
        try git(["fast-import", "--quiet"], environment: ["GIT_DIR": path], input: Array(input.utf8))
        try git(["-C", path, "repack", "-adfq", "--window=10", "--depth=50"])
        let commits = try gitText(["-C", path, "rev-list", "main"]).split(separator: "\n").map(String.init)
        return (directory, path, commits)
    }

    static func walk(
        _ path: String, include: [String], exclude: [String] = [], thin: Bool = false, readAhead: Bool
    ) throws -> ObjectWalk {
        let database = try ObjectDatabase(gitDirectory: path)
        return try ObjectWalk(
            database: database, include: include.compactMap { ObjectID($0) },
            exclude: exclude.compactMap { ObjectID($0) }, thin: thin, readAhead: readAhead)
    }

    static func listing(_ walk: ObjectWalk) -> [String] {
        walk.objects.map { "\($0.id.hex) \($0.type) \($0.nameHash)" }
    }

    @Test("the whole history: the same objects in the same order, with the same path hashes, as git's rev-list has")
    func wholeHistory() throws {
        let (_, path, commits) = try Self.repository.get()
        let sequential = try Self.walk(path, include: [commits[0]], readAhead: false)
        let readAhead = try Self.walk(path, include: [commits[0]], readAhead: true)
        let trees = sequential.objects.filter { $0.type == .tree }.count
        #expect(trees > 1000)
        let same = Self.listing(readAhead) == Self.listing(sequential)
        #expect(same, "\(readAhead.objects.count) objects read ahead, \(sequential.objects.count) on one thread")
        let gitObjects = try gitText(["-C", path, "rev-list", "--objects", "main"]).split(separator: "\n")
            .map { String($0.prefix(40)) }
        #expect(Set(readAhead.objects.map(\.id.hex)) == Set(gitObjects))
        #expect(readAhead.objects.count == gitObjects.count)
    }

    @Test("part of the history, thin and not: the same objects, order and preferred bases")
    func partOfTheHistory() throws {
        let (_, path, commits) = try Self.repository.get()
        for thin in [false, true] {
            for remote in [commits[40], commits[200]] {
                let sequential = try Self.walk(
                    path, include: [commits[0]], exclude: [remote], thin: thin, readAhead: false)
                let readAhead = try Self.walk(
                    path, include: [commits[0]], exclude: [remote], thin: thin, readAhead: true)
                #expect(!sequential.objects.isEmpty)
                #expect(Self.listing(readAhead) == Self.listing(sequential), "thin \(thin), remote \(remote)")
                #expect(
                    readAhead.preferredBases.map { "\($0.id.hex) \($0.nameHash)" }
                        == sequential.preferredBases.map { "\($0.id.hex) \($0.nameHash)" })
                let gitCount = try gitText(["-C", path, "rev-list", "--objects", "main", "^\(remote)"])
                    .split(separator: "\n").count
                #expect(readAhead.objects.count == gitCount)
            }
        }
    }

    static func pack(
        _ path: String, include: String, exclude: [String], thin: Bool, parallel: Bool
    ) throws -> [UInt8] {
        let database = try ObjectDatabase(gitDirectory: path)
        var options = PackWriter.Options(thin: thin, threads: 2)
        options.walkReadAhead = parallel
        options.parallelLocateObjects = parallel ? 0 : .max
        let writer = try PackWriter(
            database: database, include: [ObjectID(include)!], exclude: exclude.compactMap { ObjectID($0) },
            options: options)
        var bytes: [UInt8] = []
        while let chunk = try writer.read() { bytes += chunk }
        return bytes
    }

    @Test("the pack is the same byte for byte with the trees read ahead and the objects located on two threads")
    func samePack() throws {
        let (directory, source, commits) = try Self.repository.get()
        // A second copy with a second pack holding the last 30 commits again (each object then
        // stored twice, in packs whose deltas differ), to reach bases stored in another pack.
        let twoPacks = directory.appending("two-packs-\(UInt32.random(in: 0 ... .max)).git")
        try git(["clone", "--quiet", "--bare", "--no-local", source, twoPacks])
        let pack = try git(
            ["-C", source, "pack-objects", "--revs", "--stdout", "-q", "--window=3"],
            input: Array("main\n^main~30\n".utf8)
        ).standardOutput
        try git(["-C", twoPacks, "index-pack", "--stdin"], input: pack)
        let packs = try FileManager.default.contentsOfDirectory(atPath: "\(twoPacks)/objects/pack")
        #expect(packs.filter { $0.hasSuffix(".pack") }.count == 2)
        for path in [source, twoPacks] {
            for (exclude, thin) in [([String](), false), ([commits[40]], true), ([commits[200]], false)] {
                let sequential = try Self.pack(path, include: commits[0], exclude: exclude, thin: thin, parallel: false)
                let parallel = try Self.pack(path, include: commits[0], exclude: exclude, thin: thin, parallel: true)
                #expect(sequential.count > 1000)
                let same = sequential == parallel
                #expect(
                    same,
                    "\(path), exclude \(exclude), thin \(thin): \(parallel.count) bytes, \(sequential.count) before")
            }
        }
    }

    @Test("a tree missing from the repository fails the walk with the same error either way")
    func missingTree() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-walk-missing-tree")
        let path = directory.appending("repository.git")
        let (_, source, commits) = try Self.repository.get()
        try git(["init", "--quiet", "--bare", path])
        // Loose objects, so that one tree can be taken away.
        let pack = try git(["-C", source, "pack-objects", "--all", "--stdout", "-q"]).standardOutput
        try git(["-C", path, "unpack-objects", "-q"], input: pack)
        let tree = try gitText(["-C", path, "rev-parse", "\(commits[100]):d1"])
        try FileManager.default.removeItem(
            atPath: "\(path)/objects/\(tree.prefix(2))/\(tree.dropFirst(2))")
        var errors: [PushPackError] = []
        for readAhead in [false, true] {
            do {
                _ = try Self.walk(path, include: [commits[0]], readAhead: readAhead)
                Issue.record("the walk read a history with a tree missing (read ahead: \(readAhead))")
            } catch let error as PushPackError {
                errors.append(error)
            }
        }
        #expect(errors == [.missingObject(ObjectID(tree)!), .missingObject(ObjectID(tree)!)])
    }
}
