import Foundation
import GitWire
import GitWireCore
import GitWireTestSupport
import Testing

/// A 64 MiB local blob named where a commit is expected: the source of a push to a branch that
/// exists (the fast-forward check: git's `needs force`), or to an unqualified destination (git's
/// advice names the source's type), and a clone whose remote `HEAD` is detached at it. gitwire
/// read the whole blob to learn its type (a push peaked at 205 MB); the type now comes from the
/// object's header, and a push peaks far below the blob's size. Output and status as git's.
@Suite("a large local blob named as a commit")
struct LargeBlobNamedAsCommitTests {
    /// A bare remote with `main` at a commit, and a clone of it holding a 64 MiB loose blob: the
    /// blob's id.
    private static func repositories(in work: TemporaryDirectory) throws -> String {
        let remote = work.appending("remote.git")
        try git(["init", "--quiet", "--bare", "--initial-branch=main", remote])
        let local = work.appending("local")
        try git(["init", "--quiet", "--initial-branch=main", local])
        try git(["-C", local, "commit", "--quiet", "--allow-empty", "-m", "one"])
        try git(["-C", local, "push", "--quiet", remote, "main"])
        // Random bytes, which do not compress: the loose object is as large as the blob.
        let file = work.appending("big")
        try run(["sh", "-c", "head -c \(64 << 20) /dev/urandom > '\(file)'"])
        return try gitText(["hash-object", "-w", file], in: local)
    }

    /// `push <blob>:<destination>` by git and gitwire from the same repository to copies of the
    /// same remote: both refuse, with the same output and status, the remote unchanged.
    @Test(arguments: ["refs/heads/main", "foo"])
    func pushOfTheBlob(destination: String) throws {
        let work = try TemporaryDirectory(prefix: "gitwire-large-commit")
        let blob = try Self.repositories(in: work)
        try git(["clone", "--quiet", "--bare", work.appending("remote.git"), work.appending("remote-git.git")])
        let main = try gitText(["-C", work.appending("remote.git"), "rev-parse", "main"])
        var runs: [MeasuredRun] = []
        for name in ["git", "gitwire"] {
            let remote = work.appending(name == "git" ? "remote-git.git" : "remote.git")
            let command = name == "git" ? ["git"] : [gitwireExecutable]
            runs.append(
                try measuringPeakMemory(
                    command + ["-C", work.appending("local"), "push", remote, "\(blob):\(destination)"],
                    killAfter: 300))
            #expect(try gitText(["-C", remote, "for-each-ref"]) == "\(main) commit\trefs/heads/main")
        }
        #expect(runs[0].output.status == 1)
        #expect(runs[1].output.status == runs[0].output.status)
        let theirs = runs[0].output.errorText.replacingOccurrences(of: "remote-git.git", with: "remote.git")
        #expect(runs[1].output.errorText == theirs)
        #expect(runs[1].output.text == runs[0].output.text)
        #expect(runs[1].peakMemory < peakMemoryBound(48 << 20), "peak \(mebibytes(runs[1].peakMemory))")
    }

    /// A clone of a remote whose `HEAD` is detached at the blob: git and gitwire refuse to detach
    /// `HEAD` there with the same message (git's `update_ref` dies with `update_ref failed for
    /// ref 'HEAD': ` first), 128, nothing left behind.
    @Test func cloneOfAHeadDetachedAtTheBlob() throws {
        let work = try TemporaryDirectory(prefix: "gitwire-large-commit")
        let blob = try Self.repositories(in: work)
        let remote = work.appending("remote.git")
        try git(["-C", work.appending("local"), "push", "--quiet", remote, "\(blob):refs/tags/big"])
        try Data("\(blob)\n".utf8).write(to: URL(fileURLWithPath: "\(remote)/HEAD"))
        var runs: [MeasuredRun] = []
        for name in ["git", "gitwire"] {
            let command = name == "git" ? ["git"] : [gitwireExecutable]
            runs.append(
                try measuringPeakMemory(
                    command + ["clone", "--bare", "--quiet", "file://\(remote)", work.appending("\(name).git")],
                    killAfter: 300))
            #expect(!FileManager.default.fileExists(atPath: work.appending("\(name).git")), "\(name) left it")
        }
        let refusal =
            "fatal: update_ref failed for ref 'HEAD': cannot update ref 'HEAD': trying to write non-commit object "
            + "\(blob) to branch 'HEAD'\n"
        #expect(runs[0].output.status == 128)
        #expect(runs[0].output.errorText == refusal)
        #expect(runs[1].output.status == 128)
        #expect(runs[1].output.errorText == refusal)
    }
}
