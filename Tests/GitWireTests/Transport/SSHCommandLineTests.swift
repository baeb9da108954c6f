import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// The ssh command lines git 2.39 runs, compared with gitwire's through a fake ssh program that
/// logs every run (its arguments and `GIT_PROTOCOL`) and fails: paths and hosts that look like
/// options, bracketed `[user@host:port]` addresses, and git's ssh variants, with the `-G` probe
/// it runs for programs it does not know (issue #19).
@Suite("ssh command lines")
struct SSHCommandLineTests {
    /// A fake ssh in its own directory: it appends its arguments to `log`, one per line, after a
    /// `--` line, and exits `probeStatus` when run with `-G`, 1 otherwise.
    struct FakeSSH {
        let directory: TemporaryDirectory
        let program: String
        let log: String

        init(name: String = "myssh", probeStatus: Int = 0) throws {
            directory = try TemporaryDirectory(prefix: "gitwire-ssh")
            try FileManager.default.createDirectory(
                atPath: directory.appending("bin dir"), withIntermediateDirectories: false)
            program = directory.appending("bin dir/\(name)")
            log = directory.appending("ssh.log")
            try writeExecutable(
                program,
                """
                #!/bin/sh
                {
                printf '%s\\n' --
                for a in "$@" "GIT_PROTOCOL=$GIT_PROTOCOL"; do printf '%s\\n' "$a"; done
                } >> '\(log)'
                [ "$1" = -G ] && exit \(probeStatus)
                exit 1

                """)
        }

        /// What the runs logged since the last call, and the log emptied.
        func take() throws -> String {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: log)
            return text
        }
    }

    /// Runs `git ls-remote` and `gitwire ls-remote` on `url` with `environment`: the same runs of
    /// the ssh program, the same standard error, the same status.
    func expectSameRuns(
        _ url: String, _ fake: FakeSSH, environment: [String: String], version: String = "2",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        _ = try fake.take()
        let expected = try git(
            ["-c", "protocol.version=\(version)", "ls-remote", url], environment: environment, check: false)
        let gitRuns = try fake.take()
        let ours = try gitwire(["ls-remote", "--protocol-version=\(version)", url], environment: environment)
        let ourRuns = try fake.take()
        #expect(ourRuns == gitRuns, "\(url) \(environment)", sourceLocation: sourceLocation)
        #expect(ours.status == expected.status, "\(url)", sourceLocation: sourceLocation)
        #expect(ours.errorText == expected.errorText, "\(url) \(environment)", sourceLocation: sourceLocation)
    }

    /// D14: an scp-style path that starts with `-` never reaches the remote `git-upload-pack` as
    /// an option: git says `strange pathname '<path>' blocked` and runs no ssh; so does gitwire.
    @Test(arguments: ["host:--upload-pack=touch pwned", "host:--help", "user@host:-x", "[host:22]:-x"])
    func optionLikePathsAreRefused(_ url: String) throws {
        let fake = try FakeSSH(name: "ssh")
        let environment = ["GIT_SSH": fake.program]
        let expected = try git(
            ["ls-remote", "--", url], in: fake.directory.path, environment: environment, check: false)
        let ours = try gitwire(["ls-remote", "--", url], in: fake.directory.path, environment: environment)
        #expect(expected.status == 128)
        #expect(expected.errorText.hasPrefix("fatal: strange pathname"), "\(expected.errorText)")
        #expect(ours.status == 128)
        #expect(ours.errorText == expected.errorText)
        #expect(try fake.take().isEmpty, "ssh ran")
        let remote = try Remote(url)
        #expect(throws: StrangePathnameError.self) { try remote.lsRemoteBlocking() }
    }

    /// Addresses with brackets and other corners of git's `parse_connect_url`/`get_host_and_port`.
    @Test(arguments: [
        "[user@host:2222]:repo", "[host:2222]:repo", "user@[host:2222]:repo", "[user@host]:repo", "[::1]:x",
        "host:a~b", "host:/~user/x", "host:~user/x", "[host]x:y", "ssh://[user@host:2222]/x",
        "ssh://h:/x", "ssh://user@[fe80::1]:22/x", "host:x@[y]:z",
    ])
    func bracketedAddresses(_ url: String) throws {
        let fake = try FakeSSH(name: "ssh")
        try expectSameRuns(url, fake, environment: ["GIT_SSH": fake.program])
        try expectSameRuns(url, fake, environment: ["GIT_SSH": fake.program], version: "0")
    }

    /// git's variants: by `GIT_SSH_VARIANT` (exact values; `auto` and unknown names), by the
    /// program's name (`ssh`, `plink`, `tortoiseplink`, any case, `.exe`; not `putty`), and for
    /// any other program the `-G` probe: it succeeds (OpenSSH's options) or fails (`simple`, which
    /// takes no port: `ssh variant 'simple' does not support setting port`). Through `GIT_SSH`
    /// and through `GIT_SSH_COMMAND` (whose first word, as git splits it, names the program).
    @Test(
        arguments: [
            "myssh", "ssh", "SSH.EXE", "plink", "PLINK.exe", "tortoiseplink", "putty", "plink.sh",
        ], [0, 1])
    func variantsByName(_ name: String, probeStatus: Int) throws {
        let fake = try FakeSSH(name: name, probeStatus: probeStatus)
        let quoted = "'\(fake.program)'"
        for environment in [
            ["GIT_SSH": fake.program], ["GIT_SSH_COMMAND": "\(quoted) -o Foo=bar"],
            ["GIT_SSH_COMMAND": "\"\(fake.program)\""],
        ] {
            for url in ["ssh://user@host:2222/repo.git", "user@host:repo.git"] {
                try expectSameRuns(url, fake, environment: environment)
                try expectSameRuns(url, fake, environment: environment, version: "0")
            }
        }
    }

    @Test(arguments: ["auto", "simple", "ssh", "plink", "putty", "tortoiseplink", "Plink", "bogus", ""])
    func variantsByEnvironment(_ variant: String) throws {
        for probeStatus in [0, 1] {
            let fake = try FakeSSH(name: "myssh", probeStatus: probeStatus)
            for url in ["ssh://host:2222/repo.git", "host:repo.git"] {
                try expectSameRuns(url, fake, environment: ["GIT_SSH": fake.program, "GIT_SSH_VARIANT": variant])
                try expectSameRuns(
                    url, fake, environment: ["GIT_SSH_COMMAND": "'\(fake.program)'", "GIT_SSH_VARIANT": variant],
                    version: "0")
            }
        }
    }

    /// git's `split_cmdline` decides which word names the program.
    @Test func firstWordAsGitSplitsIt() {
        #expect(SSHCommand.firstWord(of: "ssh -v") == "ssh")
        #expect(SSHCommand.firstWord(of: "'/a b/plink' -x") == "/a b/plink")
        #expect(SSHCommand.firstWord(of: "a\\ b c") == "a b")
        #expect(SSHCommand.firstWord(of: "\"x'y\"z") == "x'yz")
        #expect(SSHCommand.firstWord(of: "ssh 'unclosed") == nil)
        #expect(SSHCommand.firstWord(of: "ssh x\\") == nil)
        #expect(SSHCommand.firstWord(of: " ssh") == "")
    }
}
