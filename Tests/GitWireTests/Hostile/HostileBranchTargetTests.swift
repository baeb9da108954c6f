import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A server whose branch (and `HEAD`) names a blob, with a pack that holds that blob: a
/// work-tree clone must not make a local branch of it. git 2.39's clone dies (`trying to write
/// non-commit object … to branch 'refs/heads/main'`, 128) and leaves no directory; gitwire used to
/// write `refs/heads/main` at the blob and `HEAD` to it, a repository git cannot use
/// (`bad tree object HEAD`). A bare clone copies the refs as they are, as git's does.
@Suite("hostile branch targets")
struct HostileBranchTargetTests {
    /// The blob's id, and a v0 advertisement and a pack (in band 1, then a flush) that serve it as
    /// `HEAD` and `refs/heads/main`.
    /// With `branch` false, the remote `HEAD` is detached (no `symref=`) and the blob is the tag
    /// `v1` rather than `main`.
    static func blobServer(connections: Int, branch: Bool = true) throws -> (id: String, server: HostileFetchServer) {
        let work = try TemporaryDirectory(prefix: "gitwire-branch-target")
        let repository = work.appending("blob.git")
        try git(["init", "-q", "--bare", repository])
        let id = try git(["hash-object", "-w", "--stdin"], in: repository, input: Array("not a commit\n".utf8))
            .text.trimmingCharacters(in: .whitespacesAndNewlines)
        let pack = try git(["pack-objects", "--stdout", "-q"], in: repository, input: Array("\(id)\n".utf8))
            .standardOutput
        let symref = branch ? " symref=HEAD:refs/heads/main" : ""
        let capabilities = "multi_ack_detailed side-band-64k ofs-delta\(symref) agent=git/2.39.5"
        let advertisement =
            PktLine.data(Array("\(id) HEAD".utf8) + [0] + Array("\(capabilities)\n".utf8)).encoded
            + PktLine.text("\(id) \(branch ? "refs/heads/main" : "refs/tags/v1")").encoded + PktLine.flush.encoded
        var answer: [UInt8] = []
        var rest = pack[...]
        while !rest.isEmpty {
            answer += sideBandPacket(1, rest.prefix(60_000))
            rest = rest.dropFirst(60_000)
        }
        answer += PktLine.flush.encoded
        let server = try HostileFetchServer(
            .v0(advertisement: advertisement), then: [.send(answer)], connections: connections)
        return (id, server)
    }

    @Test func workTreeCloneRefusesABranchAtABlob() throws {
        let (id, server) = try Self.blobServer(connections: 2)
        let work = try TemporaryDirectory(prefix: "gitwire-branch-target")
        let theirs = try git(["clone", server.url(), "git-clone"], in: work.path, check: false)
        let ours = try gitwire(["clone", server.url(), "our-clone"], in: work.path)
        _ = server.finish()
        let refusal =
            "cannot update ref 'refs/heads/main': trying to write non-commit object \(id) to branch 'refs/heads/main'\n"
        #expect(theirs.status == 128)
        #expect(theirs.errorText.hasSuffix(refusal), "\(theirs.errorText)")
        #expect(ours.status == 128)
        #expect(ours.errorText.hasSuffix("fatal: " + refusal), "\(ours.errorText)")
        #expect(!FileManager.default.fileExists(atPath: work.appending("git-clone")))
        #expect(!FileManager.default.fileExists(atPath: work.appending("our-clone")))
    }

    @Test func bareCloneKeepsTheRefsAsGitDoes() throws {
        let (_, server) = try Self.blobServer(connections: 2)
        let work = try TemporaryDirectory(prefix: "gitwire-branch-target")
        try git(["clone", "-q", "--bare", server.url(), "git.git"], in: work.path)
        let ours = try gitwire(["clone", "--bare", server.url(), "ours.git"], in: work.path)
        _ = server.finish()
        #expect(ours.status == 0, "\(ours.errorText)")
        #expect(
            try gitText(["for-each-ref"], in: work.appending("ours.git"))
                == gitText(["for-each-ref"], in: work.appending("git.git")))
    }

    /// A remote `HEAD` detached at a blob (a work-tree, bare or mirror clone), or `--branch` naming
    /// a tag at a blob: git refuses to detach `HEAD` there (`update_ref failed for ref 'HEAD':
    /// cannot update ref 'HEAD': trying to write non-commit object … to branch 'HEAD'`, 128, no
    /// directory left; with `--branch`, git 2.39 crashes). gitwire used to detach `HEAD` at the
    /// blob and exit 0 (and then left out `update_ref failed for ref 'HEAD': `).
    @Test(arguments: [[], ["--bare"], ["--mirror"], ["--branch", "v1"]])
    func detachedHeadOnlyAtACommit(options: [String]) throws {
        let (id, server) = try Self.blobServer(connections: 2, branch: false)
        let work = try TemporaryDirectory(prefix: "gitwire-branch-target")
        let theirs = try git(["clone"] + options + [server.url(), "git-clone"], in: work.path, check: false)
        let ours = try gitwire(["clone"] + options + [server.url(), "our-clone"], in: work.path)
        _ = server.finish()
        let refusal =
            "update_ref failed for ref 'HEAD': cannot update ref 'HEAD': trying to write non-commit object \(id) "
            + "to branch 'HEAD'\n"
        if options.first != "--branch" {
            #expect(theirs.status == 128)
            #expect(theirs.errorText.hasSuffix(refusal), "\(theirs.errorText)")
            #expect(!FileManager.default.fileExists(atPath: work.appending("git-clone")))
        }
        #expect(ours.status == 128)
        #expect(ours.errorText.hasSuffix("fatal: " + refusal), "\(ours.errorText)")
        #expect(!FileManager.default.fileExists(atPath: work.appending("our-clone")))
    }
}
