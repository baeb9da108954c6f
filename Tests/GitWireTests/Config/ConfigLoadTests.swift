import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `GitConfiguration.load` reads what `git config --list --show-origin --show-scope` lists,
/// entry by entry with scope and origin, across every layer, include and environment variable,
/// and refuses what git refuses with git's message.
@Suite("config loading")
struct ConfigLoadTests {
    /// A scratch world: a home, a system file, repositories.
    final class World {
        let directory: TemporaryDirectory
        var root: String { directory.path }
        var home: String { "\(root)/home" }

        init() throws {
            directory = try TemporaryDirectory(prefix: "gitwire-config-load")
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        }

        func write(_ relative: String, _ text: String) throws { try writeConfigFile("\(root)/\(relative)", text) }

        /// A new repository at `relative` (with one commit when `commit`), its git directory.
        @discardableResult
        func repository(_ relative: String, branch: String = "main", commit: Bool = false) throws -> String {
            let path = "\(root)/\(relative)"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try GitWireTestSupport.git(["init", "-q", "-b", branch, path])
            if commit {
                try GitWireTestSupport.git(["commit", "-q", "--allow-empty", "-m", "c"], in: path)
            }
            return "\(path)/.git"
        }
    }

    /// What git lists (or its fatal message and error line) and what the loader gives, compared.
    static func compare(
        _ world: World, gitDirectory: String? = nil, environment: [String: String], commandLine: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var gitEnvironment = environment
        if let gitDirectory { gitEnvironment["GIT_DIR"] = gitDirectory }
        let arguments =
            commandLine.flatMap { ["-c", $0] } + ["config", "--list", "-z", "--show-origin", "--show-scope"]
        let output = try gitExactly(arguments, environment: gitEnvironment, in: world.root)
        let loaded: Result<GitConfiguration, ConfigError>
        do {
            loaded = .success(
                try GitConfiguration.load(
                    gitDirectory: gitDirectory, environment: environment, commandLine: commandLine))
        } catch {
            loaded = .failure(error)
        }
        switch loaded {
        case .success(let configuration):
            #expect(output.status == 0, "git failed: \(output.errorText)", sourceLocation: sourceLocation)
            let expected = ListedEntry.parse(output.standardOutput, scope: true, origin: true)
            let actual = configuration.entries.map { ListedEntry($0, scope: true, origin: true) }
            #expect(actual == expected, sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(output.status != 0, "we refused (\(error)) what git read", sourceLocation: sourceLocation)
            #expect(error.description == fatalMessage(output), sourceLocation: sourceLocation)
            #expect(error.reason == firstDiagnostic(output), sourceLocation: sourceLocation)
        }
    }

    @Test func everyLayerInGitsOrderWithScopesAndOrigins() throws {
        let world = try World()
        let gitDirectory = try world.repository("repo")
        try world.write("system", "[layer]\n\tname = system\n[core]\n\tpager = less\n")
        try world.write("xdg/git/config", "[layer]\n\tname = xdg\n")
        try world.write("home/.config/git/config", "[layer]\n\tname = dot-config\n")
        try world.write("home/.gitconfig", "[layer]\n\tname = home\n[user]\n\tname = Someone\n")
        try FileManager.default.removeItem(atPath: "\(gitDirectory)/config")
        try world.write("repo/.git/config", "[core]\n\trepositoryformatversion = 0\n[layer]\n\tname = local\n")
        let base = configEnvironment(home: world.home, system: "\(world.root)/system")
        try Self.compare(world, gitDirectory: gitDirectory, environment: base)
        try Self.compare(
            world, gitDirectory: gitDirectory,
            environment: base.merging(["XDG_CONFIG_HOME": "\(world.root)/xdg"]) { $1 })
        try Self.compare(world, gitDirectory: gitDirectory, environment: base.merging(["XDG_CONFIG_HOME": ""]) { $1 })
        try Self.compare(world, gitDirectory: nil, environment: base)
        try Self.compare(
            world, gitDirectory: gitDirectory, environment: base.merging(["GIT_CONFIG_NOSYSTEM": "yes"]) { $1 })
        try Self.compare(
            world, gitDirectory: gitDirectory, environment: base.merging(["GIT_CONFIG_NOSYSTEM": "0"]) { $1 })
        try Self.compare(
            world, gitDirectory: gitDirectory, environment: base.merging(["GIT_CONFIG_NOSYSTEM": "maybe"]) { $1 })
        try Self.compare(
            world, gitDirectory: gitDirectory,
            environment: base.merging(["GIT_CONFIG_GLOBAL": "\(world.root)/xdg/git/config"]) { $1 })
        try Self.compare(world, gitDirectory: gitDirectory, environment: base.merging(["GIT_CONFIG_GLOBAL": ""]) { $1 })
        try Self.compare(
            world, gitDirectory: gitDirectory,
            environment: base.merging(["GIT_CONFIG_SYSTEM": "\(world.root)/./nothing/../system"]) { $1 })
        var noHome = base
        noHome["HOME"] = nil
        try Self.compare(world, gitDirectory: gitDirectory, environment: noHome)
        try Self.compare(
            world, gitDirectory: gitDirectory,
            environment: base.merging([
                "GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": "Env.Count.Key", "GIT_CONFIG_VALUE_0": "zero",
                "GIT_CONFIG_KEY_1": "env.flag", "GIT_CONFIG_VALUE_1": "", "GIT_CONFIG_PARAMETERS": "'param.a'='b'",
            ]) { $1 }, commandLine: ["cli.one=1", "cli.flag", "cli.empty=", "Cli.Sub.KEY=a=b"])
    }

