import GitWire
import GitWireReplay
import GitWireTestSupport
import Testing

@Suite("Replay mismatches")
struct ReplayMismatchTests {
    private func fixture(_ name: String) throws -> Session {
        try Session(contentsOfFile: "\(fixturesDirectory)/ls-remote/\(name).session")
    }

    /// A capability more than recorded fails, numbered from the start of the client's turn and
    /// shown after the `agent=` line, whose value (another here) is left free.
    @Test func aDifferentRequestShowsTheFirstDifferingPacket() throws {
        let transport = ReplayTransport(try fixture("v2-small-symref"))
        let remote = Remote(url: try RemoteURL("git://127.0.0.1/small.git"), transport: transport)
        let error = try #require(throws: ReplayMismatchError.self) {
            try remote.lsRemoteBlocking(
                LsRemoteOptions(protocolVersion: .v2, serverOptions: ["x"], agent: "someone-else/1.0"))
        }
        #expect(
            error.description
                == "replay mismatch: client packet 4 of this turn differs\n  recorded: delim\n  sent:     pkt \"server-option=x\""
        )
        #expect(throws: ReplayMismatchError.self) { try transport.verify() }
    }

    @Test func anotherProtocolVersionIsRefusedUpFront() throws {
        let transport = ReplayTransport(try fixture("v2-small-symref"))
        let remote = Remote(url: try RemoteURL("git://127.0.0.1/small.git"), transport: transport)
        let error = try #require(throws: ReplayMismatchError.self) {
            try remote.lsRemoteBlocking(LsRemoteOptions(protocolVersion: .v0))
        }
        #expect(
            error.description == "replay mismatch: the client asked for protocol version '0', the recording for '2'")
    }

    @Test func extraRefPrefixesAreCaughtOnTheRunLoopToo() throws {
        let transport = ReplayTransport(try fixture("v2-small-symref"), chunking: .oneByte)
        let remote = Remote(url: try RemoteURL("git://127.0.0.1/small.git"), transport: transport)
        let loop = try EpollRunLoop()
        var failure: (any Error)?
        remote.lsRemote(LsRemoteOptions(refPrefixes: ["refs/heads/"]), in: loop) { result in
            if case .failure(let error) = result { failure = error }
        }
        loop.run(until: .now + .seconds(30).scaledForSlowRuns)
        let mismatch = try #require(failure as? ReplayMismatchError)
        #expect(
            mismatch.description
                == "replay mismatch: client packet 8 of this turn differs\n  recorded: flush\n  sent:     pkt \"ref-prefix refs/heads/\\n\""
        )
    }

    @Test func stoppingEarlyIsReportedByVerify() throws {
        let session = try fixture("v0-small-symref")
        let transport = ReplayTransport(session)
        let loop = try EpollRunLoop()
        let connection = try transport.connect(
            ServiceRequest(path: "/small.git", protocolVersion: .v0), timeout: nil, in: loop)
        let handler = StoppingHandler(loop: loop)
        connection.start(handler: handler)
        connection.send(connection.greeting[0].encoded)
        loop.run(until: .now + .seconds(30).scaledForSlowRuns)
        #expect(!handler.received.isEmpty)
        connection.close()
        let error = try #require(throws: ReplayMismatchError.self) { try transport.verify() }
        #expect(error.description == "replay mismatch: the client stopped before sending flush")
    }

    @Test func readingWhenTheRecordingSaysSendIsAMismatch() throws {
        let transport = ReplayTransport(try fixture("v0-small-symref"))
        let loop = try EpollRunLoop()
        let connection = try transport.connect(
            ServiceRequest(path: "/small.git", protocolVersion: .v0), timeout: nil, in: loop)
        let handler = StoppingHandler(loop: loop)
        connection.start(handler: handler)
        loop.run(until: .now + .seconds(30).scaledForSlowRuns)
        let error = try #require(handler.error as? ReplayMismatchError)
        #expect(
            error.description.hasPrefix(
                "replay mismatch: the client waits for data but the recording has it send pkt \"git-upload-pack /small.git\\0host=127.0.0.1\\0\""
            ))
    }
}

/// Stops the loop at the first thing that happens on a connection, and keeps it.
private final class StoppingHandler: ConnectionHandler {
    let loop: EpollRunLoop
    var received: [UInt8] = []
    var error: (any Error)?

    init(loop: EpollRunLoop) { self.loop = loop }

    func connectionDidOpen(_ connection: any Connection) {}

    func connection(_ connection: any Connection, didReceive bytes: [UInt8]) {
        received += bytes
        loop.stop()
    }

    func connectionDidEnd(_ connection: any Connection) { loop.stop() }

    func connection(_ connection: any Connection, didFail error: any Error) {
        self.error = error
        loop.stop()
    }
}
