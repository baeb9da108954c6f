import Foundation
import GitWireTestSupport
import Testing

/// A fast-forward whose new commits carry committer dates older than the old tip (clock skew:
/// a commit made on a machine whose clock was days behind) is a fast-forward, as git's
/// `in_merge_bases` finds it; a walk cut off by date called it a non-fast-forward, so a
/// remote-tracking ref was reported as a forced update and `main:main` was rejected.
@Suite("fetch under clock skew")
struct FetchClockSkewTests {
    /// Empty commits in the repository at `path`, each with the committer date given
    /// (seconds since the epoch), on what is checked out.
    static func commit(_ messages: [(String, Int)], in path: String) throws {
        for (message, date) in messages {
            let stamp = "\(date) +0000"
            try git(
                ["commit", "-q", "--allow-empty", "-m", message], in: path,
                environment: ["GIT_COMMITTER_DATE": stamp, "GIT_AUTHOR_DATE": stamp])
        }
    }

    /// Runs `git fetch` and `gitwire fetch` with `arguments` in two copies of `template`, and
    /// expects the same exit status, messages and refs.
    static func expectSame(_ arguments: [String], template: String, directory: TemporaryDirectory, name: String)
        throws
    {
        let theirs = directory.appending("git-\(name)")
        let ours = directory.appending("ours-\(name)")
        try run(["cp", "-a", template, theirs])
        try run(["cp", "-a", template, ours])
        let theirOutput = try git(["fetch"] + arguments, in: theirs, check: false)
        let ourOutput = try gitwire(["fetch"] + arguments, in: ours, environment: reproducibleGitEnvironment)
        #expect(ourOutput.status == theirOutput.status, "\(name): \(ourOutput.errorText)")
        #expect(
            ourOutput.errorText.replacingOccurrences(of: ours, with: "<dir>")
                == theirOutput.errorText.replacingOccurrences(of: theirs, with: "<dir>"), "\(name)")
        let format = "--format=%(objectname) %(refname)"
        #expect(try gitText(["for-each-ref", format], in: ours) == gitText(["for-each-ref", format], in: theirs))
    }

    @Test func newCommitsOlderThanTheOldTip() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-skew")
        let source = directory.appending("source")
        let day = 86_400
        let now = 1_700_000_000
        try git(["init", "-q", "-b", "main", source])
        try Self.commit([("c1", now - 10 * day), ("c2", now)], in: source)
        try git(["branch", "side"], in: source)
        let template = directory.appending("template")
        try git(["clone", "-q", "--bare", source, template])
        try git(["config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"], in: template)
        try git(["fetch", "-q", "origin"], in: template)
        // main moves on by commits dated three and five days before the old tip; side is
        // rewritten (a real non-fast-forward, with skew too).
        try Self.commit([("skewed", now - 3 * day), ("more skewed", now - 5 * day)], in: source)
        try git(["checkout", "-q", "--detach", "main~3"], in: source)
        try Self.commit([("rewritten", now - 4 * day)], in: source)
        try git(["branch", "-f", "side", "HEAD"], in: source)
        try git(["checkout", "-q", "main"], in: source)
        #expect(try gitText(["rev-list", "--count", "main"], in: source) == "4")
        #expect(try gitText(["rev-list", "--count", "side"], in: source) == "2")

        try Self.expectSame(["origin"], template: template, directory: directory, name: "tracking")
        try Self.expectSame(
            ["origin", "main:main", "side:side"], template: template, directory: directory, name: "branches")
        try Self.expectSame(
            ["origin", "main:main", "+side:side"], template: template, directory: directory, name: "forced")
    }
}
