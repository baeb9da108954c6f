import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `gitwire fetch` against `git fetch` on real repositories with real configuration: ordinary
/// clones (`git clone`, with an unpushed commit), linked work trees, bare and mirror clones,
/// over `git daemon` and local paths, protocol v0 and v2. Each case runs both commands in two
/// copies of the same repository and compares everything git leaves: exit status, standard
/// error, `FETCH_HEAD`, every ref, every reflog, `HEAD`, the index and the work tree.
@Suite("fetch like git")
struct FetchLikeGitTests {
    /// A source repository served by `git daemon`, and a clone of it made before the source
    /// moved on, with a local commit of its own.
    final class Scenario: @unchecked Sendable {
        let directory: TemporaryDirectory
        let daemon: GitDaemon
        var source: String { directory.appending("served/source") }
        var template: String { directory.appending("template") }
        var url: String { daemon.url("source") }

        init() throws {
            directory = try TemporaryDirectory(prefix: "gitwire-fetchlike")
            let source = directory.appending("served/source")
            try git(["init", "-q", "-b", "main", source])
            try "one\n".write(toFile: "\(source)/file", atomically: true, encoding: .utf8)
            try git(["add", "file"], in: source)
            try git(["commit", "-q", "-m", "c1"], in: source)
            for index in 2...4 { try git(["commit", "-q", "--allow-empty", "-m", "c\(index)"], in: source) }
            try git(["branch", "nio-1.2", "HEAD~1"], in: source)
            try git(["branch", "doomed", "HEAD~2"], in: source)
            try git(["branch", "rewritten", "HEAD~1"], in: source)
            try git(["tag", "-a", "v1", "-m", "v1", "HEAD~2"], in: source)
            try git(["tag", "light", "HEAD~3"], in: source)
            try git(["tag", "moving", "HEAD~3"], in: source)
            daemon = try GitDaemon(basePath: directory.appending("served"))
            try git(["clone", "-q", url, directory.appending("template")])
            try git(["commit", "-q", "--allow-empty", "-m", "unpushed"], in: directory.appending("template"))
            try git(["branch", "local-only"], in: directory.appending("template"))
            // The source moves on: a fast-forward, a new branch, a deleted one, a forced one,
            // new tags into the new history (annotated and not), a moved tag, a tag elsewhere.
            try git(["commit", "-q", "--allow-empty", "-m", "c5"], in: source)
            try git(["commit", "-q", "--allow-empty", "-m", "c6"], in: source)
            try git(["branch", "fresh", "HEAD~1"], in: source)
            try git(["branch", "-D", "-q", "doomed"], in: source)
            try git(["checkout", "-q", "-b", "tmp", "main~4"], in: source)
            try git(["commit", "-q", "--allow-empty", "-m", "diverged"], in: source)
            try git(["branch", "-f", "rewritten", "HEAD"], in: source)
            try git(["tag", "-a", "on-diverged", "-m", "x"], in: source)
            try git(["checkout", "-q", "main"], in: source)
            try git(["branch", "-D", "-q", "tmp"], in: source)
            try git(["tag", "-a", "v2", "-m", "v2", "main~1"], in: source)
            try git(["tag", "light2", "main"], in: source)
            try git(["tag", "-f", "moving", "main"], in: source)
        }

        /// Two copies of `from` (the template by default): git's and ours.
        func pair(_ name: String, from: String? = nil) throws -> (theirs: String, ours: String) {
            let theirs = directory.appending("git/\(name)")
            let ours = directory.appending("ours/\(name)")
            for path in [theirs, ours] {
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try run(["cp", "-a", from ?? template, path])
            }
            return (theirs, ours)
        }

