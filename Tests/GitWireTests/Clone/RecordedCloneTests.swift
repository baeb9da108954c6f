import Foundation
import GitWire
import GitWireReplay
import GitWireTestSupport
import Testing

/// git's own recorded clones played back through `Remote.clone`: gitwire sends exactly the bytes git
/// sent (the replay checks every one), and the repository it writes from the recorded answer has
/// the refs, HEAD and objects the recording describes, and passes `git fsck`. (It runs git, which
/// the test support starts through Foundation's `Process`, and that cannot start inside the
/// network-less namespace of the offline replay pass: so the name avoids "Replay".)
@Suite("Recorded clones into repositories")
struct RecordedCloneTests {
    @Test(arguments: [
        "v0-clone", "v2-clone", "v0-shallow-clone", "v2-shallow-clone", "sha256/fetch/v0-clone",
        "sha256/fetch/v2-clone",
        "sha256/fetch/v0-shallow-clone", "sha256/fetch/v2-shallow-clone",
    ])
    func recordedCloneMakesTheRepository(name: String) throws {
        let fixture = try FetchFixture(name)
        let shallow = name.contains("shallow")
        let replay = ReplayTransport(fixture.session, chunking: .sizes([7, 4096, 1]))
        let remote = Remote(url: try RemoteURL("git://127.0.0.1\(fixture.session.path)"), transport: replay)
        let directory = try TemporaryDirectory()
        let target = directory.appending("clone.git")
        let fetch = FetchOptions(
            protocolVersion: fixture.protocolVersion, depth: shallow ? 1 : nil, progress: !shallow,
            agent: try fixture.clientAgent())
        let result = try remote.cloneBlocking(into: target, options: RepositoryFetchOptions(fetch: fetch))
        try replay.verify()

        let listing = result.outcome.listing
        let head = try #require(listing.refs.first { $0.name == "HEAD" })
        #expect(result.head == .symbolic(try #require(head.symrefTarget)))
        #expect(try gitText(["symbolic-ref", "HEAD"], in: target) == head.symrefTarget)
        let expectedRefs = listing.refs.filter {
            !$0.name.hasSuffix("^{}") && $0.name != "HEAD" && (!shallow || $0.name == head.symrefTarget)
        }
        let refs = try gitText(["for-each-ref", "--format=%(objectname) %(refname)"], in: target)
        #expect(refs == expectedRefs.map { "\($0.objectID!.hex) \($0.name)" }.joined(separator: "\n"))
        if let total = try DecodedFetch(fixture.session).totalFromProgress {
            #expect(result.pack?.objectCount == total)
        } else {
            // Recorded without progress: the pack's own object count.
            let pack = try DecodedFetch(fixture.session).pack
            let count = pack[8..<12].reduce(0) { $0 << 8 | Int($1) }
            #expect(result.pack?.objectCount == count)
        }
        if shallow {
            #expect(try String(contentsOfFile: "\(target)/shallow", encoding: .utf8) == "\(head.objectID!.hex)\n")
        }
        try git(["fsck", "--full", "--no-dangling"], in: target)
        // A SHA-256 remote's clone is a SHA-256 repository, as git's clone makes it.
        #expect(try gitText(["rev-parse", "--show-object-format"], in: target) == fixture.format.name)
        #expect(try Repository(gitDirectory: target).objectFormat == fixture.format)
    }
}
