import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `gitwire clone -c <key>=<value>` (`--config`) against `git clone -c` on the same remotes: the
/// entries land in the new configuration byte for byte where git puts them, before the fetch, so
/// that they apply to the clone's own connection (an `http.extraHeader` reaches the server on
/// every request and is never printed; `protocol.version` and `url.<base>.insteadOf` are taken);
/// a bad argument fails in git's words and leaves nothing; the remote's own fetch, url, mirror
/// and tagOpt are refused before anything is made.
@Suite("clone -c", .serialized)
struct CloneConfigOptionTests {
    static let server = Result {
        try HTTPServer(root: TestRepositories.shared.basePath, loggedHeaders: ["X-Gitwire-One", "X-Gitwire-Two"])
    }

    @Test func entriesWrittenAsGitWritesThem() throws {
        let tests = CloneWorkTreeTests()
        let source = try CloneWorkTreeTests.source.get()
        let url = source.daemon.url("source")
        let base = String(url.dropLast("source".count))
        for (index, (options, cloned)) in [
            (["-c", "core.foo=bar", "-c", "Core.Foo=baz", "--config", "a.B.c=v", "-c", "x.y", "-c", "a.b="], url),
            (["--config=branch.trunk.rebase=true", "-c", "remote.origin.prune=true", "-c", " http.Key = x "], url),
            // The remote's section made by -c takes the clone's entries; another remote's fetch is
            // only written.
            (["-o", "up", "-c", "remote.up.prune=true", "-c", "remote.origin.fetch=+refs/heads/*:refs/x/*"], url),
            // url.<base>.insteadOf given with -c rewrites the clone's own URL.
            (["-c", "url.\(base).insteadOf=srv:"], "srv:source"),
            (["-c", "flag"], url), (["-c", "="], url), (["-c", "a.=x"], url), (["-c", "a.b c=x"], url),
            (["--depth=1", "-c", "core.logAllRefUpdates=false"], url),
            // clone.defaultRemoteName given with -c names the remote (-o still wins).
            (["-c", "clone.defaultRemoteName=upstream", "-c", "remote.origin.fetch=+refs/heads/*:refs/o/*"], url),
            (["-o", "mine", "-c", "clone.defaultRemoteName=upstream"], url),
            (["-c", "clone.defaultRemoteName=bad..name"], url),
        ].enumerated() {
            for version in [0, 2] {
                try tests.expectSameClone(options, url: cloned, version: version, name: "config-\(version)-\(index)")
            }
        }
    }