        /// Everything a fetch can change in the repository at `path`, with `prefix` written as
        /// `<dir>`.
        func state(_ path: String, gitDirectory: String? = nil) throws -> [String: String] {
            let gitDirectory =
                gitDirectory ?? (FileManager.default.fileExists(atPath: "\(path)/.git") ? "\(path)/.git" : path)
            var state: [String: String] = [:]
            state["refs"] = try gitText(["for-each-ref", "--format=%(objectname) %(refname) %(symref)"], in: path)
            state["FETCH_HEAD"] =
                (try? String(contentsOfFile: "\(gitDirectory)/FETCH_HEAD", encoding: .utf8)) ?? "(none)"
            state["HEAD"] = try String(contentsOfFile: "\(gitDirectory)/HEAD", encoding: .utf8)
            let logs = "\(gitDirectory)/logs"
            if let enumerator = FileManager.default.enumerator(atPath: logs) {
                for case let file as String in enumerator {
                    var isDirectory: ObjCBool = false
                    if FileManager.default.fileExists(atPath: "\(logs)/\(file)", isDirectory: &isDirectory),
                        !isDirectory.boolValue
                    {
                        state["logs/\(file)"] = try String(contentsOfFile: "\(logs)/\(file)", encoding: .utf8)
                    }
                }
            }
            if gitDirectory != path {
                state["status"] = try gitText(["status", "--porcelain=v1", "-b"], in: path)
                state["index"] = try gitText(["ls-files", "-s"], in: path)
            }
            return state
        }
    }

    static let scenario = Result { try Scenario() }

    /// Runs `git fetch <arguments>` and `gitwire fetch <arguments>` (with `ours` in place of the
    /// arguments for gitwire when given) in the two copies of `name`, from `subdirectory`, and
    /// expects the same outcome.
    @discardableResult
    func expectSame(
        _ arguments: [String], ours: [String]? = nil, version: Int, name: String, from: String? = nil,
        subdirectory: String = "", environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ProcessOutput {
        let scenario = try Self.scenario.get()
        let (theirPath, ourPath) = try scenario.pair(name, from: from)
        let theirOutput = try git(
            ["-c", "protocol.version=\(version)", "fetch"] + arguments, in: theirPath + subdirectory,
            environment: environment, check: false)
        let ourOutput = try gitwire(
            ["fetch", "--protocol-version=\(version)"] + (ours ?? arguments), in: ourPath + subdirectory,
            environment: reproducibleGitEnvironment.merging(environment) { $1 })
        let context = "fetch \((ours ?? arguments).joined(separator: " ")) (v\(version), \(name))"
        #expect(
            ourOutput.status == theirOutput.status, "\(context): \(ourOutput.errorText)", sourceLocation: sourceLocation
        )
        let theirText = theirOutput.errorText.replacingOccurrences(
            of: scenario.directory.appending("git/"), with: "<dir>/")
        let ourText = ourOutput.errorText.replacingOccurrences(
            of: scenario.directory.appending("ours/"), with: "<dir>/")
        #expect(ourText == theirText, "\(context)", sourceLocation: sourceLocation)
        #expect(ourOutput.text == theirOutput.text, "\(context)", sourceLocation: sourceLocation)
        let theirState = try scenario.state(theirPath)
        let ourState = try scenario.state(ourPath)
        for key in Set(theirState.keys).union(ourState.keys).sorted() {
            #expect(ourState[key] == theirState[key], "\(context): \(key)", sourceLocation: sourceLocation)
        }
        if ourOutput.status <= 1 {
            try git(["fsck", "--connectivity-only", "--no-dangling"], in: ourPath)
        }
        return ourOutput
    }

    // MARK: An ordinary clone with an unpushed commit

    @Test(arguments: [0, 2])
    func aCloneFetchesAsGitDoes(version: Int) throws {
        let url = try Self.scenario.get().url
        for (index, arguments) in [
            [], ["origin"], ["-v"], ["-q"], ["--prune"], ["-p", "origin"], ["--dry-run"],
            ["--dry-run", "-v", "--prune"],
            ["--no-tags"], ["--tags"], ["-t", "--prune", "--prune-tags"], ["origin", "main"],
            ["origin", "main", "nio-1.2"],
            ["origin", "+rewritten:refs/remotes/origin/rewritten"],
            ["origin", "rewritten:refs/remotes/origin/rewritten"],
            ["origin", "nio-1.2:nio-99"], ["origin", "tags/v2:refs/tags/v2-copy"], ["origin", "tag", "v1"],
            ["origin", ":refs/heads/from-head"], ["origin", "HEAD"], ["origin", "@:refs/heads/at-sign"],
            ["origin", "refs/heads/*:refs/heads/mirror/*", "^refs/heads/fresh"],
            ["-f", "origin", "rewritten:rewritten"],
            ["origin", "refs/heads/nomatch:refs/heads/x"], ["origin", "bad refspec::"], ["origin", "main:main"],
            ["origin", "+refs/heads/*:refs/heads/*"], ["-u", "origin", "main:main"], ["--append", "origin", "fresh"],
            ["--no-write-fetch-head"], ["--atomic", "--prune"], [url], [url, "main"],
            [url, "+refs/heads/*:refs/heads/*"],
            [url, "refs/heads/*:refs/remotes/other/*"], ["origin", "refs/heads/main:refs/heads/main/sub"],
            ["--refmap=", "origin", "main"], ["--refmap=refs/heads/*:refs/remotes/elsewhere/*", "origin", "main"],
            ["nowhere-remote"],
        ].enumerated() {
            try expectSame(arguments, version: version, name: "clone-\(version)-\(index)")
        }
    }

