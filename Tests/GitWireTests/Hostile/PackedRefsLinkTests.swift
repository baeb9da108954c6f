import Foundation
import GitWireTestSupport
import Testing

/// A repository the user was handed (a copied tarball, say) whose `packed-refs` is a symbolic
/// link to a file of the user's holding a credential. gitwire's push and fetch showed the line
/// they could not parse (`…/packed-refs: unexpected content: 'https://user:hunter2@…'`), a
/// credential in a log; git 2.39.5 shows it too (`fatal: unexpected line in .git/packed-refs:
/// https://user:hunter2@…`). gitwire now fails as before and shows nothing of the file.
@Suite struct PackedRefsLinkTests {
    static let secret = "https://user:hunter2@example.com"

    @Test("a packed-refs that is a link to a credentials file: push and fetch show nothing of it")
    func nothingShown() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-packed-refs-link")
        let server = directory.appending("server.git")
        let clone = directory.appending("clone")
        try git(["init", "--quiet", "--bare", "--initial-branch=main", server])
        try git(["clone", "--quiet", server, clone])
        try "one\n".write(toFile: "\(clone)/one", atomically: true, encoding: .utf8)
        try git(["add", "."], in: clone)
        try git(["commit", "--quiet", "-m", "one"], in: clone)
        try git(["push", "--quiet", "origin", "main"], in: clone)
        let credentials = directory.appending("git-credentials")
        try "\(Self.secret)\n".write(toFile: credentials, atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: "\(clone)/.git/packed-refs")
        try FileManager.default.createSymbolicLink(
            atPath: "\(clone)/.git/packed-refs", withDestinationPath: credentials)

        for arguments in [["push", "origin", "main"], ["fetch", "origin"]] {
            let ours = try gitwire(arguments, in: clone)
            #expect(ours.status == 128, "\(arguments): \(ours.errorText)")
            #expect(ours.errorText.hasPrefix("fatal: "), "\(arguments): \(ours.errorText)")
            #expect(!ours.errorText.contains("hunter2") && !ours.text.contains("hunter2"), "\(arguments)")
            let theirs = try git(arguments, in: clone, check: false)
            #expect(theirs.status != 0, "\(arguments)")
            #expect(theirs.errorText.contains("hunter2"), "git shows the line: \(theirs.errorText)")
        }
    }
}
