import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `--upload-pack` runs as git runs it, and a local path that could be read as an option is
/// refused as git refuses it.
@Suite("--upload-pack and local paths")
struct UploadPackCommandTests {
    /// Repository names the shell and git's config must be careful with: a quote, a bang, a space,
    /// a dollar; and a quote, a double quote and a backslash each joined to the character before
    /// them by a prepended scalar (U+070F), which a quoting loop over `Character`s misses.
    static let names = ["it's a $repo!.git", "x\u{070F}'; touch pwned; '.git", "q\u{070F}\"b\u{070F}\\.git"]

    @Test(
        arguments: [
            "git-upload-pack", "git upload-pack", "env GIT_TRACE=0 git-upload-pack", "git  upload-pack --strict",
        ], names)
    func uploadPackCommandsRunAsGitRunsThem(command: String, name: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending(name)
        try git(["init", "-q", "--bare", path])
        let work = directory.appending("work")
        try git(["init", "-q", "-b", "main", work])
        try git(["commit", "-q", "--allow-empty", "-m", "one"], in: work)
        try git(["push", "-q", path, "main"], in: work)
        let expected = try git(["ls-remote", "--upload-pack=\(command)", path], in: directory.path)
        let ours = try gitwire(["ls-remote", "--upload-pack=\(command)", path], in: directory.path)
        #expect(ours.status == 0, "\(ours.errorText)")
        #expect(ours.text == expected.text)
        #expect(!ours.text.isEmpty)
        let clone = directory.appending("c.git")
        let cloned = try gitwire(
            ["clone", "--bare", "-q", "--upload-pack=\(command)", path, clone], in: directory.path)
        #expect(cloned.status == 0, "\(cloned.errorText)")
        // git reads back the URL gitwire wrote into the clone's config, byte for byte.
        let url = try git(["config", "--get", "remote.origin.url"], in: clone)
        #expect(Array(url.text.utf8) == Array((path + "\n").utf8))
        #expect(!FileManager.default.fileExists(atPath: directory.appending("pwned")), "the path ran as a command")
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
