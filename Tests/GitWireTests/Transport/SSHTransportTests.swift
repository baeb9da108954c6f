import Foundation
import GitWire
import GitWireReplay
import GitWireTestSupport
import Testing

/// ssh:// against a real OpenSSH server on loopback: ls-remote, clone and fetch give git's
/// answers over the same server, v0 and v2; ssh's failures are clear errors.
@Suite("ssh transport", .serialized)
struct SSHTransportTests {
    static let server = Result { try SSHServer() }

    @Test(arguments: ["0", "2"])
    func lsRemoteCloneAndFetchMatchGit(version: String) throws {
        let server = try Self.server.get()
        let repositories = TestRepositories.shared
        let url = server.url(repositories.path("big.git"))
        let environment = server.environment
        try expectLsRemoteCloneAndFetchMatchGit(url: url, version: version, environment: environment)
    }

    @Test func v2IsSpokenOverSSH() throws {
        let server = try Self.server.get()
        let url = server.url(TestRepositories.shared.path("small.git"))
        var options = SSHCommand.fromEnvironment { server.environment[$0] }
        options.variant = .ssh
        let remote = try Remote(url, timeout: .seconds(30))
        let transport = SSHTransport(host: "127.0.0.1", user: server.user, port: server.port, command: options)
        let listing = try Remote(url: remote.url, transport: transport, timeout: .seconds(30)).lsRemoteBlocking(
            LsRemoteOptions(protocolVersion: .v2))
        #expect(listing.protocolVersion == .v2)
        #expect(!listing.refs.isEmpty)
    }

    /// `--record` over ssh: the fixture names the transport and holds both pkt-line streams; played
    /// back with no ssh, it gives the same listing and clone, the client sending the recorded bytes.
    /// (The name avoids "Replay": CI runs the tests named so again with no network, and this one
    /// needs sshd.)
    @Test(arguments: ["0", "2"])
    func recordedOverSSHPlaysBack(version: String) throws {
        let server = try Self.server.get()
        let url = server.url(TestRepositories.shared.path("small.git"))
        let directory = try TemporaryDirectory()
        let listed = directory.appending("ls-remote.session")
        let listing = try gitwire(
            ["ls-remote", "--protocol-version=\(version)", "--record=\(listed)", url], environment: server.environment)
        #expect(listing.status == 0, "\(listing.errorText)")
        let session = try Session(contentsOfFile: listed)
        #expect(session.transport == "ssh")
        #expect(session.protocolVersion.rawValue == Int(version))
        #expect(session.path == TestRepositories.shared.path("small.git"))
        let replay = ReplayTransport(session, chunking: .sizes([1, 7, 4096]))
        let replayed = try Remote(url: try RemoteURL(url), transport: replay).lsRemoteBlocking(
            LsRemoteOptions(protocolVersion: session.protocolVersion))
        try replay.verify()
        #expect(
            LsRemoteOutput.format(replayed.refs, filter: RefFilter(), showSymrefs: false) == Array(listing.text.utf8))

        let cloneSession = directory.appending("clone.session")
        let cloned = try gitwire(
            [
                "clone", "-q", "--bare", "--protocol-version=\(version)", "--record=\(cloneSession)", url,
                directory.appending("recorded.git"),
            ], environment: server.environment)
        #expect(cloned.status == 0, "\(cloned.errorText)")
        let cloneReplay = ReplayTransport(try Session(contentsOfFile: cloneSession), chunking: .sizes([3, 65536]))
        let target = directory.appending("replayed.git")
        _ = try Remote(url: try RemoteURL(url), transport: cloneReplay).cloneBlocking(
            into: target, options: RepositoryFetchOptions(fetch: FetchOptions(protocolVersion: session.protocolVersion))
        )
        try cloneReplay.verify()
        #expect(
            try gitText(["for-each-ref"], in: target)
                == gitText(["for-each-ref"], in: directory.appending("recorded.git")))
        try git(["fsck", "--full", "--no-dangling"], in: target)
    }

    @Test func sshFailuresAreClearErrors() throws {
        let server = try Self.server.get()
        // A repository that does not exist: git-upload-pack fails on the server.
        let missing = try gitwire(["ls-remote", server.url("/nonexistent/repo.git")], environment: server.environment)
        let gitMissing = try git(
            ["ls-remote", server.url("/nonexistent/repo.git")], environment: server.environment, check: false)
        #expect(missing.status == 128)
        #expect(missing.errorText == gitMissing.errorText)
        // A host key that does not match: ssh refuses, and says so on stderr.
        let directory = try TemporaryDirectory()
        try run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", directory.appending("other")])
        let otherKey = try String(contentsOfFile: directory.appending("other.pub"), encoding: .utf8)
            .split(separator: " ").prefix(2).joined(separator: " ")
        try "[127.0.0.1]:\(server.port) \(otherKey)\n".write(
            toFile: directory.appending("known_hosts"), atomically: true, encoding: .utf8)
        var wrongKeys = server.environment
        let command = server.environment["GIT_SSH_COMMAND"]!
        let known = command.range(of: "UserKnownHostsFile=")!
        let end = command[known.upperBound...].firstIndex(of: " ") ?? command.endIndex
        wrongKeys["GIT_SSH_COMMAND"] =
            command[..<known.upperBound] + directory.appending("known_hosts") + command[end...]
            + " -o GlobalKnownHostsFile=/dev/null"
        let refused = try gitwire(
            ["ls-remote", server.url(TestRepositories.shared.path("small.git"))], environment: wrongKeys)
        #expect(refused.status == 128)
        #expect(refused.errorText.contains("Host key verification failed"))
        #expect(refused.errorText.contains("fatal: Could not read from remote repository."))
    }
}
