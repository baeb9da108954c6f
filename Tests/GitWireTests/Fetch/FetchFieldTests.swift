import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Differences from git that `Tools/field-compare.sh` found in repositories set up the way
/// people's are: each case runs git and gitwire side by side on copies of the same repository
/// (``FetchLikeGitTests/expectSame(_:ours:version:name:from:subdirectory:environment:sourceLocation:)``
/// compares the exit status, the messages, `FETCH_HEAD`, every ref and reflog).
extension FetchLikeGitTests {
    /// A repository served from a local path, with a branch named in non-ASCII letters.
    static func unicodeSource(_ scenario: Scenario, name: String) throws -> String {
        let path = scenario.directory.appending("served/\(name)")
        try git(["clone", "-q", "--bare", scenario.source, path])
        try git(["branch", "brañch/ü", "main~1"], in: path)
        try git(["branch", "newbranch", "main"], in: path)
        return path
    }

    /// git lines up the ref column by bytes (its `strlen` and `printf("%-*s")`), so a name with
    /// two-byte letters is padded less than its letters suggest; gitwire padded by letters.
    @Test(arguments: [0, 2])
    func nonASCIIRefNamesAreAlignedAsGitAlignsThem(version: Int) throws {
        let scenario = try Self.scenario.get()
        let source = try Self.unicodeSource(scenario, name: "unicode-\(version)")
        try expectSame(
            [source, "refs/heads/*:refs/remotes/u/*"], version: version, name: "unicode-\(version)")
    }

    /// `--atomic` and a ref that is rejected (not a fast-forward): git 2.39 aborts its
    /// transaction, so that no ref changes (not the others fetched, not the remote-tracking
    /// ones), `FETCH_HEAD` is left empty, and it prints `error: ` with no reason; exit status 1.
    /// gitwire updated every other ref and wrote `FETCH_HEAD`.
    @Test(arguments: [0, 2])
    func anAtomicFetchWithARejectedRefChangesNothing(version: Int) throws {
        try expectSame(
            ["--atomic", "origin", "rewritten:local-only", "main:refs/remotes/elsewhere/main"], version: version,
            name: "atomic-rejected-\(version)")
        try expectSame(
            ["--atomic", "--prune", "origin", "rewritten:local-only", "+refs/heads/*:refs/remotes/origin/*"],
            version: version, name: "atomic-rejected-prune-\(version)")
    }

    /// A clone made with `--shared` (`objects/info/alternates` naming the source's objects):
    /// its history is in the alternate, so a fetch must look there. gitwire did not read
    /// alternates and failed with "remote did not send all necessary objects".
    @Test(arguments: [0, 2])
    func aFetchIntoACloneWithAlternates(version: Int) throws {
        let scenario = try Self.scenario.get()
        let source = scenario.directory.appending("served/alternate-source-\(version)")
        let template = scenario.directory.appending("alternate-template-\(version)")
        try git(["clone", "-q", "--bare", scenario.source, source])
        try git(["clone", "-q", "--shared", source, template])
        // The source moves on, with objects the clone's alternate has and new ones.
        try git(["branch", "extra", "main~2"], in: source)
        try git(["tag", "at-extra", "main~2"], in: source)
        let tree = try gitText(["rev-parse", "main^{tree}"], in: source)
        let commit = try gitText(["commit-tree", "-p", "main", "-m", "new", tree], in: source)
        try git(["update-ref", "refs/heads/newer", commit], in: source)
        try expectSame([], version: version, name: "alternates-\(version)", from: template)
        try expectSame(
            ["origin", "+refs/heads/*:refs/heads/copy/*"], version: version, name: "alternates-copy-\(version)",
            from: template)
    }

