import Foundation
import GitWireTestSupport
import Glibc
import Testing

/// `gitwire ls-remote` in a directory where git's gentle setup finds no repository it may use:
/// below `GIT_CEILING_DIRECTORIES`, or in a repository of another user that `safe.directory`
/// does not name. git then runs as outside any repository (no `origin`, no configuration of the
/// repository); gitwire read that repository's configuration all the same.
@Suite("ls-remote setup like git")
struct LsRemoteSetupTests {
    /// git and gitwire `ls-remote <arguments>` in `directory`: the same exit status, output and
    /// messages.
    func expectSame(
        _ arguments: [String], in directory: String, environment: [String: String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let theirs = try git(["ls-remote"] + arguments, in: directory, environment: environment, check: false)
        let ours = try gitwire(
            ["ls-remote"] + arguments, in: directory,
            environment: reproducibleGitEnvironment.merging(environment) { $1 })
        #expect(ours.status == theirs.status, "\(ours.errorText)", sourceLocation: sourceLocation)
        #expect(ours.text == theirs.text, sourceLocation: sourceLocation)
        #expect(ours.errorText == theirs.errorText, sourceLocation: sourceLocation)
    }

    func repository(_ directory: TemporaryDirectory) throws -> String {
        let served = directory.appending("served")
        try git(["init", "-q", "-b", "main", served])
        try git(["commit", "-q", "--allow-empty", "-m", "one"], in: served)
        let repository = directory.appending("repository")
        try git(["clone", "-q", served, repository])
        try FileManager.default.createDirectory(atPath: "\(repository)/sub/dir", withIntermediateDirectories: true)
        return repository
    }

    @Test func aRepositoryBeyondTheCeilingIsNotUsed() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-lsceiling")
        let repository = try repository(directory)
        for ceiling in [repository, "\(repository)/sub"] {
            try expectSame(
                ["origin", "HEAD"], in: "\(repository)/sub/dir", environment: ["GIT_CEILING_DIRECTORIES": ceiling])
            try expectSame(
                ["--get-url"], in: "\(repository)/sub/dir", environment: ["GIT_CEILING_DIRECTORIES": ceiling])
        }
        // Above the ceiling: the repository is found.
        try expectSame(
            ["origin", "HEAD"], in: "\(repository)/sub/dir", environment: ["GIT_CEILING_DIRECTORIES": directory.path])
    }

    /// Only as root (who can give a repository to another user): a repository of `nobody`.
    @Test func aRepositoryOfAnotherUserIsNotUsed() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-lsdubious")
        let repository = try repository(directory)
        guard getuid() == 0 else { return }
        try run(["chown", "-R", "65534", repository])
        try expectSame(["origin", "HEAD"], in: repository, environment: [:])
        try expectSame(["origin", "HEAD"], in: "\(repository)/sub/dir", environment: [:])
        // safe.directory names it: used.
        try expectSame(
            ["origin", "HEAD"], in: repository,
            environment: [
                "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory", "GIT_CONFIG_VALUE_0": repository,
            ])
    }
}
