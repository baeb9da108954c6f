import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Pushes from SHA-256 repositories (`git init --object-format=sha256`) to SHA-256 remotes over
/// file://, `git daemon --enable=receive-pack`, sshd and `git http-backend`, compared with
/// `git push` on identical copies of the server: output and exit status byte for byte, the
/// server's refs, `git fsck --full --strict` there. Pushes between formats fail as git's do,
/// before anything is sent.
@Suite("SHA-256 push", .serialized)
struct PushSHA256Tests {
    /// A SHA-256 scenario (the server holds `main~4`, `old` at `main~6`, `gone`) with a branch
    /// `side` that leaves `main` at `main~5`, served by `git daemon`, `git http-backend` and sshd.
    static let served = Result { () throws -> (PushScenario, GitDaemon, HTTPServer, SSHServer) in
        let scenario = try PushScenario(objectFormat: "sha256")
        try addSide(scenario)
        try scenario.hook("post-receive", "echo \"post-receive: $(cat | wc -l) refs\"")
        let daemon = try GitDaemon(basePath: scenario.root, extraArguments: ["--enable=receive-pack"])
        let http = try HTTPServer(root: scenario.root)
        let ssh = try SSHServer()
        return (scenario, daemon, http, ssh)
    }

    static func addSide(_ scenario: PushScenario) throws {
        try git(["checkout", "--quiet", "-b", "side", "main~5"], in: scenario.local)
        try scenario.commit(20)
        try git(["checkout", "--quiet", "main"], in: scenario.local)
    }

    enum Transport: String, CaseIterable, Sendable {
        case file, git, ssh, http
    }

