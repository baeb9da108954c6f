import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `RemoteURL` reads repository addresses the way git does: checked against what git sends to a
/// git:// server, the ssh command line git runs, and the local repositories git opens.
@Suite("remote URLs")
struct RemoteURLTests {
    /// The request line the fake server got from git and from gitwire for the same URL (`URL` is
    /// replaced by the server's authority) is the same, and it names ``RemoteURL/path`` and
    /// ``RemoteURL/hostHeader``.
    @Test(arguments: [
        "git://URL/repo.git", "git://URL/~user/repo.git", "git://URL/a%20b.git", "git://URL/%7euser/x",
        "git://URL/a%2fb", "git://URL/%zz", "git://URL//double", "git://URL/", "git://URL/sub/dir/r.git",
        "git://URL/ünï", "git://URL/a%00b",
    ])
    func gitURLsAsGitSendsThem(_ template: String) throws {
        try expectSameRequest(template, host: "127.0.0.1")
    }

    @Test func ipv6GitURLs() throws {
        try #require((try? ListeningSocket(host: "::1")) != nil, "needs IPv6 on loopback")
        try expectSameRequest("git://URL/repo.git", host: "::1")
        try expectSameRequest("git://URL/~u/x%20y", host: "::1")
    }

    func expectSameRequest(_ template: String, host: String) throws {
        let server = try FakeGitServer([.hangUp], connections: 2, host: host)
        let url = template.replacing("URL", with: server.authority)
        let expected = try git(["-c", "protocol.version=0", "ls-remote", url], check: false)
        let actual = try gitwire(["ls-remote", "--protocol-version=0", url])
        #expect(expected.status == 128)
        #expect(actual.status == 128)
        #expect(actual.errorText == expected.errorText)
        let connections = server.finish()
        try #require(connections.count == 2)
        #expect(connections[1].request == connections[0].request)
        let parsed = try RemoteURL(url)
        #expect(parsed.scheme == .git)
        #expect(parsed.host == host)
        #expect(parsed.port == server.port)
        let request = ServiceRequest(path: parsed.path, protocolVersion: .v0).daemonRequest(host: parsed.hostHeader)
        #expect(request.payload == connections[0].request)
    }

    /// ssh addresses: the ssh command line gitwire runs (port, user, host, remote command, and
    /// for protocol v2 `-o SendEnv=GIT_PROTOCOL`) is the one git runs, and so is `GIT_PROTOCOL`.
    @Test(arguments: [
        "host:repo.git", "user@host:~/repo.git", "host:/abs/repo.git", "[::1]:repo.git", "user@[::1]:x",
        "ssh://host/repo.git", "ssh://user@host:2222/~user/repo.git", "ssh://[::1]:22/x%20y", "git+ssh://host/x",
        "ssh+git://h/x", "ssh://user@[fe80::1]/x", "ssh://h:/x", "host:x%20y", "ssh://h/%7euser/x",
        "user@host:x:y", "a@b@host:x", "host.example.com:a/b/c.git", "ssh://host:2222/x", "host:it's.git",
        // Separators and quotes joined to a neighbour by a prepended (U+070F) or combining (U+0301)
        // scalar: git reads bytes, so must gitwire.
        "host:x\u{070F}'; touch pwned; '.git", "ho\u{070F}:repo.git", "host:\u{301}x", "us\u{070F}@host:x",
        "ssh://h\u{070F}:2222/x", "ssh://us\u{070F}@h/x\u{070F}'y",
    ])
    func sshAddressesAsGitReadsThem(_ url: String) throws {
        let directory = try TemporaryDirectory()
        let log = directory.appending("ssh.log")
        let script = directory.appending("ssh")
        try writeExecutable(
            script,
            "#!/bin/sh\nfor a in \"$@\" \"GIT_PROTOCOL=$GIT_PROTOCOL\"; do printf '%s\\n' \"$a\"; done > '\(log)'\nexit 1\n"
        )
        let parsed = try RemoteURL(url)
        #expect(parsed.scheme == .ssh)
        for version in ["0", "2"] {
            let environment = ["GIT_SSH_COMMAND": script, "GIT_SSH_VARIANT": "ssh"]
            let result = try git(
                ["-c", "protocol.version=\(version)", "ls-remote", url], environment: environment, check: false)
            #expect(result.status == 128)
            let gitArguments = try String(contentsOfFile: log, encoding: .utf8)
            try FileManager.default.removeItem(atPath: log)
            let ours = try gitwire(["ls-remote", "--protocol-version=\(version)", url], environment: environment)
            #expect(ours.status == 128)
            #expect(try String(contentsOfFile: log, encoding: .utf8) == gitArguments, "v\(version)")
        }
    }

