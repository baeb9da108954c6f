import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `gitwire push` run in a linked work tree (`git worktree add`) pushes that work tree's branch,
/// as git does: the repository is found through the work tree's `.git` file, not by walking up
/// to the main work tree's `.git` directory (whose `HEAD` is another branch), and a linked work
/// tree outside the main one is a repository too. Compared with `git push` on identical copies:
/// output, exit status and the server's refs.
@Suite(.serialized) struct PushLinkedWorkTreeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        /// Where the linked work tree is, relative to the directory holding the repository.
        var workTree: String
        var arguments: [String]
        var testDescription: String { "push \(arguments) in \(workTree)" }
    }

    static let cases: [Case] = ["repository/inside", "outside"].flatMap { workTree in
        [["origin", "HEAD"], ["--porcelain"], ["origin"]].map { Case(workTree: workTree, arguments: $0) }
    }

    @Test("a push from a linked work tree pushes its branch, as git's", arguments: cases)
    func push(_ test: Case) throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-push-worktree")
        let template = directory.appending("template")
        let repository = "\(template)/repository"
        try git(["init", "--quiet", "--initial-branch=main", repository])
        try "one\n".write(toFile: "\(repository)/file", atomically: true, encoding: .utf8)
        try git(["add", "file"], in: repository)
        try git(
            ["commit", "--quiet", "-m", "one"], in: repository, environment: ["GIT_COMMITTER_DATE": "1700000000 +0000"])
        try git(["clone", "--quiet", "--bare", repository, "\(template)/server.git"])
        try git(["remote", "add", "origin", "../server.git"], in: repository)
        try git(["fetch", "--quiet", "origin"], in: repository)
        try git(["config", "push.default", "current"], in: repository)
        try git(["worktree", "add", "--quiet", "-b", "feature", "\(template)/\(test.workTree)"], in: repository)
        let workTree = "\(template)/\(test.workTree)"
        try "two\n".write(toFile: "\(workTree)/file", atomically: true, encoding: .utf8)
        try git(
            ["commit", "--quiet", "-am", "two"], in: workTree, environment: ["GIT_COMMITTER_DATE": "1700000060 +0000"])

        var outputs: [ProcessOutput] = []
        var refs: [String] = []
        for name in ["git", "gitwire"] {
            let copy = directory.appending(name)
            try run(["cp", "-a", template, copy])
            // `git worktree add` recorded absolute paths; point them at the copy.
            try run([
                "sh", "-c", "printf 'gitdir: %s\\n' \"$1/repository/.git/worktrees/$2\" > \"$1/$3/.git\"",
                "sh", copy, (test.workTree as NSString).lastPathComponent, test.workTree,
            ])
            try "\(copy)/\(test.workTree)/.git\n".write(
                toFile: "\(copy)/repository/.git/worktrees/\((test.workTree as NSString).lastPathComponent)/gitdir",
                atomically: true, encoding: .utf8)
            // The remote by its absolute path in the copy: a relative URL is found from the top of
            // the work tree pushed from (PushLocalUpstreamTests), which the linked one is not.
            try git(["config", "remote.origin.url", "\(copy)/server.git"], in: "\(copy)/repository")
            let here = "\(copy)/\(test.workTree)"
            outputs.append(
                name == "git"
                    ? try git(
                        ["push"] + test.arguments, in: here, environment: reproducibleGitEnvironment, check: false)
                    : try gitwire(["push"] + test.arguments, in: here, environment: reproducibleGitEnvironment))
            refs.append(try git(["for-each-ref", "--format=%(objectname) %(refname)"], in: "\(copy)/server.git").text)
        }
        #expect(outputs[0].status == 0, "git: \(outputs[0].errorText)")
        #expect(refs[0].contains("refs/heads/feature"))
        #expect(outputs[1].errorText.replacingOccurrences(of: "/gitwire/", with: "/git/") == outputs[0].errorText)
        #expect(outputs[1].text.replacingOccurrences(of: "/gitwire/", with: "/git/") == outputs[0].text)
        #expect(outputs[1].status == outputs[0].status)
        #expect(refs[1] == refs[0])
    }
}