    /// The URL of `served.git` under `root` over `transport`, and the environment it needs.
    static func location(
        _ transport: Transport, root: String, daemon: GitDaemon, http: HTTPServer, ssh: SSHServer
    ) -> (url: String, environment: [String: String]) {
        switch transport {
        case .file: return ("file://\(root)/served.git", [:])
        case .git: return (daemon.url("served.git"), [:])
        case .ssh: return (ssh.url("\(root)/served.git"), ssh.environment)
        case .http: return (http.url("/git/served.git"), [:])
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var transport: Transport
        var push: PushCase
        var testDescription: String { "\(transport) \(push.testDescription)" }
    }

    /// A fast-forward with a thin pack (the server has most of the history), new branches and
    /// tags, a forced update, deletions, a rejected non-fast-forward, an atomic push failing.
    static let pushes: [PushCase] = [
        PushCase([], ["main", "feature", "v1", "light"]),
        PushCase([], ["feature:refs/heads/new"]),
        PushCase([], ["+side:main"]),
        PushCase([], ["side:main"]),
        PushCase(["--delete"], ["old", "gone"]),
        PushCase(["--porcelain"], ["main", "side:old", ":gone"]),
        PushCase(["--atomic"], ["main", "feature", "side:old"]),
        PushCase(["--force"], ["side:main", "main:refs/notes/x"]),
    ]

    static let cases: [Case] = Transport.allCases.flatMap { transport in
        pushes.map { Case(transport: transport, push: $0) }
    }

    @Test("pushes from a SHA-256 repository print, exit and update the server as git's", arguments: cases)
    func push(_ test: Case) throws {
        let (scenario, daemon, http, ssh) = try Self.served.get()
        let (url, environment) = Self.location(
            test.transport, root: scenario.root, daemon: daemon, http: http, ssh: ssh)
        try scenario.expectSameAsGit(
            test.push.options + [url] + test.push.refspecs, environment: environment)
    }

    /// git's `parse_refspec` refuses a negative refspec that is an object id of the repository's
    /// format (here 64 hex digits, of either case) and takes 40 for a ref name; on the command
    /// line and in `remote.<name>.push` (read for every remote before any push).
    static let negativeObjectIDs: [PushCase] = [
        PushCase([], ["^" + String(repeating: "a", count: 64), "main"]),
        PushCase([], ["^" + String(repeating: "A", count: 64), "main"]),
        PushCase([], ["^" + String(repeating: "a", count: 40), "main"]),
        PushCase([], ["refs/heads/*", "^" + String(repeating: "b", count: 40)]),
    ]

    @Test("a negative refspec of the repository's object id width is refused as git's", arguments: negativeObjectIDs)
    func negativeObjectID(_ push: PushCase) throws {
        let (scenario, daemon, _, _) = try Self.served.get()
        try scenario.expectSameAsGit(push.options + [daemon.url("served.git")] + push.refspecs)
    }

    @Test("remote.<name>.push with a negative object id is refused as git's", arguments: [64, 40])
    func configuredNegativeObjectID(_ width: Int) throws {
        let (scenario, _, _, _) = try Self.served.get()
        let key = "remote.elsewhere.push"
        defer { _ = try? git(["config", "--unset-all", key], in: scenario.local, check: false) }
        try git(["config", key, "^" + String(repeating: "c", count: width)], in: scenario.local)
        try scenario.expectSameAsGit(["file://\(scenario.served)", "main"])
    }

    /// git's own output when a push meets a server of the other format: the receiving end's
    /// format checked before anything is sent; an empty SHA-1 repository's `capabilities^{}`
    /// line refused by a SHA-256 git. Over file:// and ssh, receive-pack's own "the remote end
    /// hung up unexpectedly" may or may not follow git's message (it races with git's exit), so
    /// that line is left out of the comparison there.
    @Test("a push between formats fails as git's, before anything is sent", arguments: Transport.allCases)
    func mismatch(_ transport: Transport) throws {
        let (sha256, daemon, http, ssh) = try Self.served.get()
        let sha1 = try PushScenario()
        let emptySHA1 = sha1.directory.appending("empty.git")
        try git(["init", "--quiet", "--bare", emptySHA1])
        try git(["config", "http.receivepack", "true"], in: emptySHA1)
        let emptySHA256 = sha256.directory.appending("empty.git")
        if !FileManager.default.fileExists(atPath: emptySHA256) {
            try git(["init", "--quiet", "--bare", "--object-format=sha256", emptySHA256])
            try git(["config", "http.receivepack", "true"], in: emptySHA256)
        }
        // The SHA-256 scenario's servers serve its root: its served.git is made from each
        // template in turn, SHA-1 ones included.
        let (url, environment) = Self.location(
            transport, root: sha256.root, daemon: daemon, http: http, ssh: ssh)
        let original = sha256.template
        defer { sha256.template = original }
        for (template, pusher) in [
            (original, sha1.local), (emptySHA256, sha1.local), (sha1.template, sha256.local),
            (emptySHA1, sha256.local),
        ] {
            sha256.template = template
            try expectSameFailure(
                sha256, ["push", url, "main", "feature"], from: pusher, environment: environment,
                racingLine: transport == .file || transport == .ssh)
        }
    }

    /// Pushes with git, then with gitwire, from `pusher` to a fresh copy of the scenario's
    /// server: the same output and exit status (without the server's racing line when asked),
    /// the server untouched.
    func expectSameFailure(
        _ scenario: PushScenario, _ arguments: [String], from pusher: String, environment: [String: String],
        racingLine: Bool
    ) throws {
        try scenario.reset()
        let before = try scenario.serverState()
        let fromGit = try git(arguments, in: pusher, environment: environment, check: false)
        #expect(try scenario.serverState() == before)
        try scenario.reset()
        let fromGitwire = try gitwire(
            arguments, in: pusher, environment: reproducibleGitEnvironment.merging(environment) { $1 })
        #expect(try scenario.serverState() == before)
        func kept(_ text: String) -> String {
            guard racingLine else { return text }
            return text.split(separator: "\n", omittingEmptySubsequences: false).filter {
                $0 != "fatal: the remote end hung up unexpectedly"
            }.joined(separator: "\n")
        }
        #expect(fromGit.status != 0, "\(arguments) \(scenario.template)")
        #expect(kept(fromGitwire.errorText) == kept(fromGit.errorText), "\(arguments) \(scenario.template)")
        #expect(fromGitwire.text == fromGit.text, "\(arguments) \(scenario.template)")
        #expect(fromGitwire.status == fromGit.status, "\(arguments) \(scenario.template)")
    }

    @Test("the library: Remote.push from a SHA-256 repository, blocking and async")
    func library() async throws {
        let scenario = try PushScenario(objectFormat: "sha256")
        try Self.addSide(scenario)
        try scenario.reset()
        let remote = try Remote(scenario.served)
        let result = try remote.pushBlocking(
            from: "\(scenario.local)/.git", updates: [try PushRefspec("main"), try PushRefspec("side:old")])
        #expect(result.refs.map(\.status) == [.ok, .ok])
        #expect(result.refs.allSatisfy { $0.new?.format == .sha256 })
        let again = try await remote.push(
            from: "\(scenario.local)/.git", updates: [try PushRefspec("side:main"), try PushRefspec(":gone")])
        #expect(again.refs.map(\.destination) == ["refs/heads/gone", "refs/heads/main"])
        #expect(again.refs.map(\.status) == [.ok, .rejected(.nonFastForward)])
        for (name, local) in [("main", "main"), ("old", "side")] {
            #expect(
                try gitText(["rev-parse", "refs/heads/\(name)"], in: scenario.served)
                    == gitText(["rev-parse", local], in: scenario.local))
        }
        #expect(
            try git(["rev-parse", "--verify", "-q", "refs/heads/gone"], in: scenario.served, check: false).status != 0)
        #expect(try scenario.serverState().fsck == 0)
    }

    /// (`git index-pack --stdin` takes the repository's format; git 2.39 refuses
    /// `--object-format` with `--stdin`, so the pack is checked inside the SHA-256 repository.)
    @Test("pack-objects --stdout in a SHA-256 repository: git index-pack --strict accepts it there")
    func packObjects() throws {
        let scenario = try PushScenario(objectFormat: "sha256")
        let gitDirectory = "\(scenario.local)/.git"
        let old = try gitText(["rev-parse", "main~6"], in: scenario.local)
        // Whole history; a range; a thin range whose deltas may name the excluded objects.
        let packs = [(["main", "v1"], false), (["main", "^\(old)"], false), (["main", "^\(old)"], true)]
        for (number, (revisions, thin)) in packs.enumerated() {
            let input = Array((revisions.joined(separator: "\n") + "\n").utf8)
            let flags = ["--stdout", "--revs", "--delta-base-offset"] + (thin ? ["--thin"] : [])
            let written = try run(
                ["sh", "-c", "'\(gitwireExecutable)' pack-objects \(flags.joined(separator: " "))"],
                in: scenario.local, environment: ["GIT_DIR": gitDirectory], input: input)
            let pack = written.standardOutput
            // The trailer is the SHA-256 of what comes before it.
            #expect(pack.count > 12 + 32)
            #expect(SHA256.hash(pack.dropLast(32)).bytes == Array(pack.suffix(32)))
            // Stored objects and deltas reused (commits 1 to 9 are packed), deltas in the pack.
            let counts = written.errorText.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            try #require(counts.count >= 4, "\(written.errorText)")
            #expect(counts[1] > 0 && counts[2] > 0, "\(written.errorText)")
            if revisions == ["main", "v1"] { #expect(counts[3] > 0, "no stored delta reused: \(written.errorText)") }
            let indexed = scenario.directory.appending("check-\(number).pack")
            let check = try git(
                ["index-pack", "--strict", "--stdin"] + (thin ? ["--fix-thin"] : [])
                    + [indexed],
                in: gitDirectory, input: pack, check: false)
            #expect(check.status == 0, "\(check.errorText)")
            let expected = Set(
                try gitText(["rev-list", "--objects"] + revisions, in: scenario.local).split(separator: "\n").map {
                    String($0.prefix(64))
                })
            let listing = try git(["verify-pack", "-v", indexed], in: gitDirectory).text
            let ids = Set(
                listing.split(separator: "\n").compactMap { line -> String? in
                    let id = String(line.prefix(64))
                    return id.count == 64 && id.allSatisfy(\.isHexDigit) ? id : nil
                })
            if thin { #expect(ids.isSuperset(of: expected)) } else { #expect(ids == expected) }
            #expect(listing.contains("chain length = 1"), "no deltas in \(revisions)")
        }
    }
}
