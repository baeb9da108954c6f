import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `--upload-pack` runs as git runs it, and a local path that could be read as an option is
/// refused as git refuses it.
@Suite("--upload-pack and local paths")
struct UploadPackCommandTests {
    @Test(arguments: [
        "git-upload-pack", "git upload-pack", "env GIT_TRACE=0 git-upload-pack", "git  upload-pack --strict",
    ])
    func uploadPackCommandsRunAsGitRunsThem(command: String) throws {
        let directory = try TemporaryDirectory()
        // A path the shell must be careful with: a quote, a bang, a space, a dollar.
        let path = directory.appending("it's a $repo!.git")
        try git(["init", "-q", "--bare", path])
        let work = directory.appending("work")
        try git(["init", "-q", "-b", "main", work])
        try git(["commit", "-q", "--allow-empty", "-m", "one"], in: work)
        try git(["push", "-q", path, "main"], in: work)
        let expected = try git(["ls-remote", "--upload-pack=\(command)", path])
        let ours = try gitwire(["ls-remote", "--upload-pack=\(command)", path])
        #expect(ours.status == 0)
        #expect(ours.text == expected.text)
        #expect(!ours.text.isEmpty)
        let cloned = try gitwire([
            "clone", "--bare", "-q", "--upload-pack=\(command)", path, directory.appending("c.git"),
        ])
        #expect(cloned.status == 0)
    }

    @Test func aPathThatLooksLikeAnOptionIsRefused() throws {
        for path in ["--help", "--strict", "-x"] {
            let expected = try git(["ls-remote", "--", path], check: false)
            let ours = try gitwire(["ls-remote", "--", path])
            #expect(ours.status == expected.status)
            #expect(ours.errorText == expected.errorText)
        }
    }
}
