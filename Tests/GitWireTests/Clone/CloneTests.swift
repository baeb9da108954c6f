import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `Remote.clone` makes the repository `git clone --bare` makes from the same server: the same
/// refs, HEAD and configuration, objects git checks as complete.
@Suite("Clone")
struct CloneTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var repository: String
        var version: ProtocolVersion
        var scheme: String
        var testDescription: String { "\(scheme) v\(version.rawValue) \(repository)" }

        var url: String {
            let repositories = TestRepositories.shared
            return scheme == "git" ? repositories.daemon.url(repository) : "file://\(repositories.path(repository))"
        }
    }

    static let cases = ["small.git", "big.git", "detached.git"].flatMap { repository in
        [ProtocolVersion.v0, .v2].flatMap { version in
            ["git", "file"].map { Case(repository: repository, version: version, scheme: $0) }
        }
    }

    @Test(arguments: cases)
    func cloneIsWhatGitClones(_ testCase: Case) throws {
        let directory = try TemporaryDirectory()
        let ours = directory.appending("ours.git")
        let theirs = directory.appending("theirs.git")
        try git(["-c", "protocol.version=\(testCase.version.rawValue)", "clone", "-q", "--bare", testCase.url, theirs])
        let remote = try Remote(testCase.url, timeout: .seconds(60))
        let result = try remote.cloneBlocking(
            into: ours, options: RepositoryFetchOptions(fetch: FetchOptions(protocolVersion: testCase.version)))
        #expect(result.gitDirectory == ours)
        for command in [
            ["for-each-ref"], ["symbolic-ref", "HEAD"], ["config", "--list", "--local"], ["count-objects", "-v"],
        ] {
            let expected = try git(command, in: theirs, check: false)
            let actual = try git(command, in: ours, check: false)
            if command == ["count-objects", "-v"] {
                // Same number of objects, all in one pack.
                #expect(actual.text.contains(expected.text.split(separator: "\n").first { $0.hasPrefix("in-pack") }!))
            } else {
                #expect(actual.text == expected.text, "\(command) differs")
            }
        }
        #expect(
            try String(contentsOfFile: "\(ours)/packed-refs", encoding: .utf8)
                == String(contentsOfFile: "\(theirs)/packed-refs", encoding: .utf8))
        try git(["fsck", "--full", "--strict", "--no-dangling"], in: ours)
        // git can go on using it.
        try git(["-c", "protocol.version=\(testCase.version.rawValue)", "fetch", "-q", testCase.url], in: ours)
        try git(["gc", "-q"], in: ours)
        try git(["fsck", "--full", "--no-dangling"], in: ours)
    }

    @Test func aFailedCloneLeavesNothingBehind() throws {
        let directory = try TemporaryDirectory()
        let target = directory.appending("nothing.git")
        let remote = try Remote(TestRepositories.shared.daemon.url("does-not-exist.git"), timeout: .seconds(30))
        #expect(throws: (any Error).self) { try remote.cloneBlocking(into: target) }
        #expect(!FileManager.default.fileExists(atPath: target))
    }
}
