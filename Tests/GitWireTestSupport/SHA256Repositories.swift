import Foundation

/// SHA-256 repositories (`git init --object-format=sha256`) built once per test process with
/// `git` (fixed names and dates, so object ids are the same on every machine), served by one
/// shared ``GitDaemon``. Both go away at exit.
public final class SHA256Repositories: @unchecked Sendable {
    /// The directory holding the bare repositories (the daemon's base path).
    public let basePath: String
    /// The daemon serving ``basePath``.
    public let daemon: GitDaemon
    private let directory: TemporaryDirectory

    /// Every repository, by name (the path under ``basePath``): a few commits with branches,
    /// annotated tags, a tag of a tag and a lightweight tag; thousands of refs; an empty
    /// repository; an unborn `HEAD` beside other branches; a detached `HEAD`; a shallow
    /// repository (its advertisement has `shallow` lines).
    public static let names = ["small.git", "many.git", "empty.git", "unborn.git", "detached.git", "shallow.git"]

    /// The shared instance, built on first use.
    public static let shared: SHA256Repositories = {
        do {
            return try SHA256Repositories()
        } catch {
            fatalError("cannot build SHA-256 test repositories: \(error)")
        }
    }()

    private init() throws {
        directory = try TemporaryDirectory(prefix: "gitwire-sha256-repos")
        basePath = directory.path
        try Self.makeSmall(at: directory.appending("small.git"))
        try Self.makeMany(at: directory.appending("many.git"))
        try Self.initialize(directory.appending("empty.git"))
        try Self.initialize(directory.appending("unborn.git"))
        try git(
            ["fast-import", "--quiet"], in: directory.appending("unborn.git"),
            input: Array(TestRepositories.commits(3).utf8))
        try git(["symbolic-ref", "HEAD", "refs/heads/not-yet"], in: directory.appending("unborn.git"))
        try Self.initialize(directory.appending("detached.git"))
        try git(
            ["fast-import", "--quiet"], in: directory.appending("detached.git"),
            input: Array(TestRepositories.commits(5).utf8))
        try git(["update-ref", "--no-deref", "HEAD", "main~2"], in: directory.appending("detached.git"))
        try git([
            "clone", "--quiet", "--bare", "--depth=3", "--no-local", "file://\(directory.appending("small.git"))",
            directory.appending("shallow.git"),
        ])
        daemon = try GitDaemon(basePath: basePath)
    }

    /// The local path of repository `name`.
    public func path(_ name: String) -> String { "\(basePath)/\(name)" }

    /// `git init --bare --object-format=sha256` at `path`, one thread packing (so packs come out
    /// the same every time).
    public static func initialize(_ path: String) throws {
        try git(["init", "--quiet", "--bare", "--object-format=sha256", "--initial-branch=main", path])
        try git(["config", "pack.threads", "1"], in: path)
    }

    /// Commits on `main` and `feature`, a lightweight tag, annotated tags, a tag of a tag and a tag
    /// of a tree.
    public static func makeSmall(at path: String) throws {
        try initialize(path)
        var input = TestRepositories.commits(12)
        input += "reset refs/heads/feature\nfrom :9\n\n"
        input += "reset refs/tags/light\nfrom :5\n\n"
        let message = "version one\n"
        input += "tag v1\nfrom :25\ntagger C O Mitter <committer@example.com> 1700200000 +0000\n"
        input += "data \(message.utf8.count)\n\(message)\n"
        try git(["fast-import", "--quiet"], in: path, input: Array(input.utf8))
        try git(["tag", "-a", "-m", "a tag of a tag", "tag-of-tag", "v1"], in: path)
        let tree = try gitText(["rev-parse", "main^{tree}"], in: path)
        try git(["tag", "-a", "-m", "a tag of a tree", "tag-of-tree", tree], in: path)
    }

    /// Hundreds of commits and thousands of refs: branches, lightweight and annotated tags.
    public static func makeMany(at path: String) throws {
        try initialize(path)
        var input = TestRepositories.commits(200)
        for index in 0..<600 { input += "reset refs/heads/branch-\(index)\nfrom :\((index % 200) * 2 + 3)\n\n" }
        for index in 0..<900 { input += "reset refs/tags/light-\(index)\nfrom :\((index % 200) * 2 + 3)\n\n" }
        for index in 0..<500 {
            let message = "release \(index)\n"
            input += "tag v1.\(index)\nfrom :\((index % 200) * 2 + 3)\n"
            input += "tagger C O Mitter <committer@example.com> \(1_700_100_000 + index) +0000\n"
            input += "data \(message.utf8.count)\n\(message)\n"
        }
        try git(["fast-import", "--quiet"], in: path, input: Array(input.utf8))
        try git(["tag", "-a", "-m", "a tag of a tag", "tag-of-tag", "v1.0"], in: path)
        try git(["symbolic-ref", "refs/remotes/origin/HEAD", "refs/heads/main"], in: path)
    }
}
