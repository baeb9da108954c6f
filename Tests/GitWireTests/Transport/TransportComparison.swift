import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `gitwire ls-remote`, `clone --bare` and `fetch` against the repository at `url` give what git
/// gives over the same server: the same listing, the same refs and remote URL after the clone (which
/// passes `git fsck`), and a quiet fetch that finds nothing new. `url` must name a repository with
/// more than 1,000 refs.
func expectLsRemoteCloneAndFetchMatchGit(url: String, version: String, environment: [String: String]) throws {
    let expected = try git(["-c", "protocol.version=\(version)", "ls-remote", url], environment: environment)
    let ours = try gitwire(["ls-remote", "--protocol-version=\(version)", url], environment: environment)
    #expect(ours.status == 0, "\(ours.errorText)")
    #expect(ours.text == expected.text)
    #expect(ours.text.split(separator: "\n").count > 1000)

    let directory = try TemporaryDirectory()
    let theirs = directory.appending("theirs.git")
    let mine = directory.appending("mine.git")
    try git(["-c", "protocol.version=\(version)", "clone", "-q", "--bare", url, theirs], environment: environment)
    let cloned = try gitwire(
        ["clone", "-q", "--bare", "--protocol-version=\(version)", url, mine], environment: environment)
    #expect(cloned.status == 0, "\(cloned.errorText)")
    #expect(try gitText(["for-each-ref"], in: mine) == gitText(["for-each-ref"], in: theirs))
    #expect(try gitText(["config", "remote.origin.url"], in: mine) == url)
    try git(["fsck", "--connectivity-only", "--no-dangling"], in: mine)
    let fetched = try gitwire(
        [
            "fetch", "--protocol-version=\(version)", url, mine, "+refs/heads/*:refs/heads/*",
            "+refs/tags/*:refs/tags/*",
        ],
        environment: environment)
    #expect(fetched.status == 0)
    #expect(fetched.errorText.isEmpty)
}
