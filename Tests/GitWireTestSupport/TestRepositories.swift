import Foundation

/// Repositories built once per test process with `git` (fixed names and dates, so object ids are
/// the same on every machine), served by one shared ``GitDaemon``. Both go away at exit.
public final class TestRepositories: @unchecked Sendable {
    /// The directory holding the bare repositories (the daemon's base path).
    public let basePath: String
    /// The daemon serving ``basePath``.
    public let daemon: GitDaemon
    private let directory: TemporaryDirectory

    /// Every repository, by name (the path under ``basePath``).
    public static let names = ["big.git", "small.git", "empty.git", "unborn.git", "detached.git"]

    /// The shared instance, built on first use.
    public static let shared: TestRepositories = {
        do {
            return try TestRepositories()
        } catch {
            fatalError("cannot build test repositories: \(error)")
        }
    }()

    private init() throws {
        directory = try TemporaryDirectory(prefix: "gitwire-repos")
        basePath = directory.path
        try Self.makeBig(at: directory.appending("big.git"))
        try Self.makeSmall(at: directory.appending("small.git"))
        try git(["init", "--quiet", "--bare", "--initial-branch=main", directory.appending("empty.git")])
        try Self.makeUnborn(at: directory.appending("unborn.git"))
        try Self.makeDetached(at: directory.appending("detached.git"))
        daemon = try GitDaemon(basePath: basePath)
    }

    /// The local path of repository `name`.
    public func path(_ name: String) -> String { "\(basePath)/\(name)" }

    /// Commits on `main` with a file that changes each time, as fast-import input.
    static func commits(_ count: Int, branch: String = "refs/heads/main") -> String {
        var input = ""
        for index in 1...count {
            let content = "version \(index)\n" + String(repeating: "line of text \(index % 7)\n", count: index % 20)
            input += "blob\nmark :\(index * 2)\ndata \(content.utf8.count)\n\(content)\n"
            input += "commit \(branch)\nmark :\(index * 2 + 1)\n"
            input += "author A U Thor <author@example.com> \(1_700_000_000 + index) +0000\n"
            input += "committer C O Mitter <committer@example.com> \(1_700_000_000 + index) +0000\n"
            let message = "commit \(index)\n"
            input += "data \(message.utf8.count)\n\(message)"
            if index > 1 { input += "from :\(index * 2 - 1)\n" }
            input += "M 100644 :\(index * 2) file-\(index % 10).txt\n\n"
        }
        return input
    }

    /// Hundreds of commits and thousands of refs of every kind ls-remote must handle.
    static func makeBig(at path: String) throws {
        try git(["init", "--quiet", "--bare", "--initial-branch=main", path])
        var input = commits(300)
        for index in 0..<400 { input += "reset refs/heads/branch-\(index)\nfrom :\((index % 300) * 2 + 3)\n\n" }
        for index in 0..<1500 { input += "reset refs/tags/light-\(index)\nfrom :\((index % 300) * 2 + 3)\n\n" }
        for index in 0..<1000 {
            let message = "release \(index)\n"
            input += "tag v1.\(index)\nfrom :\((index % 300) * 2 + 3)\n"
            input += "tagger C O Mitter <committer@example.com> \(1_700_100_000 + index) +0000\n"
            input += "data \(message.utf8.count)\n\(message)\n"
        }
        for name in ["refs/heads/ünïcödé", "refs/tags/日本語-タグ", "refs/heads/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p"] {
            input += "reset \(name)\nfrom :11\n\n"
        }
        try git(["fast-import", "--quiet"], in: path, input: Array(input.utf8))
        let tree = try gitText(["rev-parse", "main^{tree}"], in: path)
        let blob = try gitText(["rev-parse", "main:file-1.txt"], in: path)
        try git(["tag", "-a", "-m", "a tag of a tag", "tag-of-tag", "v1.0"], in: path)
        try git(["tag", "-a", "-m", "a tag of a tree", "tag-of-tree", tree], in: path)
        try git(["tag", "-a", "-m", "a tag of a blob", "tag-of-blob", blob], in: path)
        try git(["tag", "lightweight-of-tree", tree], in: path)
        try git(["update-ref", "refs/remotes/origin/main", "main"], in: path)
        try git(["symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main"], in: path)
        try git(["config", "pack.threads", "1"], in: path)
    }

    /// A few commits, branches and tags: for quick tests.
    static func makeSmall(at path: String) throws {
        try git(["init", "--quiet", "--bare", "--initial-branch=main", path])
        var input = commits(12)
        input += "reset refs/heads/feature\nfrom :9\n\n"
        input += "reset refs/tags/light\nfrom :5\n\n"
        let message = "version one\n"
        input += "tag v1\nfrom :25\ntagger C O Mitter <committer@example.com> 1700200000 +0000\n"
        input += "data \(message.utf8.count)\n\(message)\n"
        try git(["fast-import", "--quiet"], in: path, input: Array(input.utf8))
        try git(["config", "pack.threads", "1"], in: path)
    }

    /// `HEAD` points at a branch that does not exist; other branches do.
    static func makeUnborn(at path: String) throws {
        try git(["init", "--quiet", "--bare", "--initial-branch=main", path])
        try git(["fast-import", "--quiet"], in: path, input: Array(commits(3).utf8))
        try git(["symbolic-ref", "HEAD", "refs/heads/not-yet"], in: path)
    }

    /// `HEAD` holds a commit id instead of naming a branch.
    static func makeDetached(at path: String) throws {
        try git(["init", "--quiet", "--bare", "--initial-branch=main", path])
        try git(["fast-import", "--quiet"], in: path, input: Array(commits(5).utf8))
        try git(["update-ref", "--no-deref", "HEAD", "main~2"], in: path)
    }
}
