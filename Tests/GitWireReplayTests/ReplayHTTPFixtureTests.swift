import Foundation
import GitWire
import GitWireReplay
import GitWireTestSupport
import Testing

/// Clones recorded over smart HTTP (`Fixtures/http`, captured from `git http-backend` by
/// `Tools/capture-fixtures.sh`) played back with no network: the client sends exactly the
/// recorded requests, one stateless request per recorded `POST`, and writes the repository the
/// recording describes.
@Suite("Replay HTTP fixtures")
struct ReplayHTTPFixtureTests {
    static let fixtures = sessionFixtures(in: "http")

    @Test func bothVersionsAreRecorded() throws {
        let names = Self.fixtures.map { URL(fileURLWithPath: $0).lastPathComponent }
        #expect(names.contains("v0-clone.session") && names.contains("v2-clone.session"))
        let lsRemote = sessionFixtures(in: "ls-remote").filter { $0.contains("/http-") }
        #expect(lsRemote.count >= 4)
        for path in Self.fixtures + lsRemote {
            let session = try Session(contentsOfFile: path)
            #expect(session.transport == "http")
            // The request and status lines are kept, in order, around the pkt-lines.
            let lines = session.events.compactMap { event -> String? in
                if case .http(_, let line) = event { return line }
                return nil
            }
            #expect(lines.first?.hasPrefix("GET \(session.path)/info/refs?service=git-upload-pack") == true, "\(path)")
            #expect(lines.dropFirst().first?.hasPrefix("200 application/x-git-upload-pack-advertisement") == true)
            if session.protocolVersion == .v2 { #expect(lines.first?.hasSuffix(" git-protocol=version=2") == true) }
        }
    }

    @Test(arguments: fixtures, [ReplayChunking.whole, .sizes([1, 7, 4096])])
    func recordedCloneReplays(path: String, chunking: ReplayChunking) throws {
        let session = try Session(contentsOfFile: path)
        let posts = session.events.filter { event in
            if case .http(.client, let line) = event { return line.hasPrefix("POST ") }
            return false
        }
        #expect(posts.count >= 1)
        let replay = ReplayTransport(session, chunking: chunking)
        #expect(!replay.connectionPersists)
        let remote = Remote(url: try RemoteURL("http://127.0.0.1\(session.path)"), transport: replay)
        let directory = try TemporaryDirectory()
        let target = directory.appending("clone.git")
        let result = try remote.clone(
            into: target, options: RepositoryFetchOptions(fetch: FetchOptions(protocolVersion: session.protocolVersion))
        )
        try replay.verify()
        let listing = result.outcome.listing
        let expected = listing.refs.filter { !$0.name.hasSuffix("^{}") && $0.name != "HEAD" }
            .map { "\($0.objectID!.hex) \($0.name)" }.sorted()
        let written = try RefStore(gitDirectory: target).all().map { "\($0.id.hex) \($0.name)" }.sorted()
        #expect(written == expected)
        #expect((result.pack?.objectCount ?? 0) > 40)
    }
}
