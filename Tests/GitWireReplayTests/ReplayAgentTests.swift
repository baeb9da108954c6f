import GitWire
import GitWireReplay
import GitWireTestSupport
import Testing

/// A recording made by one version of gitwire replays against the next: the value of the
/// `agent=` capability (the client's version, in a v2 request's `agent=` line or among a v0
/// want line's capabilities) is left free, pkt-line lengths with it; everything else the client
/// says is still pinned.
@Suite("Replay with another agent")
struct ReplayAgentTests {
    static let agents = ["gitwire/0.2.0", "gitwire/10.0.0-beta.1+linux", "x/1"]

    @Test(arguments: ["v2-small-symref", "v2-heads-and-tags", "v2-server-options", "http-v2-small-symref"], agents)
    func lsRemoteReplaysTheSameListing(name: String, agent: String) throws {
        let fixture = try LsRemoteFixture(path: "\(fixturesDirectory)/ls-remote/\(name).session")
        let url = try RemoteURL(fixture.url)
        let recorded = ReplayTransport(fixture.session)
        let expected = try Remote(url: url, transport: recorded).lsRemoteBlocking(fixture.options)
        try recorded.verify()

        var options = fixture.options
        options.agent = agent
        let replay = ReplayTransport(fixture.session)
        let listing = try Remote(url: url, transport: replay).lsRemoteBlocking(options)
        try replay.verify()
        #expect(listing.refs == expected.refs)
    }

    /// gitwire's own HTTP clones, v0 (the agent in the first want line) and v2.
    @Test(arguments: ["v0-clone", "v2-clone"], agents)
    func cloneReplays(name: String, agent: String) throws {
        let session = try Session(contentsOfFile: "\(fixturesDirectory)/http/\(name).session")
        let replay = ReplayTransport(session)
        let remote = Remote(url: try RemoteURL("http://127.0.0.1\(session.path)"), transport: replay)
        let directory = try TemporaryDirectory()
        var fetch = FetchOptions(protocolVersion: session.protocolVersion, progress: false)
        fetch.agent = agent
        let result = try remote.cloneBlocking(
            into: directory.appending("clone.git"), options: RepositoryFetchOptions(fetch: fetch))
        try replay.verify()
        #expect((result.pack?.objectCount ?? 0) > 10)
    }

    /// A client that writes its request a byte at a time, with another agent: each pkt-line is
    /// compared once whole, and the server answers as recorded.
    @Test func aRequestSentByteByByteReplays() throws {
        let session = try Session(contentsOfFile: "\(fixturesDirectory)/ls-remote/v2-small-symref.session")
        let replay = ReplayTransport(session)
        var request: [PktLine] = [.text("command=ls-refs"), .data(Array("agent=gitwire/99.1".utf8))]
        request += [.data(Array("object-format=sha1".utf8)), .delimiter, .text("peel"), .text("symrefs")]
        request += [.text("unborn"), .flush]
        let handler = try Self.run(replay, turns: [request.flatMap(\.encoded), PktLine.flush.encoded])
        #expect(handler.error == nil)
        #expect(handler.ended)
        #expect(String(decoding: handler.received, as: UTF8.self).contains("refs/tags/v1 peeled:"))
        try replay.verify()
    }

    /// Sent a byte at a time, a pkt-line that differs outside an agent's value fails as soon as
    /// its bytes part from the recording's, before the line is whole.
    @Test func aPartialLineThatDiffersFailsAtOnce() throws {
        let session = try Session(contentsOfFile: "\(fixturesDirectory)/ls-remote/v2-small-symref.session")
        let replay = ReplayTransport(session)
        let line = PktLine.text("command=ls-refz and more").encoded
        let handler = try Self.run(replay, turns: [Array(line.prefix(4 + "command=ls-refz".utf8.count))])
        let error = try #require(handler.error as? ReplayMismatchError)
        #expect(handler.sentWhenFailed == 4 + "command=ls-refz".utf8.count)
        #expect(
            error.description
                == "replay mismatch: client packet 1 of this turn differs\n  recorded: pkt \"command=ls-refs\\n\"\n  sent:     raw MDAxZGNvbW1hbmQ9bHMtcmVmeg=="
        )
        #expect(throws: ReplayMismatchError.self) { try replay.verify() }
    }

    /// Connects to `replay` and sends the greeting, then each of `turns` a byte at a time when the
    /// server has answered the one before (with a flush).
    static func run(_ replay: ReplayTransport, turns: [[UInt8]]) throws -> ScriptedHandler {
        let loop = try EpollRunLoop()
        let connection = try replay.connect(
            ServiceRequest(path: "/small.git", protocolVersion: .v2), timeout: nil, in: loop)
        let handler = ScriptedHandler(turns: turns)
        connection.start(handler: handler)
        for packet in connection.greeting { connection.send(packet.encoded) }
        loop.run(until: .now + .seconds(30).scaledForSlowRuns)
        connection.close()
        return handler
    }
}

/// Sends each of its turns a byte at a time once the server's answer ends with a flush; keeps what
/// it receives and the first failure.
final class ScriptedHandler: ConnectionHandler {
    private var turns: [[UInt8]]
    var received: [UInt8] = []
    var error: (any Error)?
    var ended = false
    /// How many bytes of the current turn had gone when the connection failed.
    var sentWhenFailed: Int?
    private var sent = 0

    init(turns: [[UInt8]]) { self.turns = turns }

    func connectionDidOpen(_ connection: any Connection) {}

    func connection(_ connection: any Connection, didReceive bytes: [UInt8]) {
        received += bytes
        guard received.suffix(4).elementsEqual(Array("0000".utf8)), !turns.isEmpty else { return }
        let turn = turns.removeFirst()
        sent = 0
        for byte in turn where error == nil {
            connection.send([byte])
            sent += 1
        }
    }

    func connectionDidEnd(_ connection: any Connection) { ended = true }

    func connection(_ connection: any Connection, didFail error: any Error) {
        if self.error == nil {
            self.error = error
            sentWhenFailed = sent + 1
        }
    }
}
