import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `ls-remote` and `clone` started inside a repository that belongs to another user (and that
/// `safe.directory` does not name): git 2.39 treats it as no repository (its gentle setup), so
/// that nothing in its `.git/config` runs: not its `core.sshCommand`, not its
/// `credential.helper`, not its remotes. gitwire found the repository by a walk of its own that
/// checked no ownership, and ran the repository's `core.sshCommand` (anyone who can write a
/// repository another user enters could run commands as that user). Another owner is
/// `GIT_TEST_ASSUME_DIFFERENT_OWNER=1`, which git 2.39 honours as gitwire does; each command is
/// compared with git's, and the repository's programs log every run.
@Suite("commands in another user's repository", .serialized)
struct DubiousRepositoryConfigTests {
    /// A repository whose configuration names programs that log to `repository.log`; `GIT_SSH`
    /// (which `core.sshCommand` overrides) logs to `environment.log` and fails.
    struct Setup {
        let directory: TemporaryDirectory
        let repository: String
        let repositoryLog: String
        let environmentLog: String
        let environment: [String: String]

        init() throws {
            directory = try TemporaryDirectory()
            repository = directory.appending("theirs")
            repositoryLog = directory.appending("repository.log")
            environmentLog = directory.appending("environment.log")
            try git(["init", "--quiet", repository])
            let theirs = directory.appending("theirs-program.sh")
            try writeExecutable(theirs, "#!/bin/sh\necho \"$0 $*\" >> '\(repositoryLog)'\nexit 1\n")
            let ssh = directory.appending("environment-ssh.sh")
            try writeExecutable(ssh, "#!/bin/sh\necho \"ssh $*\" >> '\(environmentLog)'\nexit 1\n")
            try git(["config", "core.sshCommand", theirs], in: repository)
            try git(["config", "credential.helper", "!\(theirs)"], in: repository)
            try git(["config", "remote.origin.url", "ssh://127.0.0.1/theirs.git"], in: repository)
            environment = reproducibleGitEnvironment.merging([
                "GIT_TEST_ASSUME_DIFFERENT_OWNER": "1", "GIT_SSH": ssh,
            ]) { $1 }
        }

        /// Takes what each log holds, emptying it.
        func takeLogs() -> (repository: String, environment: String) {
            defer {
                try? FileManager.default.removeItem(atPath: repositoryLog)
                try? FileManager.default.removeItem(atPath: environmentLog)
            }
            return (
                (try? String(contentsOfFile: repositoryLog, encoding: .utf8)) ?? "",
                (try? String(contentsOfFile: environmentLog, encoding: .utf8)) ?? ""
            )
        }
    }

    /// `arguments` run by git, then by gitwire, in the repository: the repository's programs run
    /// for neither, and gitwire's output and exit status are git's.
    static func expectRepositoryIgnored(_ setup: Setup, _ arguments: [String]) throws {
        let theirs = try git(arguments, in: setup.repository, environment: setup.environment, check: false)
        let gitLogs = setup.takeLogs()
        let ours = try gitwire(arguments, in: setup.repository, environment: setup.environment)
        let ourLogs = setup.takeLogs()
        #expect(gitLogs.repository.isEmpty, "git: \(gitLogs.repository)")
        #expect(ourLogs.repository.isEmpty, "gitwire ran the repository's program: \(ourLogs.repository)")
        #expect(ourLogs.environment == gitLogs.environment, "\(arguments)")
        #expect(ours.status == theirs.status, "\(arguments): \(ours.errorText)")
        #expect(ours.errorText == theirs.errorText, "\(arguments)")
        #expect(ours.text == theirs.text, "\(arguments)")
    }

    @Test("ls-remote and clone over ssh use the environment's ssh, not the repository's core.sshCommand")
    func sshCommandNotRun() throws {
        let setup = try Setup()
        try Self.expectRepositoryIgnored(setup, ["ls-remote", "ssh://127.0.0.1/x.git"])
        try Self.expectRepositoryIgnored(setup, ["ls-remote", "origin"])
        let target = setup.directory.appending("clone")
        try Self.expectRepositoryIgnored(setup, ["clone", "--bare", "ssh://127.0.0.1/x.git", target])
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test("ls-remote over smart HTTP does not ask the repository's credential.helper")
    func credentialHelperNotRun() throws {
        let setup = try Setup()
        let server = try HTTPServer(root: TestRepositories.shared.basePath, username: "alice", password: "pw")
        try Self.expectRepositoryIgnored(setup, ["ls-remote", server.url("/auth/small.git")])
    }

    /// The same repository owned by the user: its programs run, for git and gitwire alike (the
    /// test's own check that the setup reaches them).
    @Test("in the user's own repository its programs run, as in git")
    func ownRepositoryIsRead() throws {
        let setup = try Setup()
        var environment = setup.environment
        environment["GIT_TEST_ASSUME_DIFFERENT_OWNER"] = nil
        let arguments = ["ls-remote", "ssh://127.0.0.1/x.git"]
        let theirs = try git(arguments, in: setup.repository, environment: environment, check: false)
        let gitLogs = setup.takeLogs()
        let ours = try gitwire(arguments, in: setup.repository, environment: environment)
        let ourLogs = setup.takeLogs()
        #expect(!gitLogs.repository.isEmpty)
        #expect(ourLogs.repository == gitLogs.repository)
        #expect(ours.status == theirs.status)
    }
}
