import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A home of one's own: real configuration files in a temporary `HOME` (`GIT_CONFIG_GLOBAL`,
/// `XDG_CONFIG_HOME`, no system file), and git and gitwire run there with exactly that
/// environment and nothing of the test process's.
struct ConfigHome {
    let directory: TemporaryDirectory
    var environment: [String: String]

    init(global: String = "", extra: [String: String] = [:]) throws {
        directory = try TemporaryDirectory(prefix: "gitwire-config-home")
        try FileManager.default.createDirectory(
            atPath: directory.appending("xdg/git"), withIntermediateDirectories: true)
        try global.write(toFile: directory.appending("gitconfig"), atomically: true, encoding: .utf8)
        environment = [
            "HOME": directory.path, "GIT_CONFIG_GLOBAL": directory.appending("gitconfig"),
            "XDG_CONFIG_HOME": directory.appending("xdg"), "GIT_CONFIG_NOSYSTEM": "1",
        ].merging(extra) { $1 }
    }

    /// Runs `program` (`git` or gitwire) with `arguments` in `directory`, with exactly this
    /// environment (plus `PATH` and `LC_ALL=C`, and `extra`).
    func run(
        _ program: String, _ arguments: [String], in directory: String? = nil, extra: [String: String] = [:]
    ) throws -> ProcessOutput {
        var assignments = ["PATH=\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")", "LC_ALL=C"]
        for (name, value) in environment.merging(extra, uniquingKeysWith: { $1 }).sorted(by: { $0.key < $1.key }) {
            assignments.append("\(name)=\(value)")
        }
        let command = ["env", "-i"] + (directory.map { ["-C", $0] } ?? []) + assignments + [program] + arguments
        return try GitWireTestSupport.run(command, check: false)
    }

    func git(_ arguments: [String], in directory: String? = nil, extra: [String: String] = [:]) throws
        -> ProcessOutput
    {
        try run("git", arguments, in: directory, extra: extra)
    }

    func gitwire(_ arguments: [String], in directory: String? = nil, extra: [String: String] = [:]) throws
        -> ProcessOutput
    {
        try run(gitwireExecutable, arguments, in: directory, extra: extra)
    }

    /// Both, with the same arguments.
    func both(_ arguments: [String], in directory: String? = nil, extra: [String: String] = [:]) throws -> (
        git: ProcessOutput, gitwire: ProcessOutput
    ) {
        (
            try git(arguments, in: directory, extra: extra),
            try gitwire(arguments, in: directory, extra: extra)
        )
    }

    /// Appends `text` to the global configuration file.
    func configure(_ text: String) throws {
        let path = directory.appending("gitconfig")
        let old = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        try (old + text).write(toFile: path, atomically: true, encoding: .utf8)
    }
}

