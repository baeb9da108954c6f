import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `--branch` in a bare or mirror clone names `HEAD`, as in git (`update_head` runs for bare
/// clones too): the branch, or a tag's commit, detached. gitwire used to ignore it and take the
/// remote's `HEAD`, and with `--single-branch` and a remote `HEAD` detached elsewhere wrote a
/// `HEAD` at a commit it had not fetched.
@Suite("bare clones and --branch")
struct BareCloneBranchTests {
    /// A repository with `main` (two commits), `other` at the first, an annotated tag `vt` there,
    /// and `HEAD` either on `main` or detached at a third commit no branch has.
    static func server(in work: TemporaryDirectory, detached: Bool) throws -> String {
        let path = work.appending(detached ? "detached" : "server")
        try git(["init", "-q", "--initial-branch=main", path])
        for message in ["one", "two"] { try git(["commit", "-q", "--allow-empty", "-m", message], in: path) }
        try git(["branch", "other", "HEAD~1"], in: path)
        try git(["tag", "-a", "-m", "tag", "vt", "HEAD~1"], in: path)
        if detached {
            try git(["checkout", "-q", "--detach"], in: path)
            try git(["commit", "-q", "--allow-empty", "-m", "three"], in: path)
        }
        return path
    }

    @Test(
        arguments: [
            ["--bare", "--branch", "other"], ["--mirror", "--branch", "other"], ["--bare", "--branch", "vt"],
            ["--bare", "--single-branch", "--branch", "other"],
        ], [false, true])
    func branchNamesHead(options: [String], detached: Bool) throws {
        let work = try TemporaryDirectory(prefix: "gitwire-bare-branch")
        let server = "file://" + (try Self.server(in: work, detached: detached))
        try git(
            ["clone", "-q"] + options + [server, work.appending("git.git")])
        let ours = try gitwire(["clone", "-q"] + options + [server, work.appending("ours.git")])
        #expect(ours.status == 0, "\(ours.errorText)")
        let gitHead = try String(contentsOfFile: work.appending("git.git/HEAD"), encoding: .utf8)
        let ourHead = try String(contentsOfFile: work.appending("ours.git/HEAD"), encoding: .utf8)
        #expect(ourHead == gitHead)
        #expect(
            try gitText(["for-each-ref"], in: work.appending("ours.git"))
                == gitText(["for-each-ref"], in: work.appending("git.git")))
    }
}