    @Test func worktreeConfigOnlyWithTheExtension() throws {
        let world = try World()
        let main = try world.repository("main", commit: true)
        try GitWireTestSupport.git(["worktree", "add", "-q", "\(world.root)/linked"], in: "\(world.root)/main")
        let linked = "\(main)/worktrees/linked"
        try world.write("main/.git/config.worktree", "[wt]\n\tname = main\n")
        try world.write("main/.git/worktrees/linked/config.worktree", "[wt]\n\tname = linked\n")
        let environment = configEnvironment(home: world.home)
        for gitDirectory in [main, linked] {
            try Self.compare(world, gitDirectory: gitDirectory, environment: environment)
        }
        try GitWireTestSupport.git(["config", "extensions.worktreeConfig", "true"], in: "\(world.root)/main")
        for gitDirectory in [main, linked] {
            try Self.compare(world, gitDirectory: gitDirectory, environment: environment)
        }
        try GitWireTestSupport.git(["config", "extensions.worktreeConfig", "sometimes"], in: "\(world.root)/main")
        try Self.compare(world, gitDirectory: linked, environment: environment)
    }

    @Test func includesFollowedWhereTheyAppear() throws {
        let world = try World()
        let gitDirectory = try world.repository("repo")
        try world.write(
            "home/.gitconfig",
            """
            [a]
            \tbefore = 1
            [include]
            \tpath = inc/relative
            \tpath = ../shared/up
            \tpath = ~/inc/tilde
            \tpath = \(world.root)/shared/absolute
            \tpath = missing-file
            [a]
            \tafter = 1
            [Include]
            \tPath = inc/again

            """)
        try world.write("home/inc/relative", "[from]\n\trelative = 1\n[include]\n\tpath = nested\n")
        try world.write("home/inc/nested", "[from]\n\tnested = 1\n")
        try world.write("shared/up", "[from]\n\tup = 1\n")
        try world.write("home/inc/tilde", "[from]\n\ttilde = 1\n")
        try world.write("shared/absolute", "[from]\n\tabsolute = 1\n[include]\n\tpath = ./up\n")
        try world.write("home/inc/again", "[from]\n\tagain = 1\n")
        try world.write("repo/.git/local-include", "[from]\n\tlocal = 1\n")
        try GitWireTestSupport.git(["config", "include.path", "local-include"], in: "\(world.root)/repo")
        let environment = configEnvironment(home: world.home)
        try Self.compare(world, gitDirectory: gitDirectory, environment: environment)
        try Self.compare(
            world, gitDirectory: gitDirectory, environment: environment,
            commandLine: ["include.path=\(world.root)/shared/absolute", "x.y=1"])
        // Errors: relative include from the command line, no value, an include loop, a directory.
        try Self.compare(world, gitDirectory: gitDirectory, environment: environment, commandLine: ["include.path=rel"])
        try Self.compare(world, gitDirectory: gitDirectory, environment: environment, commandLine: ["include.path"])
        try Self.compare(
            world, gitDirectory: gitDirectory, environment: environment, commandLine: ["include.path=~nosuchuser/x"])
        try world.write("loop/a", "[x]\n\ta = 1\n[include]\n\tpath = b\n")
        try world.write("loop/b", "[x]\n\tb = 1\n[include]\n\tpath = a\n")
        try Self.compare(world, environment: environment.merging(["GIT_CONFIG_GLOBAL": "\(world.root)/loop/a"]) { $1 })
        try Self.compare(world, environment: environment, commandLine: ["include.path=\(world.root)/loop/a"])
        try world.write("self", "[include]\n\tpath = self\n")
        try Self.compare(world, environment: environment.merging(["GIT_CONFIG_GLOBAL": "\(world.root)/self"]) { $1 })
        try FileManager.default.createDirectory(atPath: "\(world.root)/adir", withIntermediateDirectories: true)
        try world.write("dirinclude", "[a]\n\tb = 1\n[include]\n\tpath = adir\n")
        try Self.compare(
            world, environment: environment.merging(["GIT_CONFIG_GLOBAL": "\(world.root)/dirinclude"]) { $1 })
        try world.write("nopath", "[a]\n\tb = 1\n[include]\n\tpath\n")
        try Self.compare(world, environment: environment.merging(["GIT_CONFIG_GLOBAL": "\(world.root)/nopath"]) { $1 })
        try world.write("syntax", "[a]\n\tb = 1\n[include]\n\tpath = bad\n[c]\n\td = 1\n")
        try world.write("bad", "[x]\n\ty = 1\n\tz = \"open\n")
        try Self.compare(world, environment: environment.merging(["GIT_CONFIG_GLOBAL": "\(world.root)/syntax"]) { $1 })
    }