/// `expectSame` for two runs: status, standard output and standard error equal.
func expectSame(
    _ runs: (git: ProcessOutput, gitwire: ProcessOutput), output: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    // git's remote helper (git-remote-http) dies of a bad setting with status 128; git itself,
    // writing to the helper at that moment, is sometimes killed by SIGPIPE (141) first.
    let gitStatus = runs.git.status == 141 && runs.git.errorText.hasPrefix("fatal: ") ? 128 : runs.git.status
    #expect(runs.gitwire.status == gitStatus, "\(runs.gitwire.errorText)", sourceLocation: sourceLocation)
    if output { #expect(runs.gitwire.text == runs.git.text, sourceLocation: sourceLocation) }
    #expect(runs.gitwire.errorText == runs.git.errorText, sourceLocation: sourceLocation)
}

/// A fake ssh that logs each command line it is given (one line, arguments in brackets) to
/// `log` (or to `$FAKE_SSH_LOG` when nil) and runs the remote command it was given locally, so
/// ssh:// URLs work with no sshd and the command lines of git and gitwire can be compared.
func writeFakeSSH(_ path: String, log: String? = nil) throws {
    try writeExecutable(
        path,
        """
        #!/bin/sh
        line=""
        for argument in "$@"; do line="$line[$argument]"; done
        echo "$line" >> \(log.map { "'\($0)'" } ?? "\"$FAKE_SSH_LOG\"")
        [ "$1" = "-G" ] && exit 0
        for last; do :; done
        exec sh -c "$last"

        """)
}

/// The configuration the user wrote, applied where git applies it, compared with git 2.39 on
/// real configuration files: insteadOf, remote names, the protocol rules, protocol.version,
/// core.sshCommand and ssh.variant, and git's options before the command.
@Suite("configuration applied")
struct ConfigWiringTests {
    static var repositories: TestRepositories { TestRepositories.shared }

    // MARK: insteadOf

    /// `corp:big.git` is an scp-like ssh URL until insteadOf rewrites it: git lists the rewritten
    /// URL, and so does gitwire (which ran `ssh corp` before); no ssh is started by either.
    @Test func insteadOfRewritesBeforeTheTransportIsChosen() throws {
        let home = try ConfigHome()
        let sshLog = home.directory.appending("ssh.log")
        try writeFakeSSH(home.directory.appending("fake-ssh"), log: sshLog)
        try home.configure(
            """
            [url "\(Self.repositories.daemon.url(""))"]
            \tinsteadOf = corp:
            [url "\(Self.repositories.basePath)/"]
            \tinsteadOf = local:
            [core]
            \tsshCommand = \(home.directory.appending("fake-ssh"))

            """)
        for url in ["corp:big.git", "corp:small.git", "local:small.git"] {
            expectSame(try home.both(["ls-remote", "--symref", url]))
            expectSame(try home.both(["ls-remote", "--get-url", url]))
        }
        #expect(!FileManager.default.fileExists(atPath: sshLog), "no ssh started")
        // The longest prefix wins, as in git.
        try home.configure("[url \"\(Self.repositories.daemon.url(""))big\"]\n\tinsteadOf = corp:small\n")
        expectSame(try home.both(["ls-remote", "--get-url", "corp:small.git"]))
    }

    // MARK: Remote names

    @Test func remoteNamesAsGitTakesThem() throws {
        let home = try ConfigHome()
        let repository = home.directory.appending("work")
        _ = try home.git(["init", "-q", "--initial-branch=main", repository])
        let uploadLog = home.directory.appending("upload-pack.log")
        try writeExecutable(
            home.directory.appending("my-upload-pack"),
            "#!/bin/sh\necho \"$@\" >> '\(uploadLog)'\nexec git-upload-pack \"$@\"\n")
        try """
        [remote "origin"]
        \turl = \(Self.repositories.daemon.url("small.git"))
        [remote "other"]
        \turl = corp:big.git
        \turl = \(Self.repositories.daemon.url("small.git"))
        [remote "local"]
        \turl = \(Self.repositories.path("small.git"))
        \tuploadpack = \(home.directory.appending("my-upload-pack"))
        [url "\(Self.repositories.daemon.url(""))"]
        \tinsteadOf = corp:

        """.write(toFile: "\(repository)/.git/config", atomically: false, encoding: .utf8)
        // With no remote named: the current branch's (none yet), else origin, and `From` on stderr.
        expectSame(try home.both(["ls-remote"], in: repository))
        expectSame(try home.both(["ls-remote", "-q"], in: repository))
        expectSame(try home.both(["ls-remote", "--get-url"], in: repository))
        for name in ["origin", "other", "nosuch", "local"] {
            expectSame(try home.both(["ls-remote", "--get-url", name], in: repository))
            expectSame(try home.both(["ls-remote", "--heads", name], in: repository))
        }
        // remote.local.uploadpack ran, for git and for gitwire alike.
        let uploads = (try String(contentsOfFile: uploadLog, encoding: .utf8)).split(separator: "\n")
        #expect(uploads.count == 2 && uploads[0] == uploads[1])
        // The branch's remote.
        _ = try home.git(["config", "branch.main.remote", "other"], in: repository)
        expectSame(try home.both(["ls-remote"], in: repository))
        // From a subdirectory, and through -C (several, taken in turn).
        try FileManager.default.createDirectory(atPath: "\(repository)/a/b", withIntermediateDirectories: true)
        expectSame(try home.both(["ls-remote", "--get-url"], in: "\(repository)/a/b"))
        expectSame(
            try home.both(["-C", home.directory.path, "-C", "work/a", "-C", "", "ls-remote", "--tags", "origin"]))
        // A single remote, not named origin: git takes it (remote.c's remotes_nr == 1).
        let single = home.directory.appending("single")
        _ = try home.git(["init", "-q", "--initial-branch=main", single])
        _ = try home.git(["remote", "add", "upstream", Self.repositories.daemon.url("small.git")], in: single)
        expectSame(try home.both(["ls-remote", "--get-url"], in: single))
        expectSame(try home.both(["ls-remote", "--heads"], in: single))
        // Outside any repository.
        let outside = try TemporaryDirectory()
        expectSame(try home.both(["ls-remote"], in: outside.path))
        expectSame(try home.both(["ls-remote", "--get-url"], in: outside.path))
    }

    // MARK: Protocol rules

    struct PolicyCase: CustomTestStringConvertible, Sendable {
        var settings: [String]
        var environment: [String: String]
        var testDescription: String { "\(settings) \(environment)" }
    }

    static let policyCases: [PolicyCase] = [
        PolicyCase(settings: [], environment: [:]),
        PolicyCase(settings: ["protocol.file.allow=never"], environment: [:]),
        PolicyCase(settings: ["protocol.file.allow=Always", "protocol.allow=never"], environment: [:]),
        PolicyCase(settings: ["protocol.allow=never"], environment: [:]),
        PolicyCase(settings: ["protocol.allow=user"], environment: ["GIT_PROTOCOL_FROM_USER": "0"]),
        PolicyCase(settings: [], environment: ["GIT_PROTOCOL_FROM_USER": "0"]),
        PolicyCase(settings: [], environment: ["GIT_PROTOCOL_FROM_USER": "bogus"]),
        PolicyCase(settings: ["protocol.git.allow=user"], environment: ["GIT_PROTOCOL_FROM_USER": "false"]),
        PolicyCase(settings: [], environment: ["GIT_ALLOW_PROTOCOL": "git:ssh"]),
        PolicyCase(settings: ["protocol.file.allow=always"], environment: ["GIT_ALLOW_PROTOCOL": "git"]),
        PolicyCase(settings: ["protocol.http.allow=never"], environment: [:]),
        PolicyCase(settings: ["protocol.file.allow=bogus"], environment: [:]),
        PolicyCase(settings: ["protocol.file.allow"], environment: [:]),
        PolicyCase(settings: ["protocol.git.allow=never", "protocol.git.allow=always"], environment: [:]),
    ]

    static let http = Result { try HTTPServer(root: TestRepositories.shared.basePath) }

    @Test(arguments: policyCases)
    func protocolRulesAsGitsTransport(_ testCase: PolicyCase) throws {
        let home = try ConfigHome(extra: testCase.environment)
        let http = try Self.http.get()
        let urls = [
            Self.repositories.path("small.git"), "file://\(Self.repositories.path("small.git"))",
            Self.repositories.daemon.url("small.git"), http.url("/git/small.git"),
        ]
        for url in urls {
            let settings = testCase.settings.flatMap { ["-c", $0] }
            expectSame(try home.both(settings + ["ls-remote", url]))
        }
    }

    /// A program embedding gitwire forbids local repositories as git does: the configuration it
    /// gives, or the environment.
    @Test func aLibraryCanForbidLocalRepositories() throws {
        let never = GitConfiguration(entries: [ConfigEntry(name: "protocol.file.allow", value: "never")])
        let path = Self.repositories.path("small.git")
        for url in [path, "file://\(path)"] {
            #expect(throws: TransportNotAllowedError(transport: "file")) {
                try Remote(url, configuration: never, environment: [:])
            }
            #expect(throws: TransportNotAllowedError(transport: "file")) {
                try Remote(url, environment: ["GIT_PROTOCOL_FROM_USER": "0"])
            }
            #expect(throws: Never.self) { try Remote(url, environment: [:]) }
        }
        let error = TransportNotAllowedError(transport: "file")
        #expect(error.kind == .usage && error.description == "transport 'file' not allowed")
        #expect(throws: Never.self) { try Remote(Self.repositories.daemon.url("small.git"), configuration: never) }
    }

    // MARK: protocol.version

    @Test(arguments: ["0", "1", "2"])
    func protocolVersionFromTheConfiguration(version: String) throws {
        let home = try ConfigHome(global: "[protocol]\n\tversion = \(version)\n")
        let url = Self.repositories.daemon.url("big.git")
        let traces = (git: home.directory.appending("git.trace"), gitwire: home.directory.appending("gitwire.trace"))
        let runs = (
            git: try home.git(["ls-remote", "--tags", url], extra: ["GIT_TRACE_PACKET": traces.git]),
            gitwire: try home.gitwire(["ls-remote", "--tags", url], extra: ["GIT_TRACE_PACKET": traces.gitwire])
        )
        expectSame(runs)
        // The same version asked for and spoken: v2's capability advertisement or not.
        func spokeV2(_ path: String) throws -> Bool {
            try String(contentsOfFile: path, encoding: .utf8).contains("< version 2\n")
        }
        #expect(try spokeV2(traces.gitwire) == spokeV2(traces.git))
        #expect(try spokeV2(traces.gitwire) == (version == "2"))
        // --protocol-version still decides for gitwire.
        let explicit = try home.gitwire(
            ["ls-remote", "--protocol-version=2", url], extra: ["GIT_TRACE_PACKET": traces.gitwire + "2"])
        #expect(explicit.status == 0)
        #expect(try spokeV2(traces.gitwire + "2"))
    }

    @Test func anUnknownProtocolVersionIsGitsError() throws {
        let home = try ConfigHome()
        expectSame(try home.both(["-c", "protocol.version=3", "ls-remote", Self.repositories.daemon.url("small.git")]))
    }

    // MARK: ssh

    struct SSHCase: CustomTestStringConvertible, Sendable {
        var configuration: String
        var environment: [String: String]
        var url: String
        var testDescription: String { "\(configuration) \(environment) \(url)" }
    }

    static let sshCases: [SSHCase] = {
        let path = TestRepositories.shared.path("small.git")
        var cases: [SSHCase] = []
        for url in ["ssh://someone@example.invalid:2222\(path)", "example.invalid:\(path)"] {
            cases += [
                SSHCase(configuration: "[core]\n\tsshCommand = FAKE -x\n", environment: [:], url: url),
                SSHCase(
                    configuration: "[core]\n\tsshCommand = FAKE\n[ssh]\n\tvariant = ssh\n", environment: [:], url: url),
                SSHCase(
                    configuration: "[core]\n\tsshCommand = FAKE\n[ssh]\n\tvariant = simple\n", environment: [:],
                    url: url),
                SSHCase(
                    configuration: "[core]\n\tsshCommand = FAKE\n[ssh]\n\tvariant = plink\n", environment: [:], url: url
                ),
                SSHCase(
                    configuration: "[core]\n\tsshCommand = false\n", environment: ["GIT_SSH_COMMAND": "FAKE -y"],
                    url: url),
                SSHCase(configuration: "[core]\n\tsshCommand = FAKE -z\n", environment: ["GIT_SSH": "false"], url: url),
                SSHCase(
                    configuration: "[ssh]\n\tvariant = tortoiseplink\n", environment: ["GIT_SSH": "FAKE"], url: url),
            ]
        }
        return cases
    }()

    /// core.sshCommand and ssh.variant, with and around the environment variables: the command
    /// lines git runs (logged by a fake ssh that runs the remote command itself) are gitwire's.
    @Test(arguments: sshCases)
    func sshCommandAndVariantFromTheConfiguration(_ testCase: SSHCase) throws {
        let home = try ConfigHome()
        let fake = home.directory.appending("fake-ssh")
        try writeFakeSSH(fake)
        func environment(_ log: String) -> [String: String] {
            testCase.environment.mapValues { $0.replacingOccurrences(of: "FAKE", with: fake) }.merging([
                "FAKE_SSH_LOG": log
            ]) { $1 }
        }
        try home.configure(testCase.configuration.replacingOccurrences(of: "FAKE", with: fake))
        for version in ["0", "2"] {
            let logs = (
                git: home.directory.appending("git-\(version).log"),
                gitwire: home.directory.appending("gw-\(version).log")
            )
            let arguments = ["-c", "protocol.version=\(version)", "ls-remote", testCase.url]
            let git = try home.git(arguments, extra: environment(logs.git))
            let gitwire = try home.gitwire(arguments, extra: environment(logs.gitwire))
            expectSame((git, gitwire))
            let gitLog = (try? String(contentsOfFile: logs.git, encoding: .utf8)) ?? ""
            let gitwireLog = (try? String(contentsOfFile: logs.gitwire, encoding: .utf8)) ?? ""
            #expect(gitwireLog == gitLog)
        }
    }

    // MARK: Options before the command

    @Test(arguments: [
        ["-c"], ["-C"], ["--config-env"], ["--config-env=a.b=NOPE_VAR", "ls-remote", "x"], ["--foo"],
        ["-x", "ls-remote"],
        ["-c", "foo", "ls-remote", "x"], ["-C", "/nonexistent/dir", "ls-remote", "x"],
        ["-c", "protocol.file.allow", "ls-remote", "/x"], ["--git-dir"], ["--work-tree"],
    ])
    func mistakesBeforeTheCommandAsGitReportsThem(_ words: [String]) throws {
        let home = try ConfigHome()
        let (git, gitwire) = try home.both(words)
        #expect(gitwire.status == git.status)
        // The message is git's; the usage that follows names gitwire.
        let firstLine = { (output: ProcessOutput) in output.errorText.split(separator: "\n").first.map(String.init) }
        #expect(firstLine(gitwire) == firstLine(git))
        if git.status == 129 { #expect(gitwire.errorText.contains("usage: gitwire")) }
    }

    /// `--git-dir` and `--work-tree` (either form) set `GIT_DIR` and `GIT_WORK_TREE` as git sets
    /// them, relative paths taken after every `-C`: the repository's remotes are found from
    /// anywhere, and a path that is no repository fails as in git.
    @Test func gitDirectoryOptionsAsGitTakesThem() throws {
        let home = try ConfigHome()
        let repository = home.directory.appending("work")
        _ = try home.git(["init", "-q", "--initial-branch=main", repository])
        _ = try home.git(["remote", "add", "origin", Self.repositories.daemon.url("small.git")], in: repository)
        _ = try home.git(["remote", "add", "other", Self.repositories.path("small.git")], in: repository)
        let outside = try TemporaryDirectory()
        for words in [
            ["--git-dir=\(repository)/.git", "ls-remote", "--get-url"],
            ["--git-dir", "\(repository)/.git", "ls-remote", "--heads"],
            ["--git-dir=work/.git", "--work-tree=work", "ls-remote", "--tags", "other"],
            ["--work-tree", "work", "--git-dir", "work/.git", "ls-remote", "--get-url", "other"],
            ["-C", home.directory.path, "--git-dir", "work/.git", "ls-remote", "--get-url"],
            ["--git-dir=\(outside.path)", "--git-dir=work/.git", "ls-remote", "--get-url"],
            ["--git-dir=\(outside.path)", "ls-remote", "--get-url"],
            ["--git-dir=\(outside.path)", "fetch", "origin"],
        ] {
            expectSame(try home.both(words, in: words.first == "-C" ? outside.path : home.directory.path))
        }
    }

    /// `-c` and `--config-env` apply to the command and reach the programs it starts.
    @Test func configurationOptionsApply() throws {
        let home = try ConfigHome()
        let url = "corp:small.git"
        expectSame(
            try home.both(["-c", "url.\(Self.repositories.daemon.url("")).insteadOf=corp:", "ls-remote", url]))
        expectSame(
            try home.both(
                ["--config-env=url.\(Self.repositories.daemon.url("")).insteadOf=COMPANY", "ls-remote", url],
                extra: ["COMPANY": "corp:"]))
    }
}
