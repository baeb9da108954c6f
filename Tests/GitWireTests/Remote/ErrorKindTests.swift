import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// The same failure has the same kind over every transport (git://, file://, ssh:// with a real
/// sshd, http(s)://): a refused connection or an unknown host is `.connect`, a refused login
/// `.authentication`, a missing repository `.notFound`, a silent server `.timedOut`. What ssh or
/// git-upload-pack said about it is in the error's message.
@Suite("error kinds", .serialized)
struct ErrorKindTests {
    static let ssh = Result { try SSHServer() }
    static let http = Result { try HTTPServer(root: TestRepositories.shared.basePath) }
    static let https = Result { try HTTPServer(root: TestRepositories.shared.basePath, secure: true) }
    static var repositories: TestRepositories { TestRepositories.shared }

    /// The kind of the error listing `remote` ends with (and its message).
    func failure(_ remote: Remote, sourceLocation: SourceLocation = #_sourceLocation) -> (
        kind: GitWireErrorKind?, message: String
    ) {
        do {
            _ = try remote.lsRemoteBlocking()
            Issue.record("listing \(remote.url.text) succeeded", sourceLocation: sourceLocation)
            return (nil, "")
        } catch let error as any GitWireError {
            return (error.kind, "\(error)")
        } catch {
            Issue.record("not a GitWireError: \(error)", sourceLocation: sourceLocation)
            return (nil, "\(error)")
        }
    }

    var timeout: Duration { .seconds(2).scaledForSlowRuns }

    // MARK: git://

