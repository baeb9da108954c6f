import Foundation
import GitWireTestSupport
import Testing

/// Trees written by old tools list subdirectories with the zero-padded mode `040000`; git reads a
/// mode by its file-type bits (`canon_mode`), so such a tree entry is a tree. gitwire read only
/// `40000` as a tree: the connectivity check refused the clone (`object … is a tree, not a
/// blob`) and the push walk sent the subtree's contents to no one (the server answered
/// `missing necessary objects`). Both now go as git's.
@Suite("zero-padded tree modes")
struct ZeroPaddedTreeModeTests {
    /// A bare repository whose `main` holds a tree with `040000 sub` naming a real tree.
    static func server(in work: TemporaryDirectory) throws -> String {
        let server = work.appending("zp.git")
        try git(["init", "--quiet", "--bare", "--initial-branch=main", server])
        let blob = try git(["hash-object", "-w", "--stdin"], in: server, input: Array("inside\n".utf8)).text
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let inner = try git(["hash-object", "-w", "--stdin"], in: server, input: Array("deeper\n".utf8)).text
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let subtree = try git(["mktree"], in: server, input: Array("100644 blob \(inner)\tfile\n".utf8)).text
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var raw = Array("100644 top\0".utf8) + hexBytes(blob)
        raw += Array("040000 sub\0".utf8) + hexBytes(subtree)
        let tree = try git(["hash-object", "--literally", "-t", "tree", "-w", "--stdin"], in: server, input: raw).text
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let commit = try git(
            ["commit-tree", tree, "-m", "zero-padded"], in: server,
            environment: ["GIT_AUTHOR_DATE": "1700000000 +0000", "GIT_COMMITTER_DATE": "1700000000 +0000"]
        ).text.trimmingCharacters(in: .whitespacesAndNewlines)
        try git(["update-ref", "refs/heads/main", commit], in: server)
        return server
    }

    static func hexBytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }
    }

    @Test func cloneAndPushAsGit() throws {
        let work = try TemporaryDirectory()
        let server = try Self.server(in: work)
        var results: [String: (Int32, String)] = [:]
        for name in ["git", "gitwire"] {
            let clone = work.appending("clone-\(name).git")
            let target = work.appending("target-\(name).git")
            try git(["init", "--quiet", "--bare", "--initial-branch=main", target])
            let cloned =
                name == "git"
                ? try git(["clone", "--quiet", "--bare", "file://\(server)", clone], check: false)
                : try gitwire(
                    ["clone", "--quiet", "--bare", "file://\(server)", clone], environment: reproducibleGitEnvironment)
            #expect(cloned.status == 0, "\(name) clone: \(cloned.errorText)")
            let pushed =
                name == "git"
                ? try git(["push", "--quiet", "file://\(target)", "main"], in: clone, check: false)
                : try gitwire(
                    ["push", "--quiet", "file://\(target)", "main"], in: clone, environment: reproducibleGitEnvironment)
            #expect(pushed.status == 0, "\(name) push: \(pushed.errorText)")
            try git(["fsck", "--connectivity-only", "--no-dangling"], in: target)
            results[name] = (pushed.status, try gitText(["ls-tree", "-r", "main"], in: target))
        }
        #expect(results["gitwire"]?.0 == results["git"]?.0)
        #expect(results["gitwire"]?.1 == results["git"]?.1)
    }
}