    /// A user or host that ssh would take for an option is refused before ssh runs, with git's
    /// message: `user@host` is checked whole.
    @Test(arguments: [
        "ssh://-oProxyCommand=touch%20pwned@h/r", "-oProxyCommand=touch pwned@h:r", "ssh://-h/r", "-h:r",
    ])
    func optionLikeSSHDestinationsAreRefused(_ url: String) throws {
        let directory = try TemporaryDirectory()
        let marker = directory.appending("ssh-ran")
        let script = directory.appending("ssh")
        try writeExecutable(script, "#!/bin/sh\ntouch '\(marker)'\nexit 1\n")
        let environment = ["GIT_SSH_COMMAND": script]
        let expected = try git(["ls-remote", "--", url], in: directory.path, environment: environment, check: false)
        let ours = try gitwire(["ls-remote", "--", url], in: directory.path, environment: environment)
        #expect(expected.status == 128)
        #expect(expected.errorText.hasPrefix("fatal: strange hostname"))
        #expect(ours.status == 128)
        #expect(ours.errorText == expected.errorText)
        #expect(!FileManager.default.fileExists(atPath: marker), "ssh ran")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("pwned")))
    }

    /// Local repositories by path and by file:// URL, with a space in the name: gitwire lists what
    /// git lists.
    @Test(arguments: [
        "file://DIR/with%20space.git", "file://DIR/with space.git", "DIR/with space.git", "with space.git",
        "./with space.git/", "file://localhost/DIR/with space.git", "file://DIR/../DIR_NAME/with%20space.git",
        "DIR/with space.git/.",
    ])
    func localRepositories(_ template: String) throws {
        let directory = try TemporaryDirectory()
        try git([
            "clone", "-q", "--bare", TestRepositories.shared.path("small.git"), directory.appending("with space.git"),
        ])
        let name = URL(fileURLWithPath: directory.path).lastPathComponent
        let location = template.replacing("DIR_NAME", with: name).replacing("DIR", with: directory.path)
        let expected = try git(["ls-remote", location], in: directory.path)
        let actual = try gitwire(["ls-remote", location], in: directory.path)
        #expect(actual.status == 0, "\(actual.errorText)")
        #expect(actual.standardOutput == expected.standardOutput)
        #expect(!expected.standardOutput.isEmpty)
        #expect(try RemoteURL(location).scheme == .file)
    }

    /// Without a path git stops before connecting; so does gitwire.
    @Test(arguments: ["git://URL", "file://", "ssh://host", "git://URL?x"])
    func urlsWithoutAPath(_ template: String) throws {
        let server = try FakeGitServer([.hangUp], connections: 1, lifetime: .seconds(1))
        let url = template.replacing("URL", with: server.authority)
        let expected = try git(["ls-remote", url], check: false)
        let actual = try gitwire(["ls-remote", url])
        #expect(expected.status == 128)
        #expect(expected.errorText == "fatal: no path specified; see 'git help pull' for valid url syntax\n")
        #expect(actual.status == 128)
        #expect(actual.errorText == "fatal: no path specified; see 'git help pull' for valid url syntax: \(url)\n")
        #expect(throws: RemoteURLError.self) { try RemoteURL(url) }
        #expect(server.finish().isEmpty, "nobody connected")
    }

    /// Ports git cannot use either (it fails looking them up or connecting): errors in both.
    @Test(arguments: ["abc", "0", "65536", "-1", "99999999999999999999", "1x"])
    func badPorts(_ port: String) throws {
        let url = "git://127.0.0.1:\(port)/x.git"
        let expected = try git(["ls-remote", url], check: false)
        let actual = try gitwire(["ls-remote", url])
        #expect(expected.status == 128)
        #expect(actual.status == 128)
        #expect(actual.errorText == "fatal: invalid port number '\(port)': \(url)\n")
        let error = try #require(throws: RemoteURLError.self) { try RemoteURL(url) }
        #expect(error.reason == "invalid port number '\(port)'")
    }

    @Test func partsOfAGitURL() throws {
        let url = try RemoteURL("git://example.com:9419/~alice/project.git")
        #expect(url.scheme == .git)
        #expect(url.host == "example.com")
        #expect(url.port == 9419)
        #expect(url.path == "~alice/project.git")
        #expect(url.hostHeader == "example.com:9419")
        #expect(url.description == "git://example.com:9419/~alice/project.git")
        let plain = try RemoteURL("git://[::1]/r.git")
        #expect(plain.host == "::1")
        #expect(plain.port == nil)
        #expect(plain.hostHeader == "[::1]")
        #expect((try plain.makeTransport() as? GitDaemonTransport)?.port == 9418)
    }

    @Test func otherErrors() throws {
        #expect(throws: RemoteURLError.self) { try RemoteURL("git://[::1/x") }
        #expect(throws: RemoteURLError.self) { try RemoteURL("git:///x") }
        #expect(throws: RemoteURLError.self) { try RemoteURL("ssh:///x") }
        let unsupported = try #require(throws: RemoteURLError.self) { try RemoteURL("ftp://host/x") }
        #expect(unsupported.reason == "unsupported URL scheme 'ftp'")
    }
}
