import Foundation
import GitWireTestSupport
import Testing

@testable import GitWire
@testable import GitWirePOSIX

/// Hears a connection's events and stops the loop at each.
private final class StoppingHandler: ConnectionHandler {
    let loop: EpollRunLoop
    var opened = false
    var received: [UInt8] = []
    var ended = false
    var drained = false
    var failure: (any Error)?

    init(loop: EpollRunLoop) { self.loop = loop }

    func connectionDidOpen(_ connection: any Connection) {
        opened = true
        loop.stop()
    }
    func connection(_ connection: any Connection, didReceive bytes: [UInt8]) {
        received += bytes
        loop.stop()
    }
    func connectionDidDrain(_ connection: any Connection) {
        drained = true
        loop.stop()
    }
    func connectionDidEnd(_ connection: any Connection) {
        ended = true
        loop.stop()
    }
    func connection(_ connection: any Connection, didFail error: any Error) {
        failure = error
        loop.stop()
    }
}

/// The transports' connection is the descriptor channel itself: one object in the loop per
/// socket, the stream faces on the other side of the same kind of channel.
@Suite("Descriptor channel as the connection")
struct ChannelConnectionTests {
    /// A git:// connection is one channel in the loop: it connects, sends the request line,
    /// hands each read to the handler and reports the peer's end.
    @Test func gitDaemonConnectionIsOneChannel() throws {
        let loop = try EpollRunLoop()
        let listener = try ListeningSocket()
        let transport = GitDaemonTransport(host: "127.0.0.1", port: listener.address.port)
        let connection = try transport.connect(
            ServiceRequest(path: "/repo.git", protocolVersion: .v0), timeout: .seconds(30), in: loop)
        #expect(connection is StreamChannel)
        let handler = StoppingHandler(loop: loop)
        connection.start(handler: handler)
        connection.send(try PktLineEncoder.encode(connection.greeting))
        let limit = ContinuousClock.now + Duration.seconds(30).scaledForSlowRuns
        // Open, then the queued request line written.
        while !handler.drained && handler.failure == nil && ContinuousClock.now < limit { loop.run(until: limit) }
        #expect(handler.opened)
        #expect(connection.queuedByteCount == 0)
        #expect(loop.scheduledSourceCount == 1)

        let peer = try #require(try listener.accept(timeout: .seconds(30).scaledForSlowRuns))
        peer.setTimeout(.seconds(30).scaledForSlowRuns)
        let request = try PktLineEncoder.encode(connection.greeting)
        #expect(try peer.input.readFully(request.count) == request)
        try peer.output.writeFully(Array("0008NAK\n".utf8))
        peer.close()
        while !handler.ended && handler.failure == nil && ContinuousClock.now < limit { loop.run(until: limit) }
        #expect(handler.received == Array("0008NAK\n".utf8))
        #expect(handler.ended)
        #expect(handler.failure == nil)
        connection.close()
        #expect(loop.scheduledSourceCount == 0)
        listener.close()
    }

    /// A child process is one connection channel with its standard input and error channels
    /// beside it; closing takes all three out of the loop once the child's error output ends.
    @Test func childProcessConnectionReadsWritesAndCloses() throws {
        let loop = try EpollRunLoop()
        let connection = try StreamChannel.connection(
            spawning: ["cat"], environment: [:], errorOutput: .kept, loop: loop)
        let handler = StoppingHandler(loop: loop)
        connection.start(handler: handler)
        #expect(loop.scheduledSourceCount == 3)
        let message = Array("through the channel\n".utf8)
        connection.send(message)
        let limit = ContinuousClock.now + Duration.seconds(30).scaledForSlowRuns
        while handler.received.count < message.count && handler.failure == nil && ContinuousClock.now < limit {
            loop.run(until: limit)
        }
        #expect(handler.received == message)
        connection.close()
        // The loop runs until the child is reaped and its standard error has ended.
        loop.run(until: limit)
        #expect(loop.scheduledSourceCount == 0)
        #expect(handler.failure == nil)
    }

    /// Runs `loop` until `done` holds, for at most 30 seconds (scaled for slow runs).
    private static func run(_ loop: EpollRunLoop, until done: () -> Bool) {
        let limit = ContinuousClock.now + Duration.seconds(30).scaledForSlowRuns
        while !done() && ContinuousClock.now < limit { loop.run(until: limit) }
    }

