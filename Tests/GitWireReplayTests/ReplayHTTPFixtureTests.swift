import Foundation
import GitWire
import GitWireReplay
import GitWireTestSupport
import Testing

/// Clones recorded over smart HTTP (`Fixtures/http`, captured from `git http-backend` by
/// `Tools/capture-fixtures.sh`: gitwire's own, and real git's through `record-proxy`) played back
/// with no network: the client sends exactly the recorded requests (git's, byte for byte, given
/// git's agent string), one stateless request per recorded `POST`, and writes the repository the
/// recording describes.
@Suite("Replay HTTP fixtures")
struct ReplayHTTPFixtureTests {
    static let fixtures = sessionFixtures(in: "http") + sessionFixtures(in: "sha256/http")

    @Test func bothVersionsAreRecorded() throws {
        let names = Self.fixtures.map { URL(fileURLWithPath: $0).lastPathComponent }
        #expect(names.contains("v0-clone.session") && names.contains("v2-clone.session"))
        #expect(names.contains("git-v0-clone.session") && names.contains("git-v2-clone.session"))
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
        var fetch = FetchOptions(protocolVersion: session.protocolVersion, progress: false)
        fetch.agent = try Self.clientAgent(session)
        let result = try remote.cloneBlocking(into: target, options: RepositoryFetchOptions(fetch: fetch))
        try replay.verify()
        let listing = result.outcome.listing
        // A bare clone takes the branches and tags (v0 advertises everything, refs/remotes/* too).
        let expected = listing.refs.filter {
            !$0.name.hasSuffix("^{}") && ($0.name.hasPrefix("refs/heads/") || $0.name.hasPrefix("refs/tags/"))
        }
        .map { "\($0.objectID!.hex) \($0.name)" }.sorted()
        let written = try RefStore(gitDirectory: target).all().map { "\($0.id.hex) \($0.name)" }.sorted()
        #expect(written == expected)
        #expect((result.pack?.objectCount ?? 0) > 10)
    }

    /// The `agent=` the recorded client sent (git's, for sessions of real git).
    static func clientAgent(_ session: Session) throws -> String {
        var decoder = PktLineDecoder()
        decoder.append(session.bytes(from: .client))
        while let packet = try decoder.next() {
            guard let payload = packet.payload else { continue }
            let text = String(decoding: payload, as: UTF8.self)
            guard let start = text.range(of: "agent=") else { continue }
            return String(text[start.upperBound...].prefix { $0 != " " && $0 != "\n" })
        }
        throw FixtureProblem("the recorded client sent no agent")
    }
}