    @Test func gitDaemon() throws {
        let refusing = try ListeningPort.refusing()
        #expect(failure(try Remote("git://127.0.0.1:\(refusing.address.port)/x.git")).kind == .connect)
        #expect(failure(try Remote("git://nonexistent.invalid/x.git")).kind == .connect)
        let missing = failure(try Remote(Self.repositories.daemon.url("no-such.git")))
        #expect(missing.kind == .notFound)
        #expect(missing.message.contains("access denied or repository not exported"))
        let silent = try ListeningSocket(host: "127.0.0.1")
        #expect(
            failure(try Remote("git://127.0.0.1:\(silent.address.port)/x.git", timeout: timeout)).kind == .timedOut)
        _ = silent
    }

    /// A host name looked up with no timeout set: the blocking call's private loop waits for the
    /// answer (it returned at once, and the process trapped: "closure argument was escaped").
    @Test func hostNamesAreLookedUpWithNoTimeout() throws {
        let url = "git://localhost:\(Self.repositories.daemon.port)/small.git"
        for arguments in [["ls-remote", url], ["ls-remote", "git://nonexistent.invalid/x.git"]] {
            let expected = try git(arguments, check: false)
            let actual = try gitwire(arguments)
            #expect(actual.status == expected.status, "\(actual.errorText)")
            #expect(actual.standardOutput == expected.standardOutput)
            #expect(actual.errorText == expected.errorText)
        }
        #expect(throws: Never.self) { try Remote(url).lsRemoteBlocking() }
    }

    // MARK: file://

    @Test func localRepositories() throws {
        let directory = try TemporaryDirectory()
        for url in [directory.appending("missing.git"), "file://\(directory.appending("missing.git"))"] {
            var remote = try Remote(url)
            remote.programErrorOutput = .kept
            let missing = failure(remote)
            #expect(missing.kind == .notFound)
            #expect(missing.message.contains("does not appear to be a git repository"), "\(missing.message)")
        }
        try writeExecutable(directory.appending("silent"), "#!/bin/sh\nexec sleep 60\n")
        let silent = Remote(
            url: try RemoteURL(Self.repositories.path("small.git")),
            transport: LocalTransport(uploadPack: directory.appending("silent")), timeout: timeout)
        #expect(failure(silent).kind == .timedOut)
    }

    // MARK: ssh://

    @Test func ssh() throws {
        let server = try Self.ssh.get()
        func remote(_ url: String, environment: [String: String]? = nil, configuration: GitConfiguration = .none)
            throws -> Remote
        {
            var remote = try Remote(
                url, configuration: configuration, environment: environment ?? server.environment, timeout: timeout)
            remote.programErrorOutput = .kept
            return remote
        }
        let refusing = try ListeningPort.refusing()
        let refused = failure(try remote("ssh://\(server.user)@127.0.0.1:\(refusing.address.port)/x.git"))
        #expect(refused.kind == .connect)
        #expect(refused.message.contains("Connection refused"), "\(refused.message)")
        #expect(failure(try remote("ssh://\(server.user)@nonexistent.invalid/x.git")).kind == .connect)
        let missing = failure(try remote(server.url("/nonexistent/repo.git")))
        #expect(missing.kind == .notFound)
        #expect(missing.message.contains("does not appear to be a git repository"), "\(missing.message)")
        // git-upload-pack not on the server (remote.<name>.uploadpack names one that is not there).
        for uploadPack in ["/nonexistent/git-upload-pack", "no-such-git-upload-pack"] {
            let configuration = GitConfiguration(entries: [
                ConfigEntry(name: "remote.there.url", value: server.url(Self.repositories.path("small.git"))),
                ConfigEntry(name: "remote.there.uploadpack", value: uploadPack),
            ])
            let noUploadPack = failure(try remote("there", configuration: configuration))
            #expect(noUploadPack.kind == .notFound, "\(noUploadPack.message)")
            #expect(noUploadPack.message.contains(uploadPack), "\(noUploadPack.message)")
        }
        // A key the server does not know.
        let directory = try TemporaryDirectory()
        try run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", directory.appending("stranger")])
        var stranger = server.environment
        let command = try #require(server.environment["GIT_SSH_COMMAND"])
        let key = try #require(command.range(of: "-i [^ ]*", options: .regularExpression))
        stranger["GIT_SSH_COMMAND"] = command.replacingCharacters(
            in: key, with: "-i \(directory.appending("stranger"))")
        let refusedKey = failure(try remote(server.url(Self.repositories.path("small.git")), environment: stranger))
        #expect(refusedKey.kind == .authentication)
        #expect(refusedKey.message.contains("Permission denied"), "\(refusedKey.message)")
        // An ssh that never answers.
        try writeExecutable(directory.appending("silent-ssh"), "#!/bin/sh\nexec sleep 60\n")
        let silent = failure(
            try remote(
                server.url("/x.git"),
                environment: ["GIT_SSH": directory.appending("silent-ssh"), "GIT_SSH_VARIANT": "ssh"]))
        #expect(silent.kind == .timedOut)
    }

    // MARK: http(s)://

    @Test(arguments: [false, true])
    func smartHTTP(secure: Bool) throws {
        let server = try (secure ? Self.https : Self.http).get()
        func remote(_ path: String) throws -> Remote {
            var remote = try Remote(server.url(path), environment: server.environment, timeout: timeout)
            if var http = remote.transport as? HTTPTransport {
                http.options.usesCredentialHelper = false
                remote.transport = http
            }
            return remote
        }
        #expect(failure(try remote("/git/no-such.git")).kind == .notFound)
        #expect(failure(try remote("/auth/small.git")).kind == .authentication)
        #expect(failure(try remote("/status/403/small.git")).kind == .authentication)
        #expect(failure(try remote("/status/404/small.git")).kind == .notFound)
        #expect(failure(try remote("/status/500/small.git")).kind == .remote)
        let refusing = try ListeningPort.refusing()
        let scheme = secure ? "https" : "http"
        #expect(failure(try Remote("\(scheme)://127.0.0.1:\(refusing.address.port)/x.git")).kind == .connect)
        #expect(failure(try Remote("\(scheme)://nonexistent.invalid/x.git")).kind == .connect)
        let silent = try ListeningSocket(host: "127.0.0.1")
        #expect(
            failure(try Remote("\(scheme)://127.0.0.1:\(silent.address.port)/x.git", timeout: timeout)).kind
                == .timedOut)
        _ = silent
    }

    /// The kinds are values a program can keep and compare, and name themselves.
    @Test func kindsNameThemselves() {
        #expect(
            GitWireErrorKind.allCases.map(\.description) == [
                "connect", "timedOut", "protocol", "remote", "authentication", "notFound", "pack", "system",
                "connectionLost", "cancelled", "usage",
            ])
        #expect(Set(GitWireErrorKind.allCases).count == GitWireErrorKind.allCases.count)
    }
}
