import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Compressed answers that expand a thousandfold (issue #19, D13): libcurl decodes everything it
/// reads during one call, so gitwire held a 1.5 MB gzip body as 1.5 GB at once (2 GB peak; git
/// 11 MB). The body now reaches the decoder in pieces of at most 1 MiB, libcurl paused between
/// them, and the peak memory of the `gitwire` process stays far below the expanded size. Each
/// server is `Tools/git-http-server.py`'s hostile kinds, in front of the real `git http-backend`.
@Suite("gzip bombs over smart HTTP", .serialized)
struct HTTPBombTests {
    static let server = Result { try HTTPServer(root: TestRepositories.shared.basePath) }
    /// What a gitwire process may hold here: its own start-up (the debug build; 40–55 MiB in
    /// all) plus the bounded buffers (1 MiB for the decoder, what libcurl decodes from one
    /// 16 KiB read), far below what each bomb expands to, which the old code held at least once.
    static let memoryBound = peakMemoryBound(100 << 20)

    static var environment: [String: String] { reproducibleGitEnvironment }

    /// An ls-refs answer of 512 MiB of flush packets: the listing ends at the first, as git's does
    /// (git then wants a response-end packet and fails; gitwire lists nothing and exits 0).
    @Test func postAnswerIsReadInBoundedPieces() throws {
        let server = try Self.server.get()
        let url = server.url("/hostile/gzip-bomb-post/flush/512/small.git")
        let run = try measuringPeakMemory(
            [gitwireExecutable, "ls-remote", "--protocol-version=2", url], environment: Self.environment)
        #expect(run.output.status == 0, "\(run.output.errorText)")
        #expect(run.output.text == "")
        #expect(run.peakMemory < Self.memoryBound, "peak \(mebibytes(run.peakMemory))")
    }

    /// A clone whose fetch answer is 64 MiB of keep-alive packets (empty band-1 packets) and no
    /// pack: read and decoded in bounded pieces until the keep-alives pass the 16 MiB allowed
    /// beyond the pack (``SideBandDemultiplexer/chatterAllowance``). A smaller one (1 MiB), under
    /// the allowance, is read to its end, which comes too early, as git's is (`early EOF`).
    @Test func wholeBombIsConsumedInBoundedMemory() throws {
        let server = try Self.server.get()
        let url = server.url("/hostile/gzip-bomb-post/keepalive/64/small.git")
        let directory = try TemporaryDirectory()
        let run = try measuringPeakMemory(
            [gitwireExecutable, "clone", "--bare", "--protocol-version=2", url, directory.appending("ours.git")],
            environment: Self.environment)
        let small = server.url("/hostile/gzip-bomb-post/keepalive/1/small.git")
        let expected = try git(
            ["-c", "protocol.version=2", "clone", "--bare", small, directory.appending("git.git")],
            environment: Self.environment, check: false)
        let ours = try gitwire(
            ["clone", "--bare", "--protocol-version=2", small, directory.appending("ours-small.git")],
            environment: Self.environment)
        #expect(expected.status == 128)
        #expect(ours.status == 128)
        let hungUp = "fatal: the remote end hung up unexpectedly while receiving the pack\n"
        #expect(expected.errorText.contains("fatal: early EOF\n"), "\(expected.errorText)")
        #expect(ours.errorText.hasSuffix(hungUp), "\(ours.errorText)")
        #expect(run.output.status == 128)
        let allowance = SideBandDemultiplexer.chatterAllowance
        #expect(
            run.output.errorText.hasSuffix(
                "fatal: protocol error: \((allowance / 5 + 1) * 5) bytes of progress and keep-alive packets for 0"
                    + " bytes of pack (at most 16 MiB more are allowed)\n"), "\(run.output.errorText)")
        #expect(run.peakMemory < Self.memoryBound, "peak \(mebibytes(run.peakMemory))")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("ours.git")))
        #expect(!FileManager.default.fileExists(atPath: directory.appending("ours-small.git")))
    }

    /// The discovery answer goes on after its advertisement with 512 MiB of flush packets: nothing
    /// after the advertisement's flush is read. Over v0 the refs are git's (git reads the whole
    /// answer, 512 MiB); over v2 they are the repository's refs too, where the old code took the
    /// junk for the ls-refs answer and listed nothing.
    @Test(arguments: ["0", "2"])
    func dataAfterTheAdvertisementIsNotRead(version: String) throws {
        let server = try Self.server.get()
        let real = try git(
            ["-c", "protocol.version=0", "ls-remote", server.url("/git/small.git")], environment: Self.environment)
        let url = server.url("/hostile/gzip-bomb-advertisement/flush/512/small.git")
        let run = try measuringPeakMemory(
            [gitwireExecutable, "ls-remote", "--protocol-version=\(version)", url], environment: Self.environment)
        #expect(run.output.status == 0, "\(run.output.errorText)")
        #expect(run.output.text == real.text)
        #expect(run.peakMemory < Self.memoryBound, "peak \(mebibytes(run.peakMemory))")
        if version == "0" {
            // git over the same server (a smaller bomb: git holds all of it) lists the same refs.
            let small = server.url("/hostile/gzip-bomb-advertisement/flush/16/small.git")
            let expected = try git(["-c", "protocol.version=0", "ls-remote", small], environment: Self.environment)
            #expect(expected.text == real.text)
        }
        // A clone through the same answer gets the repository whole.
        let directory = try TemporaryDirectory()
        let cloned = try gitwire(
            ["clone", "--bare", "--protocol-version=\(version)", url, directory.appending("c.git")],
            environment: Self.environment)
        #expect(cloned.status == 0, "\(cloned.errorText)")
        let refs = try git(["for-each-ref", "--format=%(objectname) %(refname)"], in: directory.appending("c.git"))
        #expect(refs.text.contains(" refs/heads/main\n"))
        try git(["fsck", "--full"], in: directory.appending("c.git"))
    }
}
