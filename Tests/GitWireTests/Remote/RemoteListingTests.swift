import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// The four ways of calling ls-remote list what `git ls-remote` lists, over git:// and file://,
/// with every protocol version, on every test repository.
@Suite("Remote ls-remote APIs")
struct RemoteListingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var repository: String
        var version: ProtocolVersion
        var scheme: String
        var testDescription: String { "\(scheme) v\(version) \(repository)" }

        var url: String {
            let repositories = TestRepositories.shared
            return scheme == "git" ? repositories.daemon.url(repository) : "file://\(repositories.path(repository))"
        }
    }

    static let cases = TestRepositories.names.flatMap { repository in
        ProtocolVersion.allCases.flatMap { version in
            ["git", "file"].map { Case(repository: repository, version: version, scheme: $0) }
        }
    }

    /// `ref: <target>\t<name>` lines for the symrefs git's `--symref` shows.
    func symrefLines(_ refs: [Ref]) -> [String] {
        refs.compactMap { ref in
            guard ref.objectID != nil, let target = ref.symrefTarget else { return nil }
            return "ref: \(target)\t\(ref.name)"
        }
    }

    @Test(.onTestThreads, arguments: cases)
    func everyFormListsWhatGitLists(_ testCase: Case) async throws {
        let gitArguments = ["-c", "protocol.version=\(testCase.version.rawValue)", "ls-remote"]
        let expected = try git(gitArguments + [testCase.url]).standardOutput
        let expectedSymrefs = try git(gitArguments + ["--symref", testCase.url]).text.split(separator: "\n")
            .filter { $0.hasPrefix("ref: ") }.map(String.init)
        #expect(testCase.repository == "empty.git" || !expected.isEmpty)
        let remote = try Remote(testCase.url, timeout: .seconds(30).scaledForSlowRuns)
        let options = LsRemoteOptions(protocolVersion: testCase.version)

        let blocking = try blockingLsRemote(remote, options)
        #expect(lsRemoteText(blocking.refs) == expected)
        #expect(symrefLines(blocking.refs) == expectedSymrefs)
        #expect(blocking.protocolVersion == testCase.version)
        // upload-pack sends an empty repository's v0/v1 advertisement as a bare flush.
        let bareFlush = testCase.repository == "empty.git" && testCase.version != .v2
        #expect(blocking.capabilities.contains("agent") != bareFlush)

        let looped = try loopLsRemote(remote, options)
        #expect(looped.completions == 1)
        let loopListing = try #require(try looped.result?.get())
        #expect(looped.refsAtCompletion == loopListing.refs.count, "every ref was delivered before the completion")
        #expect(looped.refs == loopListing.refs, "in the server's order")
        #expect(loopListing.refs == blocking.refs)
        #expect(loopListing.protocolVersion == testCase.version)

        let awaited = try await remote.lsRemote(options)
        #expect(awaited.refs == blocking.refs)
        #expect(awaited.capabilities == blocking.capabilities)

        #expect(try await streamedRefs(remote, options) == blocking.refs)
    }

    /// Each ref is handed out as soon as it is parsed: a peeled tag comes with its peeled id
    /// (the `^{}` line is folded in), and the order is the server's.
    @Test func refsArriveInTheServersOrder() throws {
        let url = TestRepositories.shared.daemon.url("big.git")
        let remote = try Remote(url, timeout: .seconds(30).scaledForSlowRuns)
        let names = try git(["-c", "protocol.version=0", "ls-remote", url]).text.split(separator: "\n")
            .map { String($0.split(separator: "\t")[1]) }.filter { !$0.hasSuffix("^{}") }
        for version in ProtocolVersion.allCases {
            let looped = try loopLsRemote(remote, LsRemoteOptions(protocolVersion: version))
            #expect(looped.refs.map(\.name) == names, "v\(version)")
            #expect(looped.refs.contains { $0.peeled != nil })
        }
    }

    /// Protocol v2 ref prefixes are passed to the server, which lists only those refs.
    @Test(.onTestThreads) func refPrefixesNarrowTheListing() async throws {
        let url = TestRepositories.shared.daemon.url("big.git")
        let remote = try Remote(url, timeout: .seconds(30).scaledForSlowRuns)
        let options = LsRemoteOptions(refPrefixes: ["refs/heads/branch-1", "refs/tags/tag-of-"])
        let listing = try await remote.lsRemote(options)
        let expected = try git(["ls-remote", url, "refs/heads/branch-1*", "refs/tags/tag-of-*"]).standardOutput
        #expect(lsRemoteText(listing.refs) == expected)
        #expect(listing.refs.count > 10)
    }
}