    /// `finishSending` closes only a child's standard input, once what is queued (more than a
    /// pipe holds) is written: `cat` reads the end of its input and exits, and what it echoed is
    /// still read to its end. Sending afterwards fails the connection.
    @Test func finishSendingClosesOnlyAChildsInput() throws {
        let loop = try EpollRunLoop()
        let connection = try StreamChannel.connection(
            spawning: ["cat"], environment: [:], errorOutput: .kept, loop: loop)
        let handler = StoppingHandler(loop: loop)
        connection.start(handler: handler)
        let message = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        connection.send(message)
        connection.finishSending()
        Self.run(loop) { handler.ended || handler.failure != nil }
        #expect(handler.received == message)
        #expect(handler.ended)
        #expect(handler.failure == nil)
        connection.send([1])
        Self.run(loop) { handler.failure != nil }
        #expect(handler.failure as? StreamError == .closed)
        connection.close()
        loop.run(until: .now + Duration.seconds(30).scaledForSlowRuns)
        #expect(loop.scheduledSourceCount == 0)
    }

    /// On a socket, `finishSending` shuts down only the writing side: the peer reads every byte
    /// and then the end, and what the peer sends after that still arrives.
    @Test func finishSendingShutsDownOnlyASocketsWritingSide() throws {
        let loop = try EpollRunLoop()
        let (ours, theirs) = try Socket.makePair()
        let connection = StreamChannel.connection(socket: ours, loop: loop)
        let handler = StoppingHandler(loop: loop)
        connection.start(handler: handler)
        let peer = ByteStreamPair(socket: theirs)
        try peer.open()
        peer.setTimeout(.seconds(30).scaledForSlowRuns)
        let message = Array("a request the peer reads to its end\n".utf8)
        connection.send(message)
        connection.finishSending()
        #expect(try peer.input.readFully(message.count) == message)
        #expect(try peer.input.read() == [])
        let answer = Array("the answer after the end\n".utf8)
        try peer.output.writeFully(answer)
        peer.close()
        Self.run(loop) { handler.ended || handler.failure != nil }
        #expect(handler.received == answer)
        #expect(handler.ended)
        #expect(handler.failure == nil)
        connection.close()
        #expect(loop.scheduledSourceCount == 0)
    }

    /// `onStandardError` gets a child's standard error raw, as it is read: bytes that are no
    /// text and a last line without its line break included, apart from its standard output.
    @Test func standardErrorHookGetsTheRawBytes() throws {
        let loop = try EpollRunLoop()
        let connection = try StreamChannel.connection(
            spawning: ["sh", "-c", "printf 'one\\ntw\\377o' >&2; printf out"], environment: [:],
            errorOutput: .kept, loop: loop)
        var errors: [UInt8] = []
        connection.onStandardError = { errors += $0 }
        let handler = StoppingHandler(loop: loop)
        connection.start(handler: handler)
        Self.run(loop) { handler.ended || handler.failure != nil }
        #expect(errors == Array("one\ntw".utf8) + [0xff] + Array("o".utf8))
        #expect(handler.received == Array("out".utf8))
        #expect(handler.ended)
        connection.close()
        loop.run(until: .now + Duration.seconds(30).scaledForSlowRuns)
        #expect(loop.scheduledSourceCount == 0)
    }

    /// `onExit` gets the child's exit code from the one reaping path the moment it ends, while
    /// the connection is still open: here a child that closes its output first and exits later.
    @Test func exitCallbackGetsTheCodeBeforeClosing() throws {
        let loop = try EpollRunLoop()
        let connection = try StreamChannel.connection(
            spawning: ["sh", "-c", "exec >&- 2>&-; sleep 0.2; exit 7"], environment: [:], errorOutput: .kept,
            loop: loop)
        var code: Int32?
        connection.onExit = { exit in
            code = exit
            loop.stop()
        }
        let handler = StoppingHandler(loop: loop)
        connection.start(handler: handler)
        Self.run(loop) { handler.ended && code != nil }
        #expect(handler.ended)
        #expect(code == 7)
        // Reaped already: closing leaves nothing to watch.
        connection.close()
        #expect(loop.scheduledSourceCount == 0)
    }
}
