import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Branches whose upstream is local (`branch.<name>.remote = .`, `branch.<name>.merge`): a push
/// with no arguments goes to the repository itself, mapped by `push.default` (upstream, simple,
/// current, matching, nothing, unset) as git maps it, from the top of the work tree and from a
/// subdirectory (git runs from the top, so `.` is the repository there too). Compared with
/// `git push` on identical copies: output, exit status, and the repository's refs after.
@Suite(.serialized) struct PushLocalUpstreamTests {
    /// A repository with `main`, `topic` (one commit ahead of `main`, upstream `main`), `behind`
    /// (behind `main`, upstream `main`) and `same` (upstream itself), all with remote `.`, and a
    /// subdirectory `sub/deeper`.
    static let template = Result { () throws -> (TemporaryDirectory, String) in
        let directory = try TemporaryDirectory(prefix: "gitwire-push-local")
        let repository = directory.appending("template")
        try git(["init", "--quiet", "--initial-branch=main", repository])
        for index in 1...3 {
            try FileManager.default.createDirectory(
                atPath: "\(repository)/sub/deeper", withIntermediateDirectories: true)
            try "\(index)\n".write(toFile: "\(repository)/sub/deeper/file", atomically: true, encoding: .utf8)
            try git(["add", "."], in: repository)
            try git(
                ["commit", "--quiet", "-m", "commit \(index)"], in: repository,
                environment: ["GIT_COMMITTER_DATE": "\(1_700_000_000 + index * 60) +0000"])
        }
        try git(["branch", "behind", "main~1"], in: repository)
        try git(["branch", "same", "main~1"], in: repository)
        try git(["branch", "topic", "main"], in: repository)
        try git(["checkout", "--quiet", "topic"], in: repository)
        try "topic\n".write(toFile: "\(repository)/sub/deeper/file", atomically: true, encoding: .utf8)
        try git(
            ["commit", "--quiet", "-am", "topic"], in: repository,
            environment: ["GIT_COMMITTER_DATE": "1700001000 +0000"])
        for (branch, merge) in [("topic", "main"), ("behind", "main"), ("same", "same")] {
            try git(["config", "branch.\(branch).remote", "."], in: repository)
            try git(["config", "branch.\(branch).merge", "refs/heads/\(merge)"], in: repository)
        }
        return (directory, repository)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var mode: String?
        var branch: String
        var subdirectory: Bool
        var arguments: [String] = []
        var testDescription: String {
            "push.default=\(mode ?? "(unset)") on \(branch)\(subdirectory ? " from sub/deeper" : "") push \(arguments)"
        }
    }

    static let cases: [Case] =
        [nil, "upstream", "simple", "current", "matching", "nothing"].flatMap { mode in
            ["topic", "behind", "same"].flatMap { branch in
                [false, true].map { Case(mode: mode, branch: branch, subdirectory: $0) }
            }
        } + [
            Case(mode: "upstream", branch: "topic", subdirectory: true, arguments: ["."]),
            Case(mode: "upstream", branch: "topic", subdirectory: true, arguments: [".", "topic"]),
            Case(mode: nil, branch: "topic", subdirectory: true, arguments: [".", "topic"]),
            Case(mode: "upstream", branch: "topic", subdirectory: true, arguments: ["--porcelain"]),
            Case(mode: "upstream", branch: "topic", subdirectory: true, arguments: ["--dry-run"]),
            Case(mode: "simple", branch: "same", subdirectory: true, arguments: ["--force-with-lease"]),
        ]

    @Test("a branch whose upstream is local pushes as git's", arguments: cases)
    func push(_ test: Case) throws {
        let (directory, template) = try Self.template.get()
        var outputs: [ProcessOutput] = []
        var refs: [String] = []
        for name in ["git", "gitwire"] {
            let copy = directory.appending(name)
            try? FileManager.default.removeItem(atPath: copy)
            try run(["cp", "-a", template, copy])
            try git(["checkout", "--quiet", test.branch], in: copy)
            if let mode = test.mode { try git(["config", "push.default", mode], in: copy) }
            let here = test.subdirectory ? "\(copy)/sub/deeper" : copy
            outputs.append(
                name == "git"
                    ? try git(
                        ["push"] + test.arguments, in: here, environment: reproducibleGitEnvironment, check: false)
                    : try gitwire(["push"] + test.arguments, in: here, environment: reproducibleGitEnvironment))
            refs.append(try git(["for-each-ref", "--format=%(objectname) %(refname)"], in: copy).text)
        }
        #expect(outputs[1].errorText == outputs[0].errorText)
        #expect(outputs[1].text == outputs[0].text)
        #expect(outputs[1].status == outputs[0].status)
        #expect(refs[1] == refs[0])
    }

    /// A remote with several push URLs (its `pushurl`s, else its `url`s): git pushes to each in
    /// turn, one that rejects the push does not stop the next, and the exit status says whether
    /// any failed; a `push.default` git does not know is named with the file and line it comes
    /// from. gitwire pushed to the first URL only, and named no place.
    @Test(
        arguments: [
            (["pushurl=remotes/a.git", "pushurl=remotes/b.git"], 0), (["url=remotes/a.git", "url=remotes/b.git"], 0),
            (["url=remotes/b.git", "pushurl=remotes/ahead.git", "pushurl=remotes/b.git"], 1),
            (["url=remotes/a.git", "push.default=bogus"], 128),
        ] as [([String], Int32)])
    func severalPushURLs(_ settings: [String], status: Int32) throws {
        let (directory, template) = try Self.template.get()
        var outputs: [ProcessOutput] = []
        var refs: [String] = []
        for name in ["git", "gitwire"] {
            let copy = directory.appending("urls-\(name)")
            try? FileManager.default.removeItem(atPath: copy)
            try run(["cp", "-a", template, copy])
            for remote in ["a", "b", "ahead"] { try git(["init", "-q", "--bare", "\(copy)/remotes/\(remote).git"]) }
            // ahead.git's topic is a commit the local topic lacks: the push there is rejected.
            let other = try gitText(["commit-tree", "main^{tree}", "-p", "main", "-m", "other"], in: copy)
            try git(["push", "-q", "remotes/ahead.git", "\(other):refs/heads/topic"], in: copy)
            for setting in settings {
                let (key, value) = (setting.prefix { $0 != "=" }, setting.drop { $0 != "=" }.dropFirst())
                let name = key.contains(".") ? String(key) : "remote.origin.\(key)"
                try git(["config", "--add", name, String(value)], in: copy)
            }
            outputs.append(
                name == "git"
                    ? try git(["push", "origin", "topic"], in: copy, check: false)
                    : try gitwire(["push", "origin", "topic"], in: copy, environment: reproducibleGitEnvironment))
            var listing = ""
            for remote in ["a", "b", "ahead"] {
                listing += try git(
                    ["for-each-ref", "--format=%(objectname) %(refname)"], in: "\(copy)/remotes/\(remote).git"
                ).text
            }
            refs.append(listing)
        }
        #expect(outputs[1].errorText == outputs[0].errorText)
        #expect(outputs[1].status == outputs[0].status)
        #expect(refs[1] == refs[0])
        #expect(outputs[0].status == status)
    }
}