    @Test func bareCloneConfigurationIsGits() throws {
        let source = try CloneWorkTreeTests.source.get()
        let directory = try TemporaryDirectory()
        let options = ["-c", "core.foo=bar", "-c", "remote.origin.prune=true", "-c", "x.y"]
        for (index, mode) in ["--bare", "--mirror"].enumerated() {
            let theirs = try git(
                ["clone", mode] + options + [source.daemon.url("source"), "git-\(index).git"], in: directory.path,
                check: false)
            let ours = try gitwire(
                ["clone", mode] + options + [source.daemon.url("source"), "ours-\(index).git"], in: directory.path)
            #expect(ours.status == theirs.status)
            #expect(
                ours.errorText.replacingOccurrences(of: "ours-", with: "git-") == theirs.errorText)
            let theirConfig = try String(
                contentsOfFile: directory.appending("git-\(index).git/config"), encoding: .utf8)
            let ourConfig = try String(contentsOfFile: directory.appending("ours-\(index).git/config"), encoding: .utf8)
            #expect(ourConfig == theirConfig)
            #expect(
                try gitText(["for-each-ref"], in: directory.appending("ours-\(index).git"))
                    == gitText(["for-each-ref"], in: directory.appending("git-\(index).git")))
        }
    }

    /// The CI idiom: `clone -c http.extraHeader="Authorization: …"`. Each request of the clone
    /// carries the headers as git's do, and the values are in no output of gitwire's.
    @Test func extraHeaderGivenWithConfigReachesTheServerAndIsNeverPrinted() throws {
        let server = try Self.server.get()
        let home = try ConfigHome()
        let directory = try TemporaryDirectory()
        for version in ["0", "2"] {
            let options = [
                "-c", "http.extraHeader=X-Gitwire-One: first-secret-1", "--config",
                "http.\(server.url("/git/")).extraHeader=X-Gitwire-Two: second-secret-2", "-c",
                "protocol.version=\(version)",
            ]
            var start = server.loggedRequests().count
            let theirs = try home.git(
                ["clone", "--no-checkout", "--progress"] + options + [server.url("/git/small.git"), "git-\(version)"],
                in: directory.path)
            let theirRequests = ConfigHTTPTests.requests(server, after: start)
            start = server.loggedRequests().count
            let ours = try home.gitwire(
                ["clone", "--progress", "--record=ours-\(version).session"] + options + [
                    server.url("/git/small.git"), "ours-\(version)",
                ],
                in: directory.path)
            let ourRequests = ConfigHTTPTests.requests(server, after: start)
            #expect(ours.status == 0 && theirs.status == 0, "\(ours.errorText)")
            #expect(ours.text == theirs.text)
            #expect(!ourRequests.isEmpty)
            // Every request carries both headers, and the protocol version asked for with -c.
            for request in ourRequests + theirRequests {
                #expect(request.contains("first-secret-1") && request.contains("second-secret-2"), "\(request)")
            }
            #expect(ourRequests.first == theirRequests.first)
            #expect(
                ourRequests.map { $0.split(separator: " ").prefix(2) }
                    == theirRequests.map {
                        $0.split(separator: " ").prefix(2)
                    })
            // The recording keeps the command line, without the settings' values.
            let recording = String(
                decoding: try Data(contentsOf: URL(fileURLWithPath: directory.appending("ours-\(version).session"))),
                as: UTF8.self)
            #expect(recording.contains("-c http.extraHeader=…"))
            for output in [ours.text, ours.errorText, recording] {
                #expect(!output.contains("secret-1") && !output.contains("secret-2"))
            }
            let theirConfig = try String(
                contentsOfFile: directory.appending("git-\(version)/.git/config"), encoding: .utf8)
            let ourConfig = try String(
                contentsOfFile: directory.appending("ours-\(version)/.git/config"), encoding: .utf8)
            #expect(ourConfig == theirConfig)
            #expect(
                try gitText(["for-each-ref"], in: directory.appending("ours-\(version)"))
                    == gitText(["for-each-ref"], in: directory.appending("git-\(version)")))
        }
        // A bad -c argument shows no value: git's `bogus config parameter` message would.
        let bad = try home.gitwire(
            ["clone", "-c", "=Authorization: top-secret", server.url("/git/small.git"), "bad"], in: directory.path)
        #expect(bad.status == 128)
        #expect(!bad.errorText.contains("top-secret"))
        #expect(!FileManager.default.fileExists(atPath: directory.appending("bad")))
    }

    /// core.sshCommand given with -c runs the clone's ssh, with git's command line.
    @Test func sshCommandGivenWithConfigRunsTheClonesSSH() throws {
        let source = try CloneWorkTreeTests.source.get()
        let directory = try TemporaryDirectory()
        let home = try ConfigHome()
        for side in ["git", "ours"] {
            try writeFakeSSH(directory.appending("ssh-\(side)"), log: directory.appending("\(side).log"))
        }
        let url = "ssh://example.invalid\(source.path)"
        let theirs = try home.git(
            ["clone", "-q", "--no-checkout", "-c", "core.sshCommand=\(directory.appending("ssh-git"))", url, "git"],
            in: directory.path)
        let ours = try home.gitwire(
            ["clone", "-q", "-c", "core.sshCommand=\(directory.appending("ssh-ours"))", url, "ours"], in: directory.path
        )
        #expect(theirs.status == 0)
        expectSame((theirs, ours))
        #expect(
            try String(contentsOfFile: directory.appending("ours.log"), encoding: .utf8)
                == String(contentsOfFile: directory.appending("git.log"), encoding: .utf8))
        #expect(
            try gitText(["for-each-ref"], in: directory.appending("ours"))
                == gitText(["for-each-ref"], in: directory.appending("git")))
    }

    /// A credential helper given with -c answers the clone's 401, as git's does.
    @Test func credentialHelperGivenWithConfigIsAsked() throws {
        let server = try Self.server.get()
        let home = try ConfigHome()
        let directory = try TemporaryDirectory()
        let helper = directory.appending("helper.sh")
        try "#!/bin/sh\necho username=\(server.username)\necho password=\(server.password)\n".write(
            toFile: helper, atomically: true, encoding: .utf8)
        try run(["chmod", "+x", helper])
        let options = ["-c", "credential.helper=!\(helper)"]
        let url = server.url("/auth/small.git")
        let theirs = try home.git(
            ["clone", "--no-checkout"] + options + [url, "git"], in: directory.path, extra: ["GIT_TERMINAL_PROMPT": "0"]
        )
        let ours = try home.gitwire(
            ["clone"] + options + [url, "ours"], in: directory.path, extra: ["GIT_TERMINAL_PROMPT": "0"])
        #expect(theirs.status == 0)
        #expect(ours.status == theirs.status, "\(ours.errorText)")
        #expect(!ours.errorText.contains(server.password))
        #expect(
            try gitText(["for-each-ref"], in: directory.appending("ours"))
                == gitText(["for-each-ref"], in: directory.appending("git")))
    }

    /// git's clone also fetches the refspecs of `remote.<origin>.fetch` given with -c (and takes
    /// its url, mirror and tagOpt): gitwire refuses them, before anything is made.
    @Test func theRemotesOwnFetchSettingsAreRefused() throws {
        let source = try CloneWorkTreeTests.source.get()
        let directory = try TemporaryDirectory()
        for (index, options) in [
            ["-c", "remote.origin.fetch=+refs/heads/side:refs/side"], ["-c", "Remote.origin.URL=elsewhere"],
            ["-o", "up", "--config=remote.up.mirror=true"], ["-c", "remote.origin.tagOpt=--no-tags"],
        ].enumerated() {
            let ours = try gitwire(
                ["clone"] + options + [source.daemon.url("source"), "repo-\(index)"], in: directory.path)
            #expect(ours.status == 128)
            let key = try #require(ours.errorText.split(separator: "\n").last?.split(separator: " ").dropFirst().first)
            #expect(ours.errorText.hasPrefix("Cloning into 'repo-\(index)'...\nfatal: "))
            #expect(key.hasPrefix("remote."))
            #expect(!FileManager.default.fileExists(atPath: directory.appending("repo-\(index)")))
        }
    }
}