    /// Depths up to git's limit read; one more is refused with git's message.
    @Test(arguments: [9, 10, 11])
    func includeDepthLimit(_ depth: Int) throws {
        let world = try World()
        for level in 0..<depth {
            try world.write("chain/\(level)", "[level]\n\tn\(level) = 1\n[include]\n\tpath = \(level + 1)\n")
        }
        try world.write("chain/\(depth)", "[level]\n\tlast = 1\n")
        let environment = configEnvironment(home: world.home, extra: ["GIT_CONFIG_GLOBAL": "\(world.root)/chain/0"])
        try Self.compare(world, environment: environment)
    }

    /// `includeIf "gitdir:…"` and `"gitdir/i:…"` patterns against repositories named directly,
    /// through a symbolic link, in other cases, deep or not: each condition includes a file of its
    /// own, so the listing shows which ones matched.
    @Test func gitdirConditionsMatchAsGitMatchesThem() throws {
        let world = try World()
        let root = world.root
        var gitDirectories = [
            try world.repository("work/proj"), try world.repository("work/sub/deep/proj"),
            try world.repository("Work/Case"), try world.repository("home/code/mine"),
            try world.repository("other/proj"),
        ]
        try FileManager.default.createSymbolicLink(atPath: "\(root)/link", withDestinationPath: "\(root)/work")
        try FileManager.default.createSymbolicLink(atPath: "\(root)/home/linkwork", withDestinationPath: "\(root)/work")
        gitDirectories += [
            "\(root)/link/proj/.git", "\(root)/home/linkwork/sub/deep/proj/.git", "\(root)/work/proj/.git/",
        ]
        let patterns = [
            "gitdir:\(root)/work/", "gitdir:\(root)/work", "gitdir:\(root)/work/proj/.git", "gitdir:\(root)/work/proj",
            "gitdir:\(root)/work/proj/", "gitdir:\(root)/work/**", "gitdir:\(root)/work/*/.git",
            "gitdir:\(root)/*/proj/",
            "gitdir:\(root)/**/proj/", "gitdir:proj/", "gitdir:proj/.git", "gitdir:work/", "gitdir:deep/",
            "gitdir:~/code/",
            "gitdir:~/linkwork/", "gitdir:~/", "gitdir/i:\(root)/WORK/", "gitdir:\(root)/WORK/", "gitdir/i:~/CODE/",
            "gitdir:./work/", "gitdir:./Work/", "gitdir/i:./work/", "gitdir:\(root)/link/", "gitdir:\(root)/link/proj/",
            "gitdir:**/deep/**", "gitdir:\(root)/work/p?oj/", "gitdir:\(root)/work/[pq]roj/",
            "gitdir:\(root)/work/[!p]roj/",
            "gitdir:\(root)/work/*/", "gitdir:\(root)/work/*", "gitdir:*/proj/", "gitdir:**", "gitdir:", "gitdir:/",
            "gitdir/i:\(root)/work/PROJ/.GIT", "gitdir:~nosuchuser/x/", "gitdir:~root/", "gitdir:\(root)/work\\/proj/",
            "gitdir:.git", "gitdir:\(root)/home/code/mine/.git/", "unknown:\(root)/", "GITDIR:\(root)/work/",
        ]
        var global = "[base]\n\tvalue = 1\n"
        for (index, pattern) in patterns.enumerated() {
            let quoted = pattern.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "\"", with: "\\\"")
            global += "[includeIf \"\(quoted)\"]\n\tpath = inc/\(index)\n"
            try world.write(
                "home/inc/\(index)", "[matched]\n\tp\(index) = \(String(reflecting: pattern).dropFirst().dropLast())\n")
        }
        try world.write("home/.gitconfig", global)
        try world.write("home/gitconfig-via-link", global)
        try FileManager.default.createSymbolicLink(atPath: "\(root)/homelink", withDestinationPath: world.home)
        for gitDirectory in gitDirectories {
            try Self.compare(world, gitDirectory: gitDirectory, environment: configEnvironment(home: world.home))
            // HOME through a link: `~/` in patterns is the resolved home.
            try Self.compare(
                world, gitDirectory: gitDirectory, environment: configEnvironment(home: "\(root)/homelink"))
            // `./` is relative to the including file, resolved.
            try Self.compare(
                world, gitDirectory: gitDirectory,
                environment: configEnvironment(
                    home: world.home, extra: ["GIT_CONFIG_GLOBAL": "\(root)/homelink/gitconfig-via-link"]))
        }
        // From the command line: `./` patterns are refused (and so false), others work.
        try Self.compare(
            world, gitDirectory: gitDirectories[0], environment: configEnvironment(home: world.home),
            commandLine: [
                "includeIf.gitdir:\(root)/work/.path=\(world.home)/inc/0",
                "includeIf.gitdir:./work/.path=\(world.home)/inc/1",
            ])
    }

    @Test func onbranchConditionsMatchHeadsBranch() throws {
        let world = try World()
        let patterns = ["main", "feature/", "feature/*", "feature/x", "feat*", "**/x", "*", "Main", "HEAD", "x"]
        var global = ""
        for (index, pattern) in patterns.enumerated() {
            global += "[includeIf \"onbranch:\(pattern)\"]\n\tpath = inc/\(index)\n"
            try world.write("home/inc/\(index)", "[matched]\n\tp\(index) = \(pattern)\n")
        }
        try world.write("home/.gitconfig", global)
        let environment = configEnvironment(home: world.home)
        for (name, branch) in [("a", "main"), ("b", "feature/x"), ("c", "feature/deep/x"), ("d", "x")] {
            let gitDirectory = try world.repository(name, branch: branch, commit: name == "a")
            try Self.compare(world, gitDirectory: gitDirectory, environment: environment)
        }
        // A detached HEAD is on no branch.
        let detached = try world.repository("e", commit: true)
        try GitWireTestSupport.git(["checkout", "-q", "--detach"], in: "\(world.root)/e")
        try Self.compare(world, gitDirectory: detached, environment: environment)
        try Self.compare(world, gitDirectory: nil, environment: environment)
    }

    @Test func hasconfigConditionsMatchRemoteURLs() throws {
        let world = try World()
        let gitDirectory = try world.repository("repo")
        try GitWireTestSupport.git(
            ["remote", "add", "origin", "https://example.org/group/project.git"], in: "\(world.root)/repo")
        try GitWireTestSupport.git(
            ["remote", "add", "mirror", "git@mirror.example:project.git"], in: "\(world.root)/repo")
        let patterns = [
            "https://example.org/**", "https://example.org/*", "https://example.org/*/*", "https://*.org/**",
            "git@mirror.example:*", "**/project.git", "*project.git", "https://other.example/**",
        ]
        var global = "[base]\n\tv = 1\n"
        for (index, pattern) in patterns.enumerated() {
            global += "[includeIf \"hasconfig:remote.*.url:\(pattern)\"]\n\tpath = inc/\(index)\n"
            try world.write(
                "home/inc/\(index)", "[matched]\n\tp\(index) = \(pattern)\n[include]\n\tpath = nested-\(index)\n")
            try world.write("home/inc/nested-\(index)", "[nested]\n\tp\(index) = 1\n")
        }
        try world.write("home/.gitconfig", global)
        let environment = configEnvironment(home: world.home)
        try Self.compare(world, gitDirectory: gitDirectory, environment: environment)
        try Self.compare(
            world, gitDirectory: nil, environment: environment, commandLine: ["remote.cli.url=https://example.org/x"])
        // A file included that way may not name remotes, even one whose condition is false.
        try world.write("home/inc/nested-7", "[remote \"sneaky\"]\n\turl = https://example.org/sneaky\n")
        try Self.compare(world, gitDirectory: gitDirectory, environment: environment)
    }

    @Test(arguments: [
        ["a.b=c"], ["a.b"], ["a.b="], ["A.B.C=x"], ["a.b=c=d"], ["=x"], [""], [".a=b"], ["a.=b"], ["a.b c=d"],
        ["sec.Sub.Key=v"], ["a.1b=x"], ["include.path=rel", "nodot=x"], ["x.y=1", "include.path", "nodot"],
        ["a.b\nc.d=x"], ["sec.sub\nx.key=v"], ["a.b=it's!"], [" a.b=x"], ["nodot=x"],
    ])
    func commandLineArgumentsAsGitTakesThem(_ arguments: [String]) throws {
        let world = try World()
        try Self.compare(world, environment: configEnvironment(home: world.home), commandLine: arguments)
    }

    @Test(arguments: [
        "'a.b'='c'", "'a.b'=", "'a.b=c'", "'a.b'='c' 'd.e'='f'", "a.b=c", "'a.b'x", "'a.b'='c'x", "'a'='b'",
        "'a.b'='it'\\''s'", "  'a.b'='c'  ", "'a.b'='c'\t'x.y'", "'a.b", "'a.b'='c", "'a.b=c' 'x.y'", "'a.b'=''",
        "'a.b'= 'c.d'=", "", "'' ", "'a.b'\\!", "'a.b=' 'c.d= e '", "'a.b'='x'\\!'y'",
    ])
    func configParametersAsGitReadsThem(_ parameters: String) throws {
        let world = try World()
        try Self.compare(
            world, environment: configEnvironment(home: world.home, extra: ["GIT_CONFIG_PARAMETERS": parameters]),
            commandLine: ["after.cli=1"])
    }

    @Test(arguments: [
        ["GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "a.b", "GIT_CONFIG_VALUE_0": "c"],
        ["GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": "a.b", "GIT_CONFIG_VALUE_0": "c"],
        ["GIT_CONFIG_COUNT": "1", "GIT_CONFIG_VALUE_0": "c"], ["GIT_CONFIG_COUNT": "x"], ["GIT_CONFIG_COUNT": ""],
        ["GIT_CONFIG_COUNT": "0"], ["GIT_CONFIG_COUNT": "-1"], ["GIT_CONFIG_COUNT": " 1"],
        ["GIT_CONFIG_COUNT": "1 "], ["GIT_CONFIG_COUNT": "99999999999"],
        ["GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "nodot", "GIT_CONFIG_VALUE_0": "c"],
        ["GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "", "GIT_CONFIG_VALUE_0": "c"],
        [
            "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "a.b", "GIT_CONFIG_VALUE_0": "",
            "GIT_CONFIG_PARAMETERS": "'c.d'=",
        ],
    ])
    func configCountAsGitReadsIt(_ variables: [String: String]) throws {
        let world = try World()
        try Self.compare(world, environment: configEnvironment(home: world.home, extra: variables))
    }

    /// Generated worlds: every layer's file made of tricky fragments (now and then one git
    /// refuses), with includes between them (absolute, relative, `~/`, missing, looping) and
    /// `includeIf` conditions, read through the repository's real path or a link to it; each
    /// listed with scope and origin by git and by the loader, or refused by both alike.
    @Test(arguments: 0..<8)
    func generatedWorldsLoadAsGitLoadsThem(_ chunk: Int) throws {
        let valid = ConfigParserTests.fragments.filter {
            ConfigParser.parse(Array("[s]\n\($0)".utf8)).errorLine == nil && $0.hasSuffix("\n")
        }
        var refused = 0
        var entries = 0
        var included = 0
        for seed in (chunk * 15)..<((chunk + 1) * 15) {
            let world = try World()
            let root = world.root
            let gitDirectory = try world.repository("work/repo")
            try FileManager.default.createSymbolicLink(atPath: "\(root)/link", withDestinationPath: "\(root)/work")
            var generator = SeededGenerator(seed: UInt64(seed) &* 2_654_435_761 &+ 5)
            let files = [
                "system", "home/.gitconfig", "home/.config/git/config", "work/repo/.git/config", "inc/a", "inc/b",
                "inc/sub/c", "home/inc/d",
            ]
            let includes = [
                "\(root)/inc/a", "~/inc/d", "../inc/b", "sub/c", "a", "b", "../a", "missing", "\(root)/inc/sub/c",
                "~/.gitconfig",
            ]
            let conditions = [
                "gitdir:\(root)/work/", "gitdir:\(root)/link/", "gitdir/i:\(root)/WORK/**", "gitdir:repo/",
                "gitdir:~/../work/", "onbranch:main", "onbranch:other", "gitdir:./", "gitdir:\(root)/work/repo/.git",
            ]
            for file in files {
                var text = file == "work/repo/.git/config" ? "[core]\n\trepositoryformatversion = 0\n" : ""
                for _ in 0..<Int.random(in: 0...10, using: &generator) {
                    switch Int.random(in: 0..<40, using: &generator) {
                    case 0:
                        text += ConfigParserTests.fragments.randomElement(using: &generator)!
                    case 1...6:
                        text += "[include]\n\tpath = \(includes.randomElement(using: &generator)!)\n"
                    case 7...10:
                        let condition = conditions.randomElement(using: &generator)!
                        text += "[includeIf \"\(condition)\"]\n\tpath = \(includes.randomElement(using: &generator)!)\n"
                    default:
                        text += "[\(["core", "Sec", "remote \"origin\"", "a.B"].randomElement(using: &generator)!)]\n"
                        text += valid.randomElement(using: &generator)!
                    }
                }
                try world.write(file, text)
            }
            let environment = configEnvironment(home: world.home, system: "\(root)/system")
            for directory in [gitDirectory, "\(root)/link/repo/.git"] {
                try Self.compare(world, gitDirectory: directory, environment: environment, commandLine: ["cli.x=1"])
            }
            if let loaded = try? GitConfiguration.load(gitDirectory: gitDirectory, environment: environment) {
                entries += loaded.entries.count
                included += loaded.entries.filter { $0.origin?.path?.contains("/inc/") == true }.count
            } else {
                refused += 1
            }
        }

        // Most worlds read (with entries from included files); some are refused.
        #expect(refused < 10 && entries > 100 && included > 10)
    }

    /// `$PWD` names the current directory when it is the same directory (a path through a link
    /// stays as typed), as git's `strbuf_add_absolute_path` does.
    @Test func absolutePathsUsePWDWhenItIsTheCurrentDirectory() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-config-pwd")
        let current = FileManager.default.currentDirectoryPath
        try FileManager.default.createSymbolicLink(atPath: directory.appending("here"), withDestinationPath: current)
        #expect(ConfigPaths.absolute("x/.git", pwd: directory.appending("here")) == directory.appending("here/x/.git"))
        #expect(ConfigPaths.absolute("x/.git", pwd: directory.path) == "\(current)/x/.git")
        #expect(ConfigPaths.absolute("x/.git", pwd: nil) == "\(current)/x/.git")
        #expect(ConfigPaths.absolute("/abs/../x", pwd: nil) == "/abs/../x")
        for (path, normalized) in [
            ("/etc/gitconfig", "/etc/gitconfig"), ("/a//b/./c/../d", "/a/b/d"), ("a/b/..", "a/"), ("/a/..", "/"),
            ("/..", "/.."), ("a/../..", "a/../.."), ("./a", "a"), ("a/.", "a/"), ("//a", "/a"), ("a//", "a/"),
        ] {
            #expect(ConfigPaths.normalized(path) == normalized, "\(path)")
        }
    }
}