    /// Alternates named relative to the `objects` directory, a chain of two, and
    /// `GIT_ALTERNATE_OBJECT_DIRECTORIES`: the objects of each are found.
    @Test func alternatesAreFollowedAsGitFollowsThem() throws {
        let scenario = try Self.scenario.get()
        let directory = scenario.directory.appending("alternate-chain")
        try git(["clone", "-q", "--bare", scenario.source, "\(directory)/first.git"])
        try git(["clone", "-q", "--bare", "--shared", "\(directory)/first.git", "\(directory)/second.git"])
        try git(["init", "-q", "--bare", "\(directory)/third.git"])
        // Relative to third.git/objects.
        try "# a comment\n\n../../second.git/objects\n".write(
            toFile: "\(directory)/third.git/objects/info/alternates", atomically: true, encoding: .utf8)
        let head = try gitText(["rev-parse", "main"], in: "\(directory)/first.git")
        let objects = try ObjectDatabase(gitDirectory: "\(directory)/third.git")
        #expect(objects.contains(try #require(ObjectID(head))))
        #expect(try objects.object(try #require(ObjectID(head)))?.type == .commit)
        let alone = try ObjectDatabase(gitDirectory: "\(directory)/third.git")
        #expect(alone.alternateDirectories.count == 2)
        // gitwire's fetch into it, with git's `cat-file` as the judge.
        let output = try gitwire(
            ["fetch", "-q", scenario.url, "+refs/heads/*:refs/heads/*"], in: "\(directory)/third.git",
            environment: reproducibleGitEnvironment)
        #expect(output.status == 0, "\(output.errorText)")
        try git(["fsck", "--connectivity-only", "--no-dangling"], in: "\(directory)/third.git")
    }

    /// A fetch run with `umask 077`: git's pack and index are `0444` less the umask (`0400`);
    /// gitwire's were `0444` whatever the umask, readable by everyone in a repository its owner
    /// made private.
    @Test func packsFollowTheUmask() throws {
        let scenario = try Self.scenario.get()
        let (theirs, ours) = try scenario.pair("umask")
        let shell = "umask 077 && exec \"$@\""
        func packs(_ path: String) throws -> Set<String> {
            Set(try FileManager.default.contentsOfDirectory(atPath: "\(path)/.git/objects/pack"))
        }
        let before = (try packs(theirs), try packs(ours))
        // git keeps its pack too (rather than loose objects) with transfer.unpackLimit=1.
        try run(
            ["sh", "-c", shell, "sh", "git", "-c", "transfer.unpackLimit=1", "fetch", "-q", "origin"], in: theirs,
            environment: reproducibleGitEnvironment)
        let output = try run(
            ["sh", "-c", shell, "sh", gitwireExecutable, "fetch", "-q", "origin"], in: ours,
            environment: reproducibleGitEnvironment, check: false)
        #expect(output.status == 0, "\(output.errorText)")
        func modes(_ path: String, without old: Set<String>) throws -> [String] {
            try packs(path).subtracting(old).map { name in
                let mode = try #require(
                    FileManager.default.attributesOfItem(atPath: "\(path)/.git/objects/pack/\(name)")[.posixPermissions]
                        as? Int)
                return "\(String(mode, radix: 8)) \(name.split(separator: ".").last ?? "")"
            }.sorted()
        }
        let theirModes = try modes(theirs, without: before.0)
        #expect(theirModes == ["400 idx", "400 pack"])
        #expect(try modes(ours, without: before.1) == theirModes)
    }
}

extension FetchLikeGitTests {
    /// A fetch from a repository that shares no history with the local one: with protocol v0
    /// git's fetch-pack sends its haves, gets no acknowledgement and warns `no common commits`
    /// (not with `-k`, not with v2); gitwire did not warn.
    @Test(arguments: [0, 2])
    func noCommonCommitsIsWarnedAboutAsGitDoes(version: Int) throws {
        let scenario = try Self.scenario.get()
        let unrelated = scenario.directory.appending("served/unrelated-\(version)")
        try git(["init", "-q", "-b", "main", unrelated])
        try git(["commit", "-q", "--allow-empty", "-m", "elsewhere"], in: unrelated)
        try expectSame([unrelated, "main:refs/remotes/u/main"], version: version, name: "unrelated-\(version)")
        try expectSame(["-k", unrelated, "main"], version: version, name: "unrelated-k-\(version)")
    }
}