    /// The scenario of issue 20: a URL and `.git` (or `.`) as the second argument fetch only
    /// `HEAD` into `FETCH_HEAD`, as `git fetch <url>` does; they never move the checked-out
    /// branch.
    @Test(arguments: [0, 2])
    func aURLAndTheGitDirectoryAsArguments(version: Int) throws {
        let scenario = try Self.scenario.get()
        for (index, directory) in [".git", ".", "./.git"].enumerated() {
            try expectSame(
                [scenario.url], ours: [scenario.url, directory], version: version, name: "dir-\(version)-\(index)")
            try expectSame(
                [scenario.url, "--prune", "+refs/heads/*:refs/remotes/origin/*"],
                ours: [scenario.url, directory, "--prune", "+refs/heads/*:refs/remotes/origin/*"], version: version,
                name: "dirprune-\(version)-\(index)")
        }
        // From a subdirectory, and with a path as the URL.
        try expectSame(["origin"], version: version, name: "sub-\(version)", subdirectory: "/.git/refs")
        try expectSame([scenario.source, "main"], version: version, name: "path-\(version)")
        try expectSame(["../served/source/", "main"], version: version, name: "relative-\(version)")
    }

    /// The other half of issue 20's scenario: `--prune` deletes only what the refspecs cover,
    /// never a local branch (the clone's `local-only`, which its remote never had), whether
    /// the remote is named, configured or a URL with the repository after it.
    @Test(arguments: [0, 2])
    func pruneNeverDeletesLocalBranches(version: Int) throws {
        let scenario = try Self.scenario.get()
        let cases: [(git: [String], ours: [String])] = [
            (["--prune"], ["--prune"]), (["-p", "origin"], ["-p", "origin"]),
            ([scenario.url, "--prune"], [scenario.url, ".git", "--prune"]),
            ([scenario.url, "--prune"], [scenario.url, ".", "--prune"]),
            (
                ["--prune", "origin", "refs/heads/*:refs/remotes/origin/*"],
                ["--prune", "origin", "refs/heads/*:refs/remotes/origin/*"]
            ),
        ]
        for (index, (theirs, ours)) in cases.enumerated() {
            let name = "prune-\(version)-\(index)"
            try expectSame(theirs, ours: ours, version: version, name: name)
            let ourCopy = scenario.directory.appending("ours/\(name)")
            #expect(try gitText(["rev-parse", "--verify", "-q", "refs/heads/local-only"], in: ourCopy).count == 40)
            #expect(
                try gitText(["rev-parse", "--verify", "-q", "refs/heads/main"], in: ourCopy)
                    == gitText(["rev-parse", "--verify", "-q", "refs/heads/main"], in: scenario.template))
        }
    }

    /// A mirror made by `gitwire clone --mirror` is later fetched with the `+refs/*:refs/*` and
    /// `mirror = true` it was configured with: notes and other refs follow the source, and
    /// what the source deleted goes with `--prune`, as in a mirror git made and fetched.
    @Test(arguments: [0, 2])
    func aMirrorMadeByGitwireStaysAMirror(version: Int) throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-mirror")
        let source = directory.appending("served/source.git")
        let work = directory.appending("work")
        try git(["init", "-q", "--bare", "-b", "main", source])
        try git(["clone", "-q", source, work])
        try git(["commit", "-q", "--allow-empty", "-m", "one"], in: work)
        try git(["branch", "doomed"], in: work)
        try git(["notes", "add", "-m", "a note"], in: work)
        try git(["push", "-q", "origin", "main", "doomed", "refs/notes/commits"], in: work)
        let daemon = try GitDaemon(basePath: directory.appending("served"))
        let url = daemon.url("source.git")
        try git(
            ["-c", "protocol.version=\(version)", "clone", "-q", "--mirror", url, "theirs.git"], in: directory.path)
        let cloned = try gitwire(
            ["clone", "-q", "--mirror", "--protocol-version=\(version)", url, "ours.git"], in: directory.path,
            environment: reproducibleGitEnvironment)
        #expect(cloned.status == 0, "\(cloned.errorText)")
        #expect(
            try gitText(["config", "--list", "--local"], in: directory.appending("ours.git"))
                == gitText(["config", "--list", "--local"], in: directory.appending("theirs.git")))
        // The source moves on in every namespace.
        try git(["commit", "-q", "--allow-empty", "-m", "two"], in: work)
        try git(["notes", "add", "-f", "-m", "another note"], in: work)
        try git(["update-ref", "refs/custom/thing", "HEAD"], in: work)
        try git(["push", "-q", "origin", "main", "refs/notes/commits", "refs/custom/thing", ":doomed"], in: work)
        for arguments in [[], ["--prune"]] {
            let theirs = try git(
                ["-c", "protocol.version=\(version)", "fetch"] + arguments, in: directory.appending("theirs.git"))
            let ours = try gitwire(
                ["fetch", "--protocol-version=\(version)"] + arguments, in: directory.appending("ours.git"),
                environment: reproducibleGitEnvironment)
            #expect(ours.status == theirs.status, "\(ours.errorText)")
            #expect(ours.errorText == theirs.errorText)
            #expect(
                try gitText(["for-each-ref"], in: directory.appending("ours.git"))
                    == gitText(["for-each-ref"], in: directory.appending("theirs.git")))
        }
        let refs = try gitText(["for-each-ref", "--format=%(refname)"], in: directory.appending("ours.git"))
        #expect(refs.contains("refs/custom/thing"))
        #expect(!refs.contains("refs/heads/doomed"))
        #expect(
            try gitText(["rev-parse", "refs/notes/commits"], in: directory.appending("ours.git"))
                == gitText(["rev-parse", "refs/notes/commits"], in: work))
    }

    /// Configuration read as git reads it: `fetch.prune`, `remote.<name>.prune`, `tagOpt`,
    /// `pruneTags`, several fetch refspecs with a negative one, a branch merging from another
    /// remote, `core.logAllRefUpdates` and `core.abbrev`.
    @Test(arguments: [0, 2])
    func configurationAsGitReadsIt(version: Int) throws {
        let scenario = try Self.scenario.get()
        let configured = scenario.directory.appending("configured-\(version)")
        try run(["cp", "-a", scenario.template, configured])
        try git(["config", "fetch.prune", "true"], in: configured)
        try git(["config", "remote.origin.tagOpt", "--no-tags"], in: configured)
        try git(["config", "--add", "remote.origin.fetch", "^refs/heads/nio-1.2"], in: configured)
        try git(["config", "--add", "remote.origin.fetch", "+refs/tags/v*:refs/tags/copied/v*"], in: configured)
        try git(["remote", "add", "second", scenario.url], in: configured)
        try git(["config", "core.abbrev", "12"], in: configured)
        try expectSame([], version: version, name: "configured-a-\(version)", from: configured)
        try expectSame(["second"], version: version, name: "configured-b-\(version)", from: configured)
        try expectSame(["--tags", "second"], version: version, name: "configured-c-\(version)", from: configured)
        try git(["config", "branch.main.remote", "second"], in: configured)
        try git(["config", "remote.second.tagOpt", "--tags"], in: configured)
        try git(["config", "remote.second.pruneTags", "true"], in: configured)
        try git(["config", "core.logAllRefUpdates", "always"], in: configured)
        try expectSame([], version: version, name: "configured-d-\(version)", from: configured)
        try expectSame(["second"], version: version, name: "configured-e-\(version)", from: configured)
        try git(["config", "core.logAllRefUpdates", "false"], in: configured)
        try git(["config", "core.abbrev", "no"], in: configured)
        try expectSame(["origin"], version: version, name: "configured-f-\(version)", from: configured)
        try git(["config", "--unset-all", "remote.origin.fetch"], in: configured)
        try git(["config", "branch.main.remote", "origin"], in: configured)
        try expectSame([], version: version, name: "configured-g-\(version)", from: configured)
        try git(["config", "--remove-section", "remote.origin"], in: configured)
        try git(["config", "--remove-section", "remote.second"], in: configured)
        try git(["config", "--remove-section", "branch.main"], in: configured)
        try expectSame([], version: version, name: "configured-h-\(version)", from: configured)
    }

    /// `--all`: every configured remote in turn but those with `skipFetchAll` ("Fetching <name>"
    /// on standard output), `FETCH_HEAD` holding them all, reflogs naming git's child command
    /// line, a remote that fails reported after its own error with the others still fetched.
    @Test(arguments: [0, 2])
    func allRemotes(version: Int) throws {
        let scenario = try Self.scenario.get()
        let configured = scenario.directory.appending("all-\(version)")
        try run(["cp", "-a", scenario.template, configured])
        try git(["remote", "add", "second", scenario.url], in: configured)
        try git(["remote", "add", "skipped", scenario.url], in: configured)
        try git(["config", "remote.skipped.skipFetchAll", "true"], in: configured)
        for (index, arguments) in [
            ["--all"], ["--all", "-q"], ["--all", "--prune", "--tags", "-v"], ["--all", "--dry-run"],
            ["--all", "origin"], ["--all", "origin", "main"], ["--all", "--no-write-fetch-head", "--force"],
        ].enumerated() {
            try expectSame(arguments, version: version, name: "all-\(version)-\(index)", from: configured)
        }
        try git(["remote", "add", "broken", scenario.daemon.url("missing")], in: configured)
        try expectSame(["--all"], version: version, name: "all-\(version)-broken", from: configured)
    }

    /// `fetch.output=compact`: the repeated part of each local name shown as `*`, as git shows it.
    @Test(arguments: [0, 2])
    func compactOutput(version: Int) throws {
        let scenario = try Self.scenario.get()
        let configured = scenario.directory.appending("compact-\(version)")
        try run(["cp", "-a", scenario.template, configured])
        try git(["config", "fetch.output", "Compact"], in: configured)
        try git(
            ["config", "--add", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/copies/*"], in: configured)
        for (index, arguments) in [
            [], ["--prune", "-v"], ["--tags"], [scenario.url], [scenario.url, "main", "nio-1.2:refs/heads/nio-1.2"],
        ].enumerated() {
            try expectSame(arguments, version: version, name: "compact-\(version)-\(index)", from: configured)
        }
    }

    /// `fetch.output` other than `full` or `compact` (any case): git dies before a ref moves,
    /// FETCH_HEAD emptied; `FULL` is the default format.
    @Test(arguments: [0, 2])
    func invalidOutputSetting(version: Int) throws {
        let scenario = try Self.scenario.get()
        for (index, value) in ["bogus", "FULL"].enumerated() {
            let configured = scenario.directory.appending("output-\(version)-\(index)")
            try run(["cp", "-a", scenario.template, configured])
            try git(["config", "fetch.output", value], in: configured)
            try expectSame([], version: version, name: "output-\(version)-\(index)", from: configured)
        }
    }

    /// A remote whose URL is a relative path (`../relative-<version>.git`), fetched from a subdirectory:
    /// git fetches from the top of the work tree, so the path is found from there, whether
    /// configured or given on the command line.
    @Test(arguments: [0, 2])
    func relativeRemoteFromASubdirectory(version: Int) throws {
        let scenario = try Self.scenario.get()
        let configured = scenario.directory.appending("relative-\(version)")
        try run(["cp", "-a", scenario.template, configured])
        try FileManager.default.createDirectory(
            atPath: "\(configured)/sub/deeper", withIntermediateDirectories: true)
        try git(["remote", "add", "near", "../relative-\(version).git"], in: configured)
        for side in ["git", "ours"]
        where !FileManager.default.fileExists(
            atPath: scenario.directory.appending("\(side)/relative-\(version).git"))
        {
            try git([
                "clone", "-q", "--bare", scenario.url, scenario.directory.appending("\(side)/relative-\(version).git"),
            ])
        }
        for (index, arguments) in [["near"], ["../relative-\(version).git", "main"], ["near", "--prune", "-v"]]
            .enumerated()
        {
            try expectSame(
                arguments, version: version, name: "relative-\(version)-\(index)", from: configured,
                subdirectory: "/sub/deeper")
        }
    }

    /// `--multiple` (remotes and groups), a group (`remotes.<group>`) named alone, and `--all`
    /// with a single remote (fetched as if named), as git's `cmd_fetch` decides; git's errors
    /// for an unknown name and for a group with refspecs.
    @Test(arguments: [0, 2])
    func multipleRemotesAndGroups(version: Int) throws {
        let scenario = try Self.scenario.get()
        let configured = scenario.directory.appending("multiple-\(version)")
        try run(["cp", "-a", scenario.template, configured])
        try git(["remote", "add", "second", scenario.url], in: configured)
        try git(["config", "remotes.both", "origin\tsecond "], in: configured)
        for (index, arguments) in [
            ["--multiple", "origin", "second"], ["-m", "second"], ["--multiple", "origin", "nosuch"], ["both"],
            ["both", "main"], ["--multiple", "both", "-q"],
        ].enumerated() {
            try expectSame(arguments, version: version, name: "multiple-\(version)-\(index)", from: configured)
        }
        try expectSame(["--all"], version: version, name: "multiple-\(version)-one")
    }

    /// A branch checked out in a linked work tree (or in the main one, fetched from a linked
    /// one) is refused with its work tree's path; a rebase in progress holds its branch too.
    @Test func checkedOutBranchesInEveryWorkTree() throws {
        let scenario = try Self.scenario.get()
        let base = scenario.directory.appending("worktrees")
        try run(["cp", "-a", scenario.template, base])
        try git(["branch", "fresh", "main"], in: base)
        try git(["worktree", "add", "-q", scenario.directory.appending("linked"), "fresh"], in: base)
        try expectSame(["origin", "fresh:fresh"], version: 2, name: "wt-a", from: base)
        try expectSame(["origin", "+refs/heads/*:refs/heads/*"], version: 2, name: "wt-b", from: base)
        let (theirs, ours) = try scenario.pair("wt-c", from: base)
        let theirFetch = try git(["fetch", "origin", "main:main"], in: "\(theirs)", check: false)
        let ourFetch = try gitwire(["fetch", "origin", "main:main"], in: "\(ours)")
        #expect(ourFetch.status == theirFetch.status)
        let ourText = ourFetch.errorText.replacingOccurrences(of: scenario.directory.appending("ours/"), with: "<dir>/")
        let theirText = theirFetch.errorText.replacingOccurrences(
            of: scenario.directory.appending("git/"), with: "<dir>/")
        #expect(ourText == theirText)
        // From inside the linked work tree: the main work tree's branch is refused.
        let linkedOurs = try gitwire(["fetch", "origin", "main:main"], in: scenario.directory.appending("linked"))
        let linkedGit = try git(
            ["fetch", "origin", "main:main"], in: scenario.directory.appending("linked"), check: false)
        #expect(linkedOurs.status == 128)
        #expect(linkedOurs.errorText == linkedGit.errorText)
        // A rebase in progress holds its branch.
        try FileManager.default.createDirectory(atPath: "\(base)/.git/rebase-merge", withIntermediateDirectories: true)
        try "refs/heads/local-only\n".write(
            toFile: "\(base)/.git/rebase-merge/head-name", atomically: true, encoding: .utf8)
        try expectSame(["origin", "fresh:local-only"], version: 2, name: "wt-d", from: base)
    }

    /// Bare and mirror clones: `git clone --bare` configures no refspec (a fetch takes `HEAD`
    /// only), `--mirror` configures `+refs/*:refs/*`.
    @Test(arguments: [0, 2])
    func bareAndMirrorClones(version: Int) throws {
        let scenario = try Self.scenario.get()
        let bare = scenario.directory.appending("bare-\(version).git")
        let mirror = scenario.directory.appending("mirror-\(version).git")
        let old = scenario.directory.appending("old-\(version)")
        // Clones of the source as it was: the template's remote-tracking refs, pushed to a copy.
        try git(["clone", "-q", "--bare", scenario.url, old])
        try git(["clone", "-q", "--bare", scenario.url, bare])
        try git(["clone", "-q", "--mirror", scenario.url, mirror])
        for repository in [bare, mirror] {
            try git(["update-ref", "refs/heads/main", "main~2"], in: repository)
            try git(["update-ref", "refs/heads/gone", "main"], in: repository)
        }
        try expectSame([], version: version, name: "bare-a-\(version)", from: bare)
        try expectSame(
            ["--prune", "origin", "+refs/heads/*:refs/heads/*"], version: version, name: "bare-b-\(version)", from: bare
        )
        try expectSame(
            [scenario.url, "+refs/heads/*:refs/heads/*"], version: version, name: "bare-c-\(version)", from: bare)
        try expectSame([], version: version, name: "mirror-a-\(version)", from: mirror)
        try expectSame(["--prune"], version: version, name: "mirror-b-\(version)", from: mirror)
    }

    /// A fetch with a branch-only refspec stores the tags that point into what it brought.
    @Test(arguments: [0, 2])
    func tagsFollowTheFetchedHistory(version: Int) throws {
        let scenario = try Self.scenario.get()
        let empty = scenario.directory.appending("empty-\(version).git")
        try git(["init", "-q", "--bare", empty])
        try expectSame(
            [scenario.url, "+refs/heads/*:refs/heads/*"], version: version, name: "tags-a-\(version)", from: empty)
        try expectSame(
            [scenario.url, "refs/heads/main:refs/heads/main"], version: version, name: "tags-b-\(version)", from: empty)
        try expectSame(
            ["--no-tags", scenario.url, "+refs/heads/*:refs/heads/*"], version: version, name: "tags-c-\(version)",
            from: empty)
        try expectSame([scenario.url, "main"], version: version, name: "tags-d-\(version)", from: empty)
    }

    /// Usage mistakes exit 129 with git's words; no repository, 128.
    @Test func mistakesAsGitReportsThem() throws {
        let scenario = try Self.scenario.get()
        let outside = scenario.directory.appending("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let environment = ["GIT_CEILING_DIRECTORIES": scenario.directory.path]
        let theirs = try git(["fetch", "origin"], in: outside, environment: environment, check: false)
        let ours = try gitwire(["fetch", "origin"], in: outside, environment: environment)
        #expect(ours.status == theirs.status)
        #expect(ours.errorText == theirs.errorText)
        let unknown = try gitwire(["fetch", "--no-such-option"], in: scenario.template)
        #expect(unknown.status == 129)
        #expect(unknown.errorText.hasPrefix("error: unknown option `no-such-option'\n"))
        let tag = try expectSame(["origin", "tag"], version: 2, name: "mistake-tag")
        #expect(tag.status == 128)
    }

    /// The library's `Remote.fetch(into:)` with a configured remote does what `git fetch
    /// origin` does, and refuses the checked-out branch as git does.
    @Test func theLibraryFollowsTheSameRules() throws {
        let scenario = try Self.scenario.get()
        let (theirs, ours) = try scenario.pair("library")
        try git(["fetch", "origin"], in: theirs)
        let location = try RepositoryLocation(at: ours, environment: reproducibleGitEnvironment)
        let configuration = try GitConfiguration.load(
            gitDirectory: location.gitDirectory, environment: reproducibleGitEnvironment)
        let origin = try #require(try ConfiguredRemote.named("origin", configuration: configuration))
        #expect(origin.url == scenario.url)
        // The remote by its name: Remote applies the configuration (URL, rewrites, transport).
        let remote = try Remote("origin", configuration: configuration)
        #expect(remote.url.text == scenario.url)
        var options = RepositoryFetchOptions(remote: origin, configuration: configuration)
        options.reflogAction = "fetch origin"
        let result = try remote.fetchBlocking(into: ours, options: options)
        #expect(result.changes.contains { $0.localName == "refs/remotes/origin/main" && $0.kind == .fastForward })
        #expect(try gitText(["for-each-ref"], in: ours) == gitText(["for-each-ref"], in: theirs))
        #expect(
            try String(contentsOfFile: "\(ours)/.git/FETCH_HEAD", encoding: .utf8)
                == String(contentsOfFile: "\(theirs)/.git/FETCH_HEAD", encoding: .utf8))
        // The library default (no remote, no refspecs) would update refs/heads/main: refused.
        let before = try gitText(["rev-parse", "main"], in: ours)
        #expect(throws: FetchRefMapError.self) { try remote.fetchBlocking(into: ours) }
        #expect(try gitText(["rev-parse", "main"], in: ours) == before)
        #expect(try gitText(["status", "--porcelain"], in: ours).isEmpty)
    }
}
